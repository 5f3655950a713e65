package engine

import (
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
)

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
	book *betBook
	logf func(format string, args ...any)

	// why, once set, says why no more bets are created this run, and
	// whyCode is its reason code.
	why     string
	whyCode reason.Code
	// refused is the run's first safety refusal: the run ends refused;
	// refusedCode is reason.Limit when a limit refused it.
	refused     string
	refusedCode reason.Code
	lostLock    bool // the plan's lock was lost: nothing more is created
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
	h.lostLock, h.refused, h.why, h.whyCode = true, why, why, reason.RunRefused
	h.logf("%s", why)
}

// notCreated is why a bet is not created once the run creates no more.
func (h *halt) notCreated() reason.Why { return reason.Said(h.whyCode, "not created: "+h.why) }

// checkStop reads the plan's stop mark through the lock the command
// holds; once found, nothing more is created and the run ends with
// EndStopped.
//
// A run that lost its lock creates nothing more already, and its lock's
// connection may be gone: it skips the mark and keeps following what it
// created.
func (h *halt) checkStop() error {
	if h.hold.lease == nil || h.hold.command == commandStop || h.lockLost() {
		return nil
	}
	mark, err := h.hold.lease.Stopped()
	if err != nil {
		return err
	}
	if mark == nil {
		return nil
	}
	why := mark.String()
	if h.why == "" && h.ticking {
		// Seen while running; a run started on a stopped plan says so
		// once, as it ends (the command's last line).
		h.logf("%s: creating nothing more", why)
	}
	h.stopped, h.why, h.whyCode = mark, why, reason.Stopped
	// They stay waiting: a resumed plan creates them.
	for _, in := range h.book.insts {
		if in.status == StatusWaiting && in.notifID == 0 {
			h.book.hold(in, h.notCreated())
		}
	}
	return &StoppedError{Mark: *mark}
}

// StoppedError is a stop mark seen by a run: it unwinds a create or a
// publish, after which the run only reads what it placed, once, and ends.
// A stopped plan is what its owner asked for, not a failure: the run ends
// with EndStopped and no error (runWithAlerts).
type StoppedError struct{ Mark state.StopMark }

func (e *StoppedError) Error() string {
	return e.Mark.String() + ": nothing more is created until `betplan stop --resume`"
}

const commandStop = "betplan stop"

// confirmation is the run's one question before the first thing a real
// run cannot take back (a create, a publication): asked once, its yes
// holds for the rest of the run, its no refuses the run.
type confirmation struct {
	opts *Options
	halt *halt // a no is the run's refusal
	logf func(format string, args ...any)
	// given says nothing is asked any more: the yes was given, or the
	// run asks nothing and the first create went ahead.
	given bool
}

// confirm asks once per run, before the first thing a real run cannot take
// back (a create, a publication), showing summary; a no refuses the run.
// A plan of a run of several asks the run's one Question instead.
func (c *confirmation) confirm(summary func() string) error {
	if c.given || !c.asks() {
		c.given = true
		return nil
	}
	var ok bool
	var err error
	if c.opts.Question != nil {
		ok, err = c.opts.Question.put(func(line string) { c.logf("%s", line) })
	} else {
		ok, err = c.opts.Confirm(summary())
	}
	if err != nil {
		return err
	}
	if !ok {
		c.halt.refused = "not confirmed"
		return ErrNotConfirmed
	}
	c.given = true
	return nil
}

// asks reports whether the run asks before its first create.
func (c *confirmation) asks() bool { return c.opts.Confirm != nil || c.opts.Question != nil }
