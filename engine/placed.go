package engine

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/betplan/betplan/state"
)

// Placement times are kept in the journal, once: a bet's placed_at is
// when its sessions placed it (the bet records' submit time), or, while
// the records cannot be read, the first poll that saw it placed. Every
// later run and status shows the kept time, not its own now; a stand-in
// gives way once, to the records' time, and that one never moves.

// statusCommand names a status in the lock it takes to keep placement
// times, and statusHold bounds how long a run waits for it to finish.
const (
	statusCommand = "betplan status"
	statusHold    = 5 * time.Second
)

// keepPlacements records in the journal each placement time it does not
// keep yet. A run (or cancel) holds the journal; a status, which reads it
// without the lock, takes the lock for the write when no run holds it, and
// otherwise leaves the write to the run, whose polls see the same bets.
// A failed write costs only the time's permanence: the run goes on.
func (f *follower) keepPlacements(ctx context.Context) {
	f.host.keepOutcomes()
	j := f.hold.journal
	if j == nil || len(f.book.placedEntries(j)) == 0 {
		return
	}
	if j.writable() {
		f.recordPlacements(j)
		return
	}
	if j.Fresh() || f.opts.Store == nil {
		return // nothing of this plan's journal to add to
	}
	j.mu.Lock()
	legacy := j.service == ""
	j.mu.Unlock()
	if legacy {
		return // a journal kept before journals were per service: a run moves it first
	}
	host, _ := os.Hostname()
	lease, err := f.opts.Store.Lock(ctx, state.LockRequest{
		PlanKey: f.host.planKey(),
		Owner:   state.LockOwner{PID: os.Getpid(), Host: host, PlanFile: f.opts.PlanFile, Command: statusCommand, Since: time.Now().UTC()},
	})
	if err != nil {
		var locked *state.LockedError
		if !errors.As(err, &locked) {
			f.logf("the placement times could not be kept in the journal: %v", err)
		}
		return
	}
	defer lease.Release()
	held, err := f.journals.openJournal(ctx, lease)
	if err != nil {
		f.logf("the placement times could not be kept in the journal: %v", err)
		return
	}
	if held.Lineage() != j.Lineage() {
		return // the journal changed under the status: the next one keeps them
	}
	f.recordPlacements(held)
}

func (f *follower) recordPlacements(j *Journal) {
	for _, e := range f.book.placedEntries(j) {
		if err := j.Record(e); err != nil {
			f.logf("the placement time of %s could not be kept in the journal: %v", e.Label, err)
			return
		}
	}
}
