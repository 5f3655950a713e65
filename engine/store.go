package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Store keeps each plan's journal and lock. There are two: the local files
// (LocalStore, the default) and a database shared by every machine that
// runs the plan (package pgstate). The commands never know which one they
// have: main chooses it from --state, in one place.
type Store interface {
	// Lock takes the plan's lock, waiting up to req.Timeout while another
	// run holds it, and opens the plan's journal for writing under it.
	Lock(ctx context.Context, req LockRequest) (Lease, error)
	// ReadJournal replays the plan's journal without its lock; a plan with
	// no journal yet reads as fresh and empty.
	ReadJournal(ctx context.Context, key PlanKey) (*Journal, error)
	// Unlock clears the plan's lock and returns its last holder: a stale
	// one, or with force a live one, which is fenced off first.
	Unlock(ctx context.Context, key PlanKey, force bool) (LockOwner, error)
	// SetStop sets the plan's stop mark, or clears it with a nil mark:
	// while it is set, no run of the plan creates anything (StopMark).
	SetStop(ctx context.Context, key PlanKey, mark *StopMark) error
	// ReadStop reads the plan's stop mark; nil when there is none.
	ReadStop(ctx context.Context, key PlanKey) (*StopMark, error)
	// String names the store in messages, never with a password.
	String() string
}

// PlanKey names one plan's state: its name and the service it runs
// against. BaseURL is as the user configured it (normalised); the state is
// keyed by Service, the one name of that service however it is spelled.
type PlanKey struct {
	Name    string
	BaseURL string
}

// Service is the service's identity (apiclient.ServiceIdentity): every
// lock, journal key and stop mark of the plan is keyed by it, so two runs
// that spell one service two ways meet at one lock.
func (k PlanKey) Service() string { return ServiceIdentity(k.BaseURL) }

// ServiceIdentity is apiclient.ServiceIdentity, or the URL as given when
// it does not parse (it then names no service two spellings could share).
func ServiceIdentity(baseURL string) string {
	id, err := apiclient.ServiceIdentity(baseURL)
	if err != nil {
		return baseURL
	}
	return id
}

// LockRequest asks for a plan's lock.
type LockRequest struct {
	PlanKey
	Owner   LockOwner
	Timeout time.Duration
	// Waiting, if set, is told who holds the lock when the request has to
	// wait for it.
	Waiting func(holder LockOwner)
	// Earlier is who held this host's lock of the plan before this request
	// (the lock file's owner, read before it is taken; set by the store
	// that takes it). A journal begun under it begins in doubt: this host
	// ran the plan before, so its journal was lost, maybe with a create
	// in flight.
	Earlier LockOwner
}

// Lease is a plan's lock held by this process and the journal it guards.
type Lease interface {
	Journal() *Journal
	// Lost is closed once the lock is lost (its connection died, or
	// another run took it over); Err then says why. A run must create
	// nothing more.
	Lost() <-chan struct{}
	Err() error
	// Stopped reads the plan's stop mark through the lock; nil when the
	// plan may go on creating.
	Stopped() (*StopMark, error)
	// Release closes the journal and gives the lock up.
	Release() error
}

// LockLostError means the run lost the plan's lock while it ran: its
// journal writes are refused (fenced) and it creates nothing more.
type LockLostError struct{ Reason string }

func (e *LockLostError) Error() string { return "lost the plan's lock: " + e.Reason }

// StateUnavailableError means the plan's state could not be reached or
// used, so nothing was done.
type StateUnavailableError struct {
	Store string
	Err   error
}

func (e *StateUnavailableError) Error() string {
	return fmt.Sprintf("the shared state %s: %v", e.Store, e.Err)
}

func (e *StateUnavailableError) Unwrap() error { return e.Err }

func isLockLost(err error) (*LockLostError, bool) {
	var l *LockLostError
	ok := errors.As(err, &l)
	return l, ok
}

// LocalStore is the embedded default: the journal in the state dir, an OS
// file lock in the user's cache dir.
type LocalStore struct{ Layout Layout }

func (s LocalStore) String() string { return s.Layout.Dir }

// Lock takes the OS file lock and opens the journal.
func (s LocalStore) Lock(ctx context.Context, req LockRequest) (Lease, error) {
	path := s.Layout.LockPath(req.Name, req.BaseURL)
	if req.Earlier.PID == 0 {
		req.Earlier = ReadLockOwner(path)
	}
	lock, err := acquireLock(ctx, path, req.Owner, req.Timeout, req.Waiting)
	if err != nil {
		return nil, err
	}
	j, err := openJournal(s.Layout.JournalPath(req.Name), req.Earlier)
	if err != nil {
		lock.Release()
		return nil, err
	}
	// The file lock's fencing token is the lock file itself: once it is
	// removed (unlock --force), this run writes nothing more.
	l := &localLease{journal: j, lock: lock, lost: make(chan struct{}), stopPaths: s.Layout.stopPaths(req.Name, req.BaseURL)}
	j.log = &fencedLog{JournalLog: j.log, lease: l}
	return l, nil
}

// ReadJournal replays the journal file.
func (s LocalStore) ReadJournal(_ context.Context, key PlanKey) (*Journal, error) {
	return ReadJournal(s.Layout.JournalPath(key.Name))
}

// Unlock removes a stale lock file (or, forced, a live one).
func (s LocalStore) Unlock(_ context.Context, key PlanKey, force bool) (LockOwner, error) {
	return Unlock(s.Layout.LockPath(key.Name, key.BaseURL), force)
}

// fencedLog refuses to append once its lock file was taken away.
type fencedLog struct {
	JournalLog
	lease *localLease
}

func (l *fencedLog) Append(serial int64, entry []byte) error {
	if err := l.lease.Err(); err != nil {
		return err
	}
	if lock := l.lease.lock; !lock.stillHeld() {
		return l.lease.lose(fmt.Sprintf("the lock file %s was removed (betplan unlock --force)", lock.path))
	}
	return l.JournalLog.Append(serial, entry)
}

type localLease struct {
	journal   *Journal
	lock      *Lock
	stopPaths []string
	mu        sync.Mutex
	err       error
	lost      chan struct{}
}

func (l *localLease) Journal() *Journal           { return l.journal }
func (l *localLease) Stopped() (*StopMark, error) { return readStopFiles(l.stopPaths) }
func (l *localLease) Lost() <-chan struct{}       { return l.lost }

func (l *localLease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *localLease) lose(reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = &LockLostError{Reason: reason}
		close(l.lost)
	}
	return l.err
}

func (l *localLease) Release() error {
	return errors.Join(l.journal.Close(), l.lock.Release())
}
