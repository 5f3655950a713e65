package engine

import (
	"context"
	"slices"
	"time"

	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// ServeMode is how `betplan serve` runs a plan: one run at a time per
// plan, for as long as the process leads the account. A served run does
// not end at poll.timeout nor once its bets are final: races listed later
// (a for_each_race's new races, a named race's next meeting, once its own
// meeting day has turned) join it as they are listed, until the serving
// process lets it go (Yield), the plan leaves the folder (Retired), or it
// rolls over to a fresh run.
type ServeMode struct {
	// Fence is the account's leadership the run acts under: its lock is
	// taken under it (state.LockRequest.Leader) and every create is
	// announced with it.
	Fence *state.LeaderFence
	// Why says why this run began ("start", "take-over", "reload", …)
	// and By which process: journalled with the plan's hash and the fence.
	Why, By string
	// Yield, once closed, ends the run at its next step: no create is
	// announced after it; a create already sent finishes.
	Yield <-chan struct{}
	// Retired, once true, says the plan left the served folder: nothing
	// more is created, and the run ends once every bet it created is
	// final.
	Retired func() bool
	// Rollover ends a run whose bets are all final once it has run this
	// long, so the next one starts afresh (default 6h).
	Rollover time.Duration
	// Published is handed the run's result whenever its bets changed,
	// after a tick (what /status and /metrics show).
	Published func(*Result)
	// Announcements, drained once a tick, are alerts the serving process
	// raises through the plan's journal (once per key, ever).
	Announcements func() []Announcement
}

// Announcement is an alert a serving process raises through a plan's run
// rather than a bet's transition: plan_invalid, token_expiring. Like every
// alert it is journalled before it is sent, once per key and target.
type Announcement struct {
	Key     string
	Event   string
	Message notify.Message
	// Targets are the ids (notify.Target.ID) of the plan's targets it goes
	// to, those that want the event; nil for every one.
	Targets []string
}

// defaultRollover is how long a served run lasts once its bets are all
// final: its book is let go and the next run reads the journal afresh.
const defaultRollover = 6 * time.Hour

// served is a served run's part of the run (nil outside serve): when it
// lets go, rolls over or retires, what it journals as it begins and what
// it hands the serving process after each tick.
type served struct {
	mode  *ServeMode
	plan  *plan.Plan
	clock Clock
	book  *betBook
	hold  *hold
	tips  *tipRun
	// done is the run's own test that every bet is final, and snapshot
	// fills a result as the run stands (tracker.snapshot).
	done     func() bool
	snapshot func(*Result)
	alerts   func() *alerting
	// result is the run's result, and published what was last handed
	// on of it.
	result    *Result
	published [2]int64
	// left says the plan's leaving the folder was journalled.
	left bool
}

// newServed is the served part of a run with opts, nil outside serve.
func newServed(r *tracker) *served {
	if r.opts.Serve == nil {
		return nil
	}
	return &served{mode: r.opts.Serve, plan: r.plan, clock: r.clock, book: r.book, hold: r.hold, tips: &r.tips,
		done: r.done, snapshot: r.snapshot, alerts: func() *alerting { return r.alerts }}
}

// yielded reports whether the serving process asked the run to end.
func (s *served) yielded() bool { return s != nil && s.mode.yielded() }

func (s *ServeMode) yielded() bool {
	if s == nil || s.Yield == nil {
		return false
	}
	select {
	case <-s.Yield:
		return true
	default:
		return false
	}
}

// retired reports whether the plan left the served folder.
func (s *served) retired() bool {
	return s != nil && s.mode.Retired != nil && s.mode.Retired()
}

// fence is the leadership's fence the run announces creates with; 0
// outside serve.
func (o *Options) fence() int64 {
	if o.Serve == nil || o.Serve.Fence == nil {
		return 0
	}
	return o.Serve.Fence.Fence
}

// leader is the leadership the run's lock is taken under; nil outside
// serve.
func (o *Options) leader() *state.LeaderFence {
	if o.Serve == nil {
		return nil
	}
	return o.Serve.Fence
}

// commandServe is who takes a served plan's lock.
const commandServe = "betplan serve"

// begin keeps, as the run begins, that the serving process runs the
// plan: under which fence, which version of the plan (its hash) and why
// (a start, a take-over, a reload).
func (s *served) begin() error {
	if s == nil {
		return nil
	}
	return s.journal(s.mode.Why)
}

// journal keeps a change of the served plan, with its hash and the fence.
func (s *served) journal(why string) error {
	if s.hold.journal == nil {
		return nil
	}
	var fence int64
	if s.mode.Fence != nil {
		fence = s.mode.Fence.Fence
	}
	return s.hold.journal.Record(journalEntry{Op: opServed, Fence: fence, PlanHash: s.plan.Hash, Why: why, By: s.mode.By})
}

// retire ends the run's part of a plan that left the served folder:
// what was not created stays waiting, with the reason; the journal
// keeps that it left, once.
func (s *served) retire() {
	if !s.left {
		// A journal out of reach stops the run on its own.
		s.left = s.journal("removed from the folder") == nil
	}
	for _, in := range s.book.insts {
		if in.status == StatusWaiting && in.notifID == 0 && in.reason != retiredReason {
			s.book.wait(in, retiredReason)
		}
	}
}

const retiredReason = "not created: the plan left the served folder; what it created is followed to the end"

// over reports whether a served run ends now: the plan left the folder
// and what it created is final, or every bet is final and the run has
// rolled over.
func (s *served) over(began time.Time) bool {
	if s.retired() {
		for _, in := range s.book.insts {
			if in.notifID != 0 && !in.final {
				return false
			}
		}
		return s.tips.tipsDone()
	}
	rollover := s.mode.Rollover
	if rollover <= 0 {
		rollover = defaultRollover
	}
	return s.done() && s.clock.Now().Sub(began) >= rollover
}

// tick is what a served run does after each tick: the serving process's
// announcements raised, its result handed on when its bets changed.
func (s *served) tick() {
	if s == nil {
		return
	}
	if a := s.alerts(); a != nil && s.mode.Announcements != nil {
		for _, an := range s.mode.Announcements() {
			a.announce(an)
		}
	}
	if s.mode.Published == nil || s.result == nil {
		return
	}
	var serial int64
	if s.hold.journal != nil {
		serial = s.hold.journal.Serial()
	}
	now := [2]int64{int64(s.book.edits), serial}
	if now == s.published {
		return
	}
	s.published = now
	snap := *s.result
	s.snapshot(&snap)
	s.mode.Published(&snap)
}

// pause waits d, or less when the serving process lets the run go.
func (s *served) pause(ctx context.Context, d time.Duration) error {
	if s.mode.Yield == nil {
		return s.clock.Sleep(ctx, d)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.mode.Yield:
			cancel()
		case <-sctx.Done():
		}
	}()
	err := s.clock.Sleep(sctx, d)
	if s.yielded() {
		return context.Canceled
	}
	return err
}

// snapshot fills res as the run stands, as fill does at its end, without
// changing any bet (a create whose look-ups failed stays waiting to be
// looked up again) and with the account's plans as last read.
func (r *tracker) snapshot(res *Result) {
	res.Simulated = r.simulated()
	r.book.sortInstances(r.plan.Bets)
	r.book.nameInstances()
	res.Bets = nil
	for _, in := range r.book.insts {
		res.Bets = append(res.Bets, r.money.betResult(in))
	}
	if r.journal != nil {
		res.ReportDir = r.journal.ReportDir()
		res.Limits.Committed, res.Limits.CreatedBets = r.journal.Committed()
	}
	r.tips.fillTips(res)
	res.Limits.Periods = r.money.periodUsages()
	r.money.fillAccountFrom(res, false)
	res.FinishedAt = r.clock.Now()
	res.ComputeTotals()
}

// announce raises an announcement for the run's targets it names.
func (a *alerting) announce(an Announcement) {
	if a == nil {
		return
	}
	a.raiseTo(an.Key, "", an.Event, func() *notify.Message {
		m := an.Message
		return &m
	}, func(t notify.Target) bool { return an.Targets == nil || slices.Contains(an.Targets, t.ID()) })
}
