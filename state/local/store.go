// Package local keeps a plan's state on this machine: the journal as a
// file of JSON lines in the state dir, an OS file lock and the stop mark
// in the user's cache dir (keyed by plan and service, so two state dirs
// still share one lock).
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/betplan/betplan/state"
)

// Store is the local files of a Layout.
type Store struct{ Layout Layout }

var (
	_ state.Store       = Store{}
	_ state.LegacyStore = Store{}
)

func (s Store) String() string { return s.Layout.Dir }

// Lock takes the OS file lock and opens the journal. Who held the lock
// file before (its owner, read before it is taken) is the lease's Earlier.
func (s Store) Lock(ctx context.Context, req state.LockRequest) (state.Lease, error) {
	layout := s.Layout.WithDefaults("")
	path := layout.LockPath(req.Name, req.BaseURL)
	if req.Earlier.PID == 0 {
		req.Earlier = ReadLockOwner(path)
	}
	lock, err := acquireLock(ctx, path, req.Owner, req.Timeout, req.Waiting)
	if err != nil {
		return nil, err
	}
	moved, err := layout.carryOver(req.Name, req.BaseURL)
	if err != nil {
		lock.Release()
		return nil, err
	}
	log, err := OpenLog(layout.JournalPath(req.Name, req.BaseURL))
	if err != nil {
		lock.Release()
		return nil, err
	}
	if moved != "" {
		log.repaired = strings.TrimSuffix(moved+"; "+log.repaired, "; ")
	}
	// The file lock's fencing token is the lock file itself: once it is
	// removed (unlock --force), this run writes nothing more.
	return &lease{FileLog: log, lock: lock, earlier: req.Earlier, lost: make(chan struct{}), stopPaths: layout.stopPaths(req.Name, req.BaseURL),
		layout: layout, service: req.Service(), plan: req.Name, intents: layout.intents(req.Name, req.BaseURL), leader: layout.leaderCheckFor(req)}, nil
}

// ReadLog reads the journal file's records.
func (s Store) ReadLog(_ context.Context, key state.PlanKey) ([][]byte, error) {
	return ReadLog(s.Layout.WithDefaults("").JournalPath(key.Name, key.BaseURL))
}

// Unlock removes a stale lock file (or, forced, a live one).
func (s Store) Unlock(_ context.Context, key state.PlanKey, force bool) (state.LockOwner, error) {
	return Unlock(s.Layout.WithDefaults("").LockPath(key.Name, key.BaseURL), force)
}

type lease struct {
	*FileLog
	lock      *Lock
	earlier   state.LockOwner
	stopPaths []string
	layout    Layout // the state dir, where the account's gate is
	service   string // the service's identity: the account's journals are its
	plan      string // this plan's name
	intents   *IntentFile
	leader    *leaderCheck // the leadership it was taken under, nil for none
	mu        sync.Mutex
	err       error
	lost      chan struct{}
}

func (l *lease) Earlier() state.LockOwner          { return l.earlier }
func (l *lease) Stopped() (*state.StopMark, error) { return readStopFiles(l.stopPaths) }
func (l *lease) Lost() <-chan struct{}             { return l.lost }

// Intents is this host's intent file of the plan; nil for a rehearsal.
func (l *lease) Intents() state.Intents { return intentsOrNil(l.intents) }

func (l *lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Append refuses once the lock file was taken away.
func (l *lease) Append(serial int64, record []byte) error {
	if err := l.Err(); err != nil {
		return err
	}
	if !l.lock.stillHeld() {
		return l.lose(fmt.Sprintf("the lock file %s was removed (betplan unlock --force)", l.lock.path))
	}
	if stale, err := l.leader.stale(); err != nil {
		return l.lose(fmt.Sprintf("the account's leadership could not be read (%v)", err))
	} else if stale {
		return l.lose(state.StaleFence(l.leader.fence).Reason)
	}
	return l.FileLog.Append(serial, record)
}

func (l *lease) lose(reason string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = &state.LockLostError{Reason: reason}
		close(l.lost)
	}
	return l.err
}

func (l *lease) Release() error {
	return errors.Join(l.FileLog.Close(), l.lock.Release())
}

// LegacyJournal reads <plan>.journal.jsonl, the journal an earlier betplan
// kept for the plan whatever the service; nil when there is none.
func (s Store) LegacyJournal(_ context.Context, key state.PlanKey) (*state.LegacyJournal, error) {
	layout := s.Layout.WithDefaults("")
	path := layout.LegacyJournalPath(key.Name)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	records, err := ReadLog(path)
	if err != nil {
		return nil, err
	}
	lj := &state.LegacyJournal{Where: path, Records: records, Suggested: layout.JournalPath(key.Name, key.BaseURL)}
	aside := setAsidePath(lj, key)
	if _, err := os.Lstat(aside); err == nil {
		if lj.SetAside, err = ReadLog(aside); err != nil {
			return nil, err
		}
	}
	return lj, nil
}

// setAsidePath is <plan>.journal.jsonl.set-aside-<service>: the records of
// the legacy journal the service showed not to be its own.
func setAsidePath(j *state.LegacyJournal, key state.PlanKey) string {
	return j.Where + ".set-aside-" + ServiceKey(key.BaseURL)
}

// SetAside writes the records set aside as a journal file of their own,
// synced, and renamed into place whole.
func (s Store) SetAside(_ context.Context, key state.PlanKey, j *state.LegacyJournal, records [][]byte) (string, error) {
	path := setAsidePath(j, key)
	var b []byte
	for _, r := range records {
		b = append(append(b, r...), '\n')
	}
	if err := writeSynced(path, b); err != nil {
		return "", fmt.Errorf("set records of %s aside: %w", j.Where, err)
	}
	return path, nil
}

// RetireLegacy renames the legacy journal to <plan>.journal.jsonl.moved-
// to-<service>: kept, for whoever looks, but no journal of any service.
func (s Store) RetireLegacy(_ context.Context, key state.PlanKey, j *state.LegacyJournal) error {
	return os.Rename(j.Where, j.Where+".moved-to-"+ServiceKey(key.BaseURL))
}
