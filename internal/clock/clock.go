// Package clock is the time betplan runs on: an interface that the wall
// clock, the simulated service's clocks and the clock that follows a
// service's Date headers all satisfy, and the one wait that gives up when
// its context is done. It imports nothing but the standard library, so
// every package of betplan may use it without an arrow pointing back up.
package clock

import (
	"context"
	"time"
)

// Clock is a source of time that can also wait: the wall clock in a real
// run, a manual or scaled one in tests and rehearsals.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// Real returns the wall clock.
func Real() Clock { return wall{} }

type wall struct{}

func (wall) Now() time.Time                                   { return time.Now() }
func (wall) Sleep(ctx context.Context, d time.Duration) error { return Sleep(ctx, d) }

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
