package local

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/betplan/betplan/state"
)

// Holder reads who holds the plan's lock file from the system's table of
// file locks (lockedBy): the lock is never taken nor probed, so a run
// that takes it meanwhile is never refused for the look.
func (s Store) Holder(_ context.Context, key state.PlanKey) (*state.LockOwner, error) {
	return holder(s.Layout.WithDefaults("").LockPath(key.Name, key.BaseURL))
}

// Holder is the shared store's: a run holds the host's lock and then the
// shared one, so the shared lock says who runs, on whatever machine.
func (s hostLocked) Holder(ctx context.Context, key state.PlanKey) (*state.LockOwner, error) {
	return s.shared.Holder(ctx, key)
}

func holder(path string) (*state.LockOwner, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // never locked here
	}
	if err != nil {
		return nil, err
	}
	pid, held, err := lockedBy(fi)
	if err != nil || !held {
		return nil, err
	}
	// The owner the run wrote once it held the lock; a moment before, the
	// system's pid alone.
	owner := ReadLockOwner(path)
	if owner.PID == 0 {
		owner.PID = pid
	}
	return &owner, nil
}
