package state

import (
	"errors"
	"fmt"
)

// LockedError means another run holds the plan's lock.
type LockedError struct {
	Where string // the lock file, or the lock in the shared state
	Owner LockOwner
}

// Refused says a held lock is a refusal: the run did nothing.
func (e *LockedError) Refused() bool { return true }

func (e *LockedError) Error() string {
	return fmt.Sprintf("another run of this plan holds the lock %s: %s", e.Where, e.Owner)
}

// LockLostError means the run lost the plan's lock while it ran: its
// journal writes are refused (fenced) and it creates nothing more.
type LockLostError struct{ Reason string }

func (e *LockLostError) Error() string { return "lost the plan's lock: " + e.Reason }

// Refused says a lost lock is a refusal: the run creates nothing more.
func (e *LockLostError) Refused() bool { return true }

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

// Refused says a state out of reach is a refusal: nothing was done.
func (e *StateUnavailableError) Refused() bool { return true }

// BadJournalError is a journal betplan refuses to use: a record that does
// not read with complete records after it (not a torn last write but
// damage), or a journal that is not a regular file. Nothing is done and no
// report is written: what the plan created cannot be known from it.
type BadJournalError struct {
	Path   string
	Line   int // 0 when the journal as a whole is refused
	Reason string
}

// Refused says a damaged journal is a refusal: nothing was sent.
func (e *BadJournalError) Refused() bool { return true }

func (e *BadJournalError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("journal %s: %s; betplan cannot tell what this plan created, so it did nothing and left the reports as they were. "+
		"Restore the journal from a backup, or move it aside (keep it) and run again: a run with no journal looks every bet up on the service by label before creating it", where, e.Reason)
}

// ErrHolderUnknown is a store that cannot read who holds a plan's lock
// without taking it, on this platform.
var ErrHolderUnknown = errors.New("this store cannot tell here whether a run holds the plan's lock")
