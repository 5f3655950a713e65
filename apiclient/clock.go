package apiclient

import (
	"context"
	"time"
)

// Clock is a source of time that can also wait: the wall clock in a real
// run, a manual or scaled one in tests and rehearsals, or one that follows
// the service's Date headers. It lives here, in the one package every
// other of betplan may import, so there is one Clock and one wait.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// RealClock returns the wall clock.
func RealClock() Clock { return wallClock{} }

type wallClock struct{}

func (wallClock) Now() time.Time                                   { return time.Now() }
func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return Sleep(ctx, d) }

// Sleep waits d of wall time, or until ctx is done, whichever is first; it
// returns ctx's error in the second case. A d of zero or less does not
// wait.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
