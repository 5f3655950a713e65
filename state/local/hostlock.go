package local

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/betplan/betplan/state"
)

// HostLocked is a shared store whose runs on one machine also meet at the
// machine's own lock: the lock file a run with the local state takes. A
// run with --state and a run without it, side by side on one host, never
// act together; the host lock is taken first, then the shared one.
func HostLocked(host Layout, shared state.Store) state.Store {
	return hostLocked{host: Store{Layout: host.WithDefaults("")}, shared: shared}
}

type hostLocked struct {
	host   Store
	shared state.Store
}

func (s hostLocked) String() string { return s.shared.String() }

func (s hostLocked) Lock(ctx context.Context, req state.LockRequest) (state.Lease, error) {
	start := time.Now()
	path := s.host.Layout.LockPath(req.Name, req.BaseURL)
	earlier := req.Earlier
	if earlier.PID == 0 {
		earlier = ReadLockOwner(path)
	}
	lock, err := acquireLock(ctx, path, req.Owner, req.Timeout, req.Waiting)
	if err != nil {
		return nil, err
	}
	shared := req
	shared.Earlier = earlier
	shared.Timeout = max(0, req.Timeout-time.Since(start))
	lease, err := s.shared.Lock(ctx, shared)
	if err != nil {
		lock.Release()
		return nil, err
	}
	return &hostLease{Lease: lease, lock: lock, stopPaths: s.host.Layout.stopPaths(req.Name, req.BaseURL),
		intents: s.host.Layout.intents(req.Name, req.BaseURL)}, nil
}

func (s hostLocked) ReadLog(ctx context.Context, key state.PlanKey) ([][]byte, error) {
	return s.shared.ReadLog(ctx, key)
}

// Unlock unlocks the shared lock; forced, it also removes this host's lock
// file, so a run here can take over from the fenced one at once.
func (s hostLocked) Unlock(ctx context.Context, key state.PlanKey, force bool) (state.LockOwner, error) {
	owner, err := s.shared.Unlock(ctx, key, force)
	if err != nil || !force {
		return owner, err
	}
	path := s.host.Layout.LockPath(key.Name, key.BaseURL)
	if _, err := os.Stat(path); err == nil {
		if _, err := Unlock(path, true); err != nil {
			return owner, err
		}
	}
	return owner, nil
}

func (s hostLocked) ReadAccount(ctx context.Context, service string) ([]state.PlanLog, error) {
	return s.shared.ReadAccount(ctx, service)
}

func (s hostLocked) SetStop(ctx context.Context, key state.PlanKey, mark *state.StopMark) error {
	return s.shared.SetStop(ctx, key, mark)
}

// ReadStop reads the shared stop mark, and this machine's: a plan stopped
// on this host stops here whatever the state.
func (s hostLocked) ReadStop(ctx context.Context, key state.PlanKey) (*state.StopMark, error) {
	if m, err := s.shared.ReadStop(ctx, key); m != nil || err != nil {
		return m, err
	}
	return s.host.ReadStop(ctx, key)
}

// hostLease is the shared lease and the host's lock file under it.
type hostLease struct {
	state.Lease
	lock      *Lock
	stopPaths []string
	intents   *IntentFile
}

// Intents is this host's intent file of the plan, beside its lock file:
// a shared state restored from a backup loses no create this host had in
// flight either.
func (l *hostLease) Intents() state.Intents { return intentsOrNil(l.intents) }

func (l *hostLease) Stopped() (*state.StopMark, error) {
	if m, err := l.Lease.Stopped(); m != nil || err != nil {
		return m, err
	}
	return readStopFiles(l.stopPaths)
}

func (l *hostLease) Release() error {
	return errors.Join(l.Lease.Release(), l.lock.Release())
}

// The account's leadership is the shared store's: the processes that may
// lead it run on several machines.
var _ state.Leaders = hostLocked{}

func (s hostLocked) leaders() state.Leaders {
	if l, ok := state.LeadersOf(s.shared); ok {
		return l
	}
	return s.host
}

func (s hostLocked) Lead(ctx context.Context, req state.LeadRequest) (state.Term, error) {
	return s.leaders().Lead(ctx, req)
}

func (s hostLocked) Leader(ctx context.Context, account string) (*state.Term, error) {
	return s.leaders().Leader(ctx, account)
}

func (s hostLocked) Resign(ctx context.Context, term state.Term) error {
	return s.leaders().Resign(ctx, term)
}
