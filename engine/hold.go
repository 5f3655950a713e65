package engine

import "github.com/betplan/betplan/state"

// hold is what a command holds of its plan, one value shared by its
// parts (the creates, the sums of money, the tips, the resolver): the
// journal, once opened under the lock (run, stop, cancel) or read (plan,
// status), and the lock's lease while the command holds it.
type hold struct {
	journal *Journal
	lease   state.Lease // the plan's lock, while a run, stop or cancel holds it
	command string      // who takes the lock: "betplan run" unless set
}

// halt says whether the run may still create, and why not once it may
// not: the plan's lock lost, its stop mark seen, a refusal. Every create
// and publish asks it first; the run's end reads what it says.
type halt struct {
	hold *hold
	book *book
	logf func(format string, args ...any)

	// why, once set, says why no more bets are created this run.
	why string
	// refused is the run's first safety refusal: the run ends refused.
	refused  string
	lostLock bool // the plan's lock was lost: nothing more is created
	// stopped is the plan's stop mark, once the run saw it: it creates
	// nothing more, reads what it placed once and ends (EndStopped).
	stopped *state.StopMark
	// ticking says the run's ticks began: a stop mark seen from then on
	// is logged as it is seen (checkStop).
	ticking bool
}

// lockLost reports whether the plan's lock is gone; the first time, it
// stops every create of the run for that reason.
func (h *halt) lockLost() bool {
	if h.hold.lease == nil {
		return false
	}
	select {
	case <-h.hold.lease.Lost():
		h.stopForLostLock(h.hold.lease.Err())
		return true
	default:
		return false
	}
}

// stopForLostLock stops creating: a run that lost its lock may be fenced
// off while another run creates, so only following is left to it.
func (h *halt) stopForLostLock(err error) {
	if h.lostLock {
		return
	}
	why := "stopped creating: " + err.Error()
	h.lostLock, h.refused, h.why = true, why, why
	h.logf("%s", why)
}
