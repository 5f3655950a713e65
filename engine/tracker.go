package engine

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/internal/printable"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// tracker is the state of one engine command: the plan's instances and
// what the journal and the service said of each.
type tracker struct {
	opts     Options
	plan     *plan.Plan
	svc      Backend
	clock    Clock
	*hold                   // the journal and the lock, shared with the parts (hold.go)
	journals *journalKeeper // opens and reads the plan's journal (legacy.go)
	halt     *halt          // whether the run may still create, and why not (hold.go)

	book   *betBook      // the plan's bets
	res    *resolver     // the races, sessions and events the bets resolve against (resolve.go)
	create *creator      // deciding and creating the bets (create.go)
	ask    *confirmation // the run's one question before its first create or publish (confirm.go)

	follow *follow.Follower // follows the created bets to their outcome (engine/follow, follow_host.go)

	tips  tipRun // the plan's tips (tips.go)
	money money  // the stakes and the limits' sums (ledger.go)

	alerts *alerting // the run's alerts; nil without targets (alerts.go)

	// arrived is set once the plan gave its part of the run's Question.
	arrived bool
	// served is a served run's part (serve.go), nil outside serve.
	served *served
}

func newTracker(p *plan.Plan, opts Options) *tracker {
	opts.withDefaults()
	r := &tracker{opts: opts, plan: p, svc: opts.Backend, clock: opts.Clock, book: newBook(), hold: &hold{}}
	r.halt = &halt{hold: r.hold, book: r.book, logf: r.logf}
	r.ask = &confirmation{opts: &r.opts, halt: r.halt, logf: r.logf}
	r.res = &resolver{plan: p, svc: r.svc, clock: r.clock, book: r.book, hold: r.hold, halt: r.halt, money: &r.money,
		ownTime: r.ownTime, raceTime: r.raceTime, logf: r.logf, served: opts.Serve != nil}
	fh := &followHost{opts: &r.opts, svc: r.svc, book: r.book, res: r.res, hold: r.hold, halt: r.halt, key: r.planKey(),
		logf: r.logf, raceTime: r.raceTime, keepOutcomes: r.keepOutcomes, outcomesToKeep: r.outcomesToKeep}
	r.follow = newFollower(p, &r.opts, r.svc, r.clock, r.book, fh)
	r.tips = tipRun{plan: p, opts: &r.opts, clock: r.clock, svc: r.svc, host: r, races: r.res, hold: r.hold, halt: r.halt, ask: r.ask, bets: r.book,
		eachPage: r.follow.EachPage}
	r.journals = &journalKeeper{opts: &r.opts, plan: p, key: r.planKey(), svc: r.svc, logf: r.logf, listPage: r.follow.ListPage}
	fh.journals = r.journals
	r.money = money{plan: p, opts: &r.opts, clock: r.clock, svc: r.svc, key: r.planKey(), book: r.book, journals: r.journals,
		hold: r.hold, sessions: &r.res.sessionsRead, checkpoint: r.checkpoint}
	r.create = &creator{plan: p, opts: &r.opts, clock: r.clock, svc: r.svc, book: r.book, res: r.res, money: &r.money,
		hold: r.hold, halt: r.halt, ask: r.ask,
		logf: r.logf, checkpoint: r.checkpoint, noteCreated: r.follow.NoteCreated, raceTime: r.raceTime, ownTime: r.ownTime, tipsWords: r.tips.tipsSummary}
	r.served = newServed(r)
	return r
}

// simulated reports whether the service is a simulation: a rehearsal's,
// or one that said so from this machine (apiclient's ServesSimulation).
// Every report and alert says so; nothing is softened by it.
func (r *tracker) simulated() bool { return r.verdict().Money == MoneyRehearsal }

// verdict is the run's verdict on its money, as simulated says it: the
// journal keeps it before the bets it brings in.
func (r *tracker) verdict() RunVerdict {
	v := RunVerdict{Money: MoneyReal, Tips: len(r.plan.Tips) > 0}
	if r.opts.Simulated {
		v.Money, v.Sim = MoneyRehearsal, SimInProcess
	} else if s, ok := r.svc.(interface{ ServesSimulation() bool }); ok && s.ServesSimulation() {
		v.Money, v.Sim = MoneyRehearsal, SimServed
	}
	return v
}

func (r *tracker) planKey() state.PlanKey {
	return state.PlanKey{Name: r.plan.Name, BaseURL: r.opts.BaseURL}
}

func (r *tracker) checkpoint(point string) {
	if r.opts.Checkpoint != nil {
		r.opts.Checkpoint(point)
	}
}

// raceTime is t, a time of a race's day at venue, as the command shows
// race times (Options.RaceTime).
func (r *tracker) raceTime(venue string, t time.Time) string {
	if r.opts.RaceTime != nil {
		return r.opts.RaceTime(venue, t)
	}
	return t.UTC().Format(time.RFC3339)
}

// ownTime is t, a time of the command's own (a session's failed login),
// as its log lines give theirs (Options.Stamp).
func (r *tracker) ownTime(t time.Time) string {
	if r.opts.Stamp != nil {
		return r.opts.Stamp(t)
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

func (r *tracker) logf(format string, args ...any) {
	if r.opts.Log == nil {
		return
	}
	if r.opts.WallStamp != nil && slices.ContainsFunc(args, onWallClock) {
		// The line gives a request's real seconds: it is on their clock.
		r.logLine(r.opts.WallStamp(time.Now()), format, args...)
		return
	}
	now := r.clock.Now()
	r.logLine(r.ownTime(now), format, args...)
}

// logWallf is logf for a line about real time (Options.WallStamp):
// stamped by the wall clock, so a rehearsal never shows real seconds
// beside its simulated time.
func (r *tracker) logWallf(format string, args ...any) {
	if r.opts.Log == nil || r.opts.WallStamp == nil {
		r.logf(format, args...)
		return
	}
	r.logLine(r.opts.WallStamp(time.Now()), format, args...)
}

// onWallClock reports whether arg is an error that gives the wall clock's
// seconds (the client's timeouts and retries say so with a WallClock
// method).
func onWallClock(arg any) bool {
	err, ok := arg.(error)
	if !ok {
		return false
	}
	var w interface{ WallClock() bool }
	return errors.As(err, &w) && w.WallClock()
}

func (r *tracker) logLine(stamp, format string, args ...any) {
	// A line names venues, sessions and reasons from the service and the
	// journal: shown, never run.
	fmt.Fprintf(r.opts.Log, "%s %s\n", stamp, printable.Text(fmt.Sprintf(format, args...)))
}

func (r *tracker) newResult(kind Kind, started time.Time) *Result {
	res := &Result{
		Kind:      kind,
		PlanName:  r.plan.Name,
		PlanFile:  r.opts.PlanFile,
		PlanHash:  r.plan.Hash,
		Version:   r.opts.Version,
		BaseURL:   r.opts.BaseURL,
		Simulated: r.opts.Simulated,
		StartedAt: started,
		Limits:    LimitsSummary{Limits: r.plan.Limits},
	}
	if res.Limits.Period == "" {
		res.Limits.Period = plan.PeriodPlan
	}
	return res
}

// fill writes the instances into res and computes totals.
func (r *tracker) fill(res *Result) {
	res.Simulated = r.simulated()
	r.book.sortInstances(r.plan.Bets)
	r.book.nameInstances()
	res.Bets = res.Bets[:0]
	for _, in := range r.book.insts {
		r.markInDoubt(in)
		b := r.money.betResult(in)
		b.MissedNow = r.res.missedNow[in.label] // found missed by this run: it fails for it, once
		res.Bets = append(res.Bets, b)
	}
	if r.journal != nil {
		res.ReportDir = r.journal.ReportDir()
		all := r.money.usageFor(RaceInfo{}) // every period's
		res.Limits.Committed, res.Limits.CreatedBets = all.Requested, all.Bets-all.PlannedBets
	}
	r.tips.fillTips(res)
	if r.res.hasEventBets() {
		res.Assumptions = append(res.Assumptions, apiclient.EventAssumptions...)
	}
	res.Limits.Periods = r.money.periodUsages()
	r.money.fillAccount(res)
	res.FinishedAt = r.clock.Now()
	res.ComputeTotals()
}

// markInDoubt shows a bet whose create was announced in the journal but
// whose outcome is unknown (interrupted mid-create, or look-ups that kept
// failing) as in doubt: it may have placed money, so it must never read as
// waiting with nothing at stake.
func (r *tracker) markInDoubt(in *instance) {
	if in.status != StatusWaiting || in.notifID != 0 || r.journal == nil {
		return
	}
	s := r.journal.State(in.label)
	if s == nil || !s.Pending {
		return
	}
	r.book.inDoubt(in, s.Amount, fmt.Sprintf("a create was sent and may have landed (label %s): re-run to resume; the label is looked up before anything is created", in.label))
}

func (in *instance) result() BetResult {
	b := BetResult{
		ID:             in.bet.ID,
		InstanceID:     in.name(),
		Label:          in.label,
		Race:           in.info,
		Selection:      in.bet.Selection,
		Type:           in.bet.Type,
		Market:         in.bet.Market,
		Status:         in.status,
		Reason:         in.reason,
		Why:            in.why,
		NotificationID: in.notifID,
		CreatedAt:      in.createdAt,
		PlacedAt:       in.placedAt,
		PlacedBy:       in.placedBy,
		RefusedBy:      in.refusedBy,
		Canceled:       in.canceled || in.status == StatusCanceled,
		Records:        in.records,
		Final:          in.final,
		Error:          in.err,
	}
	if e := in.info.Event; e != nil {
		b.Market, b.Selection = e.Market, e.pickWords()
	}
	if in.amount > 0 {
		a := in.amount
		if in.bet.AmountField() == plan.AmountTargetProfit {
			b.TargetProfit = &a
		} else {
			b.Stake = &a
		}
	}
	if b.CreatedAt.IsZero() && in.notif != nil {
		// Created by an earlier command: the service says when.
		b.CreatedAt = in.notif.CreatedAt.Time
	}
	if in.notif != nil {
		b.AmountAccepted = float64(in.notif.TotalAccepted)
		if in.notif.Resulted() {
			b.ResultAt = in.notif.Tip.ResultTime.Time
		}
		b.Profit = roundCents(float64(in.notif.Profit))
	}
	return b
}
