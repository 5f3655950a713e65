package engine

import (
	"context"
	"errors"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

func isLockLost(err error) (*state.LockLostError, bool) {
	var l *state.LockLostError
	ok := errors.As(err, &l)
	return l, ok
}

// OpenLeaseJournal replays the journal a lease holds, open for writing
// under it. A new journal starts with its init record, in doubt when the
// lease shows this host ran the plan before (begin).
func OpenLeaseJournal(where string, lease state.Lease) (*Journal, error) {
	j, err := replayRecords(where, lease.Records(), lease)
	if err != nil {
		return nil, err
	}
	j.repaired = lease.Repaired()
	if err := j.begin(lease.Earlier(), journalOwner{}); err != nil {
		return nil, err
	}
	return j, nil
}

// ReadPlanJournal replays a plan's journal without its lock; a plan with
// no journal yet reads as fresh and empty.
func ReadPlanJournal(ctx context.Context, store state.Store, key state.PlanKey) (*Journal, error) {
	records, err := store.ReadLog(ctx, key)
	if err != nil {
		return nil, err
	}
	return replayRecords(store.String(), records, nil)
}

// OpenJournal opens the journal file at path with no lock, for tests and
// tools that examine one.
func OpenJournal(path string) (*Journal, error) {
	log, err := local.OpenLog(path)
	if err != nil {
		return nil, err
	}
	j, err := replayRecords(path, log.Records(), fileLog{log})
	if err != nil {
		log.Close()
		return nil, err
	}
	j.repaired = log.Repaired()
	if err := j.begin(state.LockOwner{}, journalOwner{}); err != nil {
		log.Close()
		return nil, err
	}
	return j, nil
}

// ReadJournal replays the journal file at path without opening it for
// writing; a missing journal reads as empty.
func ReadJournal(path string) (*Journal, error) {
	records, err := local.ReadLog(path)
	if err != nil {
		return nil, err
	}
	return replayRecords(path, records, nil)
}

// fileLog is a journal file as a Journal's log, closed with it.
type fileLog struct{ *local.FileLog }

func (l fileLog) Close() error { return l.FileLog.Close() }
