package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/betplan/betplan/state"
)

// Lock is an OS file lock per plan name and base URL: two runs of one plan
// never act together, even with different state dirs, and a killed
// process's lock is released by the OS.
type Lock struct {
	fl   *flock.Flock
	path string
}

// AcquireLock takes the lock, waiting up to timeout for another run.
func AcquireLock(ctx context.Context, path string, owner state.LockOwner, timeout time.Duration) (*Lock, error) {
	return acquireLock(ctx, path, owner, timeout, nil)
}

func acquireLock(ctx context.Context, path string, owner state.LockOwner, timeout time.Duration, waiting func(state.LockOwner)) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create lock dir: %w", err)
	}
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok && timeout > 0 {
		if waiting != nil {
			waiting(ReadLockOwner(path))
		}
		wctx, cancel := context.WithTimeout(ctx, timeout)
		ok, err = fl.TryLockContext(wctx, 100*time.Millisecond)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
	if !ok {
		return nil, &state.LockedError{Where: path, Owner: ReadLockOwner(path)}
	}
	b, _ := json.Marshal(owner)
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644); err == nil {
		f.Write(append(b, '\n'))
		f.Close()
	}
	return &Lock{fl: fl, path: path}, nil
}

// ReadLockOwner reads who last took the lock.
func ReadLockOwner(path string) state.LockOwner {
	var o state.LockOwner
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &o)
	}
	return o
}

// stillHeld reports whether the lock file is still the one this lock
// holds: `unlock --force` removes it, and a run that holds a removed file
// holds nothing another run respects.
func (l *Lock) stillHeld() bool {
	held, err := l.fl.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(l.path)
	return err == nil && os.SameFile(held, now)
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}

// Unlock removes a stale lock file. It refuses while a live process holds
// the lock unless force is set, and returns the last owner.
func Unlock(path string, force bool) (state.LockOwner, error) {
	owner := ReadLockOwner(path)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return owner, fmt.Errorf("no lock at %s", path)
	}
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return owner, err
	}
	if !ok && !force {
		return owner, &state.LockedError{Where: path, Owner: owner}
	}
	if ok {
		defer fl.Unlock()
	}
	return owner, os.Remove(path)
}
