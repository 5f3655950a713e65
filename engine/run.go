package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
)

// Run is `betplan run`: it takes the plan's lock, creates every ready bet
// exactly once and follows outcomes until every bet is final (or, with
// NoWait, until what is ready now was created). The result is complete
// whatever happened; the error says why the run ended early.
func Run(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	r := newTracker(p, opts)
	if ap, ok := r.svc.(*accountPlan); ok {
		// Before any call: the run's plans tick on one grid from the first.
		ap.account.joinGrid(r.follow.Interval())
	}
	// A run that ends before its start (a lock held elsewhere) holds the
	// other plans of its group back no longer.
	defer opts.RunGroup.leave(p.Name)
	defer opts.Question.leave(p.Name)
	res := r.newResult(KindRun, r.clock.Now())
	err := r.runWithAlerts(ctx, res, nil)
	return reported(res, err)
}

// runWithAlerts is a run under the plan's lock: check (if any) before
// anything is journalled, then the run's alerts, start and loop, then its
// result and its last alerts, journalled while the run still holds the
// journal. A run that never held the lock still says it failed.
func (r *tracker) runWithAlerts(ctx context.Context, res *Result, check func() error) error {
	ended := false
	endAlerts := func(err error) {
		switch {
		case r.alerts != nil:
			r.alerts.end(res, err, r.halt.stopped)
		case len(r.opts.Notify) > 0 && r.served == nil:
			// Without the journal (the lock was not taken) the run's
			// failure is sent once, unjournalled. (A served plan's run is
			// tried again: the serving process says why, on /readyz.)
			sendUnjournalledFailure(r.opts, r.plan.Name, r.simulated(), r.clock.Now(), res, err)
		}
	}
	err := r.runLocked(ctx, func() error {
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		if err := r.keepReportDir(); err != nil {
			return err
		}
		if err := r.served.begin(); err != nil {
			return err
		}
		if len(r.opts.Notify) > 0 {
			r.alerts = startAlerts(alertRun{journal: r.journal, book: r.book, plan: r.plan, opts: &r.opts, clock: r.clock,
				simulated: r.simulated, logf: r.logf, logWallf: r.logWallf, checkpoint: r.checkpoint, result: r.money.betResult, usage: r.money.usageOf})
		}
		err := r.start(ctx)
		if err == nil {
			if r.served != nil {
				r.served.result = res
			}
			err = r.loop(ctx)
		}
		if !errors.Is(err, ErrNotConfirmed) {
			// When this run last saw the bets still waiting: a later run
			// that finds a race started with no create says since when.
			// A no at the prompt changes nothing.
			for _, in := range r.book.insts {
				_ = r.keepLook(in, true) // a journal out of reach stops the run on its own
			}
		}
		r.finish(res, err)
		endAlerts(err)
		ended = true
		return err
	})
	if !ended {
		r.finish(res, err)
		endAlerts(err)
	}
	return err
}

// reported is a command's result and error, with no result when its
// journal could not be read: the reports stay as they were rather than
// show the plan's bets as never created.
func reported(res *Result, err error) (*Result, error) {
	var bad *state.BadJournalError
	var whose *UnattributedJournalError
	var foreign *ForeignJournalError
	if errors.As(err, &bad) || errors.As(err, &whose) || errors.As(err, &foreign) {
		return nil, err
	}
	return res, err
}

// runLocked holds the plan's lock and journal around fn. It comes before
// any request to the service: a plan whose state is out of reach does
// nothing.
func (r *tracker) runLocked(ctx context.Context, fn func() error) error {
	host, _ := os.Hostname()
	command := r.command
	if command == "" {
		command = "betplan run"
	}
	if r.served != nil {
		command = commandServe
	}
	req := state.LockRequest{
		PlanKey: r.planKey(),
		Owner:   state.LockOwner{PID: os.Getpid(), Host: host, PlanFile: r.opts.PlanFile, Command: command, Since: time.Now().UTC()},
		Timeout: r.opts.LockTimeout,
		Waiting: func(holder state.LockOwner) {
			r.logWallf("waiting up to %s for the plan's lock, held by %s", r.opts.LockTimeout, holder)
		},
		Leader: r.opts.leader(),
	}
	lease, err := r.opts.Store.Lock(ctx, req)
	var locked *state.LockedError
	if errors.As(err, &locked) && locked.Owner.Command == statusCommand && req.Timeout < statusHold {
		// A status keeping placement times holds the lock for a moment
		// only (followHost.KeepPlacements): wait that out, whatever --lock-timeout.
		req.Timeout, req.Waiting = statusHold, nil
		lease, err = r.opts.Store.Lock(ctx, req)
	}
	if err != nil {
		return err
	}
	defer lease.Release()
	j, err := r.journals.openJournal(ctx, lease)
	if err != nil {
		return err
	}
	r.lease, r.journal = lease, j
	j.verdict = r.verdict
	if why := r.journal.Repaired(); why != "" {
		r.logf("%s", why)
	}
	return fn()
}

// start resolves races and sessions, builds the instances and, when the
// journal is new, recovers what earlier runs created from the service.
func (r *tracker) start(ctx context.Context) error {
	defer r.opts.RunGroup.leave(r.plan.Name) // whatever ends start, the others wait no more
	if err := r.res.refresh(ctx); err != nil {
		return err
	}
	switch {
	case r.journal.inDoubt() != "":
		if err := r.recoverOverGrace(ctx); err != nil {
			return err
		}
	case r.journal.Fresh():
		if err := r.recover(follow.WithReason(ctx, "recovery scan")); err != nil {
			return err
		}
	}
	if err := r.res.expand(); err != nil {
		return err
	}
	r.res.followJournal()
	// The run's check of the sessions, before any create: what will stop
	// each session the plan's bets reach from betting them. Said, never
	// refused for (checkBot refuses a bet no running bot would take).
	for _, line := range checkSessions(r.res.sessions, r.book.insts, r.ownTime) {
		r.logf("%s", line)
	}
	if err := r.tips.expandTips(); err != nil {
		return err
	}
	r.tips.followTipJournal()
	if r.readsOutcomes() {
		// The first decisions need what earlier runs' bets did: read them
		// now rather than after the first tick's creates.
		if err := r.follow.Poll(ctx); err != nil {
			return err
		}
	}
	if err := r.money.loadAccount(ctx); err != nil {
		return err
	}
	why, certain, seen := r.create.certainRefusal()
	if why == "" {
		// The plans of one run under one account hold their certain bets
		// to its limits together.
		var err error
		if why, certain, err = r.opts.RunGroup.join(ctx, r.plan.Name, &r.money, r.create.certainBets()); err != nil {
			return err
		}
	}
	if why != "" {
		w := reason.Said(reason.Limit, "not created: the run refused before any create: "+why)
		var sums *LimitSums
		if seen != nil {
			// The limit that refused them, at the bet where it did.
			w.Limit, w.Scope = seen.why.Limit, seen.why.Scope
			sums = limitSums(seen.u)
		}
		for _, in := range certain {
			if seen != nil {
				w.Period = r.money.limitPeriod(w.Scope, in.info)
			}
			r.book.risked(in, r.money.exposure(in)) // what the limit counted it at
			r.book.end(in, StatusFailed, w)
			r.create.keepNotCreated(in, sums)
		}
		return &RefusedError{Reason: why, Code: reason.Limit}
	}
	return nil
}

// readsOutcomes reports whether the plan's decisions depend on how its
// bets went: expressions reading plan or bets, or limits on profit or
// exposure.
func (r *tracker) readsOutcomes() bool {
	return r.plan.ReadsOutcomes || r.plan.Limits.ReadsOutcomes()
}

// recoverOverGrace recovers the plan's notifications from the service over
// the whole grace window, as after an ambiguous create, before anything is
// created: a create in flight when the journal was lost lands within it.
func (r *tracker) recoverOverGrace(ctx context.Context) error {
	r.logf("%s: every bet is in doubt; looking the plan's labels up on the service for %s before any create", r.journal.inDoubt(), r.opts.AmbiguousGrace)
	deadline := r.clock.Now().Add(r.opts.AmbiguousGrace)
	for {
		if err := r.recover(ctx); err != nil {
			return err
		}
		if !r.clock.Now().Before(deadline) {
			break
		}
		if err := r.clock.Sleep(ctx, r.opts.LookupInterval); err != nil {
			return err
		}
	}
	return r.journal.Record(journalEntry{Op: opSettled})
}

// recover scans the service's recent notifications for the plan's label
// prefix and adopts them into a new journal: a lost state dir must never
// lead to a second create, nor to limits that forget earlier bets.
func (r *tracker) recover(ctx context.Context) error {
	found, err := r.follow.ScanPrefix(ctx)
	if err != nil {
		return fmt.Errorf("recover earlier bets of the plan: %w", err)
	}
	if r.money.known == nil {
		r.money.known = map[string]*apiclient.Notification{}
	}
	for i := range found {
		n := &found[i]
		if s := r.journal.State(n.Label); s != nil && s.created() {
			continue // recovered by an earlier scan
		}
		betID := betIDFromLabel(r.plan.Name, n.Label)
		amount := notificationAmount(n, plan.AmountFieldFor(n.Type))
		info := notificationRace(n)
		risk := r.money.notificationExposure(n)
		if err := r.journal.Record(journalEntry{Op: opAdopted, Label: n.Label, BetID: betID, NotificationID: int64(n.ID), Amount: amount, AtRisk: risk.Amount, Basis: risk.Basis, Race: &info}); err != nil {
			return err
		}
		// Its outcome so far counts at once (a stop-loss, exposure), before
		// any poll.
		r.money.known[n.Label] = n
		r.book.outdated()
		r.logf("recovered %s: notification %d (label %s) from the service", betID, n.ID, n.Label)
	}
	return nil
}

// loop is the tick loop of a run.
func (r *tracker) loop(ctx context.Context) error {
	timeout := r.plan.Poll.Timeout
	interval := r.plan.Poll.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	began := r.clock.Now()
	for {
		if r.served.yielded() {
			// The serving process let the run go: it ends between two
			// ticks, with no create under way.
			return context.Canceled
		}
		retired := r.served.retired()
		if retired {
			r.served.retire()
		}
		// A stopped plan creates nothing: its run reads what it placed
		// once and ends, so `betplan stop` gets the lock and cancels with
		// the whole journal in view.
		stopped, err := stopSeen(r.halt.checkStop())
		if err != nil {
			return err
		}
		if stopped {
			r.create.keepStopped()
		}
		if !r.arrived {
			// The run's one question lists this plan's bets before any
			// plan of the run creates.
			r.arrived = true
			if stopped || r.opts.Question == nil {
				r.opts.Question.leave(r.plan.Name)
			} else {
				r.opts.Question.arrive(r.create.askedBets())
			}
		}
		now := r.clock.Now()
		// A served run reads the races on even when nothing waits: the
		// races listed later are its next bets.
		waits := r.book.waiting()+r.tips.tipsWaiting() > 0 || (r.served != nil && !retired)
		if !stopped && waits && now.Sub(r.res.lastRefresh) >= r.opts.RefreshEvery {
			if err := r.res.refresh(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if refused := tokenRefused(err); refused != nil {
					return refused
				}
				r.logf("refresh: %v", err)
			} else if err := r.res.expand(); err != nil {
				return err
			} else if err := r.tips.expandTips(); err != nil {
				return err
			}
		}
		r.follow.Tick(r.clock.Now())
		r.halt.ticking = true
		if !stopped && !retired {
			if stopped, err = r.decideAll(ctx); err != nil {
				return err
			}
		}
		if !stopped && !retired {
			stopped, err = stopSeen(r.tips.tipsTick(ctx, r.clock.Now()))
			if lost, ok := isLockLost(err); ok {
				r.halt.stopForLostLock(lost)
			} else if err != nil {
				return err
			}
		} else if r.tips.hasTips() {
			if err := r.tips.followResults(ctx, r.clock.Now()); err != nil {
				return err
			}
		}
		poll := r.follow.Poll
		if stopped {
			poll = r.follow.PollLast // the run's one look: every open bet, due or not
		}
		if err := poll(ctx); err != nil {
			return err
		}
		if err := r.follow.ReadPlacements(follow.WithReason(ctx, "placement records")); err != nil {
			return err
		}
		r.alerts.tick()
		r.served.tick()
		r.progress(now, interval)
		// A served run refused (no running bot, a cap first reached, its
		// lock lost) ends as a cron run would: the serving process starts
		// the next one, afresh, a little later.
		if stopped || (r.served == nil && (r.opts.NoWait || r.done())) || (r.served != nil && (r.served.over(began) || r.halt.refused != "")) {
			if err := r.follow.CompleteRecords(follow.WithReason(ctx, "settled records")); err != nil {
				return err
			}
			if stopped {
				return nil // finish says the plan is stopped
			}
			if r.halt.why != "" {
				return &RefusedError{Reason: r.halt.why}
			}
			return nil
		}
		if timeout > 0 && r.served == nil && r.clock.Now().Sub(began) >= timeout {
			// A last look at every open bet: one polled slowly may have
			// ended since it was last read.
			if err := r.follow.PollLast(ctx); err != nil {
				return err
			}
			if err := r.follow.CompleteRecords(follow.WithReason(ctx, "settled records")); err != nil {
				return err
			}
			if r.done() {
				if r.halt.why != "" {
					return &RefusedError{Reason: r.halt.why}
				}
				return nil
			}
			return errTimeout
		}
		// Ticks keep to the interval: the time the tick's calls took is
		// not added to the wait for the next one. The plans of a run tick
		// together, so one read of a page polls them all.
		next := r.follow.TickAt().Add(interval)
		if ap, ok := r.svc.(*accountPlan); ok {
			next = ap.account.tickAt(r.follow.TickAt(), interval)
		}
		wait := next.Sub(r.clock.Now())
		if wait <= 0 {
			wait = 0
		}
		pause := r.clock.Sleep
		if r.served != nil {
			pause = r.served.pause
		}
		if err := pause(ctx, wait); err != nil {
			return err
		}
	}
}

// decideAll is one tick's decisions, soonest race first. stopped says a
// create found the plan stopped: the rest of the tick creates nothing.
func (r *tracker) decideAll(ctx context.Context) (stopped bool, err error) {
	seen, err := r.follow.CheckLabels(follow.WithReason(ctx, "label check"), r.follow.TickAt())
	if err != nil {
		return false, err
	}
	r.create.labelsSeen = seen
	defer func() { r.create.labelsSeen = nil }()
	for _, in := range r.book.byStart() {
		undecided := in.status == StatusWaiting && in.notifID == 0
		stopped, err := stopSeen(r.create.decide(follow.WithReason(ctx, "label look-up"), in, r.clock.Now()))
		if stopped {
			r.create.keepStopped()
			return true, nil
		}
		if err != nil {
			lost, ok := isLockLost(err)
			if !ok {
				return false, err
			}
			// What was created is still followed to the end.
			r.halt.stopForLostLock(lost)
			if in.status == StatusWaiting && in.notifID == 0 {
				r.book.end(in, StatusFailed, r.halt.notCreated())
			}
		}
		if err := r.res.keepDecision(in); err != nil {
			return false, err
		}
		if undecided && in.final {
			r.create.keepNotCreated(in, nil) // a limit's refusal kept its sums already
		}
		if err := r.keepLook(in, false); err != nil {
			return false, err
		}
	}
	return false, nil
}

// keepLook journals that the run saw in waiting before its race
// (resolver.keepLook): at its first look (end false) once the run's
// question, if it asks one, was answered yes, and at its end. A saved
// plan looks at its own bets alone.
func (r *tracker) keepLook(in *instance, end bool) error {
	if only := r.opts.OnlyLabels; only != nil {
		if _, ok := only[in.label]; !ok {
			return nil
		}
	}
	if !end && !r.ask.given && r.ask.asks() {
		return nil // nothing is journalled before the yes
	}
	return r.res.keepLook(in, r.clock.Now(), end)
}

// stopSeen tells the plan's stop mark (a StoppedError) from the errors
// that end a run.
func stopSeen(err error) (bool, error) {
	var se *StoppedError
	if errors.As(err, &se) {
		return true, nil
	}
	return false, err
}

var errTimeout = errors.New("poll timeout reached before every bet was final")

// done reports whether every instance is final.
func (r *tracker) done() bool {
	for _, in := range r.book.insts {
		if in.open() || (in.notifID != 0 && !in.final) {
			return false
		}
	}
	return r.tips.tipsDone()
}

func (r *tracker) progress(now time.Time, interval time.Duration) {
	if r.opts.Live == nil {
		return
	}
	p := Progress{Now: now, ByStatus: map[Status]int{}, NextPoll: now.Add(interval)}
	for _, in := range r.book.insts {
		p.ByStatus[in.status]++
		if !in.placedAt.IsZero() && (p.LastPlaced == nil || in.placedAt.After(p.LastPlaced.At)) {
			p.LastPlaced = &PlacedBet{BetID: in.name(), At: in.placedAt, By: in.placedBy, Refused: in.refusedBy}
		}
		if in.open() && !in.info.Start.IsZero() && in.info.Start.After(now) && (p.NextRace.IsZero() || in.info.Start.Before(p.NextRace)) {
			p.NextRace = in.info.Start
		}
	}
	r.opts.Live(p)
}

// finish writes what the run learnt into res, whatever ended it.
func (r *tracker) finish(res *Result, err error) {
	if len(r.book.insts) == 0 {
		r.unstarted(err)
	}
	if len(r.tips.insts) == 0 {
		r.tips.unstartedTips(err)
	}
	r.fill(res)
	switch {
	case err == nil && r.halt.stopped != nil:
		res.EndReason = EndStopped
		res.Stopped = r.halt.stopped.String()
	case err == nil && r.halt.refused != "":
		res.EndReason = EndRefused
		res.Error = r.halt.refused
		res.Refusal = r.halt.refusedCode
	case err == nil && r.opts.NoWait && !r.done():
		res.EndReason = EndNoWait
	case err == nil && r.limited():
		res.EndReason = EndLimit
	case err == nil:
		res.EndReason = EndCompleted
	case errors.Is(err, errTimeout):
		res.EndReason = EndTimeout
		res.Error = err.Error()
	case errors.Is(err, context.Canceled):
		res.EndReason = EndInterrupted
		res.Error = "interrupted before every bet was final"
	case IsRefused(err):
		res.EndReason = EndRefused
		res.Error = err.Error()
		var refused *RefusedError
		if errors.As(err, &refused) {
			res.Refusal = refused.Code
		}
	default:
		res.EndReason = EndError
		res.Error = err.Error()
	}
	// A safety refusal earlier in the run decides how it ended, whatever
	// stopped it afterwards.
	if r.halt.refused != "" && res.EndReason != EndRefused {
		res.Error = fmt.Sprintf("%s (then: %s)", r.halt.refused, res.Error)
		res.EndReason = EndRefused
		res.Refusal = ""
	}
}

// limited reports whether the plan's limits held a bet of this command
// back: a stop, a cap, the plan's own odds bound.
func (r *tracker) limited() bool {
	for _, in := range r.book.insts {
		switch in.why.Code {
		case reason.Limit, reason.Stop, reason.OddsBound:
			return true
		}
	}
	return false
}

// unstarted lists the plan's bets as written when the command ended before
// it could resolve them (a refusal, the lock, the service unreachable), so
// the report still says what was planned and why nothing happened.
func (r *tracker) unstarted(err error) {
	why := "not started"
	if err != nil {
		why = "not started: " + err.Error()
	}
	// What earlier runs created stays in the report: the journal says so
	// even when another run holds it open.
	var unreachable *state.StateUnavailableError
	if r.journal == nil && !errors.As(err, &unreachable) {
		if j, jerr := ReadPlanJournal(context.Background(), r.opts.Store, r.planKey()); jerr == nil {
			r.journal = j
		}
	}
	r.res.followJournal()
	seen := map[string]bool{}
	for _, in := range r.book.insts {
		seen[in.bet.ID] = true
		if in.notifID != 0 {
			r.book.wait(in, "created by an earlier run; "+why)
		}
	}
	for _, b := range r.plan.Bets {
		if seen[b.ID] {
			continue
		}
		var info RaceInfo
		if b.Race != nil {
			info = RaceInfo{Venue: b.Race.Venue, Code: b.Race.Code, EventNumber: b.Race.EventNumber}
		}
		if b.Event != nil {
			info = plannedEvent(b)
		}
		in := newWaiting(b, info, "", staticAmount(b))
		r.book.wait(in, why)
		r.book.add("", in)
	}
}
