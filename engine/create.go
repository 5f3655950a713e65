package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// decide evaluates one waiting instance at now and creates it when ready.
// It returns a non-nil error only for what must stop the run (a refusal,
// a cancelled context, a journal that cannot be written).
func (r *creator) decide(ctx context.Context, in *instance, now time.Time) error {
	if in.status != StatusWaiting {
		return nil
	}
	if r.halt.why != "" || r.halt.lockLost() {
		r.book.end(in, StatusFailed, r.halt.notCreated())
		return nil
	}
	// A create announced by an earlier run (or an earlier attempt) may have
	// landed: settle that before anything else.
	if s := r.hold.journal.State(in.label); s != nil && s.Pending {
		outcome, err := r.lookupOverGrace(ctx, in, "an earlier run announced a create and did not record its outcome", false)
		if err != nil || outcome != createAbsent {
			return err
		}
	}
	if !in.resolved() {
		// Known only from the journal and its race has left the list: a
		// create that never landed cannot be retried.
		r.book.end(in, StatusFailed, reason.Said(reason.RaceStarted, "an earlier create did not land and the "+in.what()+" is no longer upcoming"))
		return nil
	}
	start := in.start()
	env := r.res.instanceEnv(in, now)
	if only := r.opts.OnlyLabels; only != nil {
		amount, ok := only[in.label]
		if !ok {
			return nil // a saved plan applies exactly its own creates
		}
		if !now.Before(start) {
			r.book.end(in, StatusSkipped, reason.Said(reason.RaceStarted, "the "+in.what()+" started before the saved plan was applied"))
			return nil
		}
		if why := notInField(in); why != "" {
			r.book.end(in, StatusSkipped, reason.Said(reason.Scratched, why+": not created"))
			return nil
		}
		r.book.priced(in, amount)
		return r.guardAndCreate(ctx, in)
	}
	if !now.Before(start) {
		if looked, ok := r.res.lookedEarlier(in); ok {
			// An earlier run saw it waiting; this one comes after its
			// race started, with no create between: missed.
			r.res.missWindow(in, looked)
			return nil
		}
		if in.bet.When != nil {
			r.book.end(in, StatusSkipped, reason.Said(reason.ConditionFalse, fmt.Sprintf("the %s started before %q was true (%s)", in.what(), in.bet.When.String(), in.bet.When.Explain(env))))
		} else {
			r.book.end(in, StatusSkipped, reason.Said(reason.RaceStarted, "the "+in.what()+" started before the bet could be created"))
		}
		return nil
	}
	// A vacant box or a scratched runner is a normal day: the bet is
	// skipped, as `plan` shows it, and the run is not failed for it.
	if why := notInField(in); why != "" {
		r.book.end(in, StatusSkipped, reason.Said(reason.Scratched, why+": not created"))
		return nil
	}
	ready, err := in.bet.Ready(env)
	if err != nil {
		r.book.end(in, StatusFailed, reason.Said(reason.AmountInvalid, fmt.Sprintf("evaluating when %q: %v", in.bet.When.String(), err)))
		return nil
	}
	if !ready {
		r.book.wait(in, fmt.Sprintf("waiting for %q (%s)", in.bet.When.String(), in.bet.When.Explain(env)))
		return nil
	}
	if !evaluateAmount(r.book, in, env) {
		return nil
	}
	return r.guardAndCreate(ctx, in)
}

// evaluateAmount sets in's amount from its expression now. An amount that
// cannot be evaluated fails the bet, with the reason, and is not ok.
func evaluateAmount(bk *betBook, in *instance, env *plan.Env) bool {
	amount, err := in.bet.Amount(env)
	if err != nil {
		bk.end(in, StatusFailed, reason.Said(reason.AmountInvalid, fmt.Sprintf("evaluating %s: %v", in.bet.AmountField(), err)))
		return false
	}
	bk.priced(in, amount)
	return true
}

// guardAndCreate adopts an existing notification with the label, or checks
// the safety guards and creates one.
func (r *creator) guardAndCreate(ctx context.Context, in *instance) error {
	// Before every create: if the label exists, adopt it, never create.
	if done, err := r.adoptOrHold(ctx, in); done || err != nil {
		return err
	}
	// A bot can start or stop between refreshes: what the bet puts at
	// risk, and whether any bot takes it, are worked out on a fresh view.
	if r.clock.Now().Sub(r.res.sessionsAt) > sessionsMaxAge {
		if err := r.res.refreshSessions(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if refused := tokenRefused(err); refused != nil {
				return refused
			}
			r.book.trouble(in, err.Error(), "could not read the sessions before creating; will try again")
			return nil
		}
	}
	r.book.risked(in, r.money.exposure(in))
	if why, u := r.money.checkLimits(in, in.risk); why.Code != "" {
		r.refuseByLimit(in, why, u)
		return nil
	}
	// What the sessions are now is the reason of a bet none of them
	// answers: kept with its create.
	if blocks, none := blockedBefore(r.res.sessions, betTerms(in.bet), in.amount, r.ownTime); none {
		r.book.sawSessions(in, blocks)
	} else {
		r.book.sawSessions(in, nil)
	}
	if !r.opts.AllowNoBot {
		if why := r.checkBot(in); why != "" {
			// Nothing more is created; what exists is still followed to
			// the end, and the run ends refused.
			r.halt.refused, r.halt.why, r.halt.whyCode = why, why, reason.NoBot
			r.logf("refused: %s", why)
			r.book.end(in, StatusFailed, r.halt.notCreated())
			return nil
		}
	}
	if !r.ask.given && r.ask.asks() {
		if err := r.ask.confirm(r.confirmSummary); err != nil {
			return err
		}
		// The answer may have taken minutes: the tick's label check is
		// stale, and this label is looked up again before its create.
		r.labelsSeen = nil
		if done, err := r.adoptOrHold(ctx, in); done || err != nil {
			return err
		}
	}
	r.ask.given = true
	if !r.holdsNow(in) {
		return nil
	}
	return r.create(ctx, in)
}

// refuseByLimit fails in, which a limit of the plan or of the account
// does not allow, seeing the sums u. A cap (max_total_stake, max_loss, …)
// that holds a bet back for the first time in its period refuses the run
// (exit 3), once: the journal keeps that it did, so a later run of the
// period held back by it again ends quietly. A stop (stop_loss,
// take_profit) is the plan's period ending by its own rule, never a
// refusal. The journal keeps the refusal with u (keepNotCreated).
func (r *creator) refuseByLimit(in *instance, why reason.Why, u usage) {
	text := why.Text
	why.Period = r.money.limitPeriod(why.Scope, in.info)
	why.Text = limitRefusedReason + ": " + text
	r.book.end(in, StatusFailed, why)
	r.keepNotCreated(in, limitSums(u))
	if why.Code == reason.Limit && r.halt.refused == "" && r.newLimit(why) {
		// The first refusal names the run's end; each bet says its own.
		r.halt.refused, r.halt.refusedCode = fmt.Sprintf("bet %s refused by a limit: %s", in.bet.ID, text), reason.Limit
	}
	r.logf("refused %s: %s", in.name(), text)
}

// newLimit reports whether why's cap holds a bet back for the first time
// in its period, and keeps that it did. A journal that cannot say counts
// it as new: the run then ends refused, as before.
func (r *creator) newLimit(why reason.Why) bool {
	j := r.hold.journal
	if j == nil || j.LimitReached(why) {
		return j == nil
	}
	_ = j.Record(journalEntry{Op: opLimitReached, Limit: why.Limit, Scope: string(why.Scope), Period: why.Period})
	return true
}

// adoptOrHold looks in's label up right before its create. done says
// nothing is to be created now: the label exists and was adopted, or the
// look-up failed and in says why (the bet is tried again on a later tick).
// The error is the context's, or a TokenRefusedError: no later call
// could succeed either.
func (r *creator) adoptOrHold(ctx context.Context, in *instance) (done bool, err error) {
	found, err := r.lookup(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return true, ctx.Err()
		}
		if refused := tokenRefused(err); refused != nil {
			return true, refused
		}
		r.book.trouble(in, fmt.Sprintf("looking label up: %v", err), "could not check whether the bet exists; will try again")
		return true, nil
	}
	return found, nil
}

// holdsNow checks again, right before in's create, what decided it: its
// race's start, its condition, its amount and the limits. The decision
// may be minutes old by then (the prompt, the request budget, a 429's
// Retry-After, a refresh of the sessions): a bet whose race has started
// is skipped, one whose condition no longer holds waits for it again,
// and one the limits now refuse is refused, each with the reason.
func (r *creator) holdsNow(in *instance) bool {
	now := r.clock.Now()
	if !now.Before(in.start()) {
		r.book.end(in, StatusSkipped, reason.Said(reason.RaceStarted, fmt.Sprintf("the %s started at %s, before the create could be sent: not created", in.what(), r.raceTime(in.info.Venue, in.start()))))
		r.logf("skipped %s: %s", in.name(), in.reason)
		return false
	}
	if r.opts.OnlyLabels == nil {
		env := r.res.instanceEnv(in, now)
		ready, err := in.bet.Ready(env)
		if err != nil || !ready {
			why := "not created yet: its condition no longer held when the create was due; waiting for it again"
			if in.bet.When != nil {
				why = fmt.Sprintf("not created yet: %q no longer held when the create was due (%s); waiting for it again", in.bet.When.String(), in.bet.When.Explain(env))
			}
			r.book.wait(in, why)
			r.logf("%s: %s", in.name(), in.reason)
			return false
		}
		if !evaluateAmount(r.book, in, env) {
			return false
		}
	}
	r.book.risked(in, r.money.exposure(in))
	if why, u := r.money.checkLimits(in, in.risk); why.Code != "" {
		r.refuseByLimit(in, why, u)
		return false
	}
	return true
}

// allowNoBotHint names run's flag: only run creates.
const allowNoBotHint = " or pass --allow-no-bot"

// checkBot returns why no targeted session would act on in.
func (r *creator) checkBot(in *instance) string {
	var targeted []string
	for _, s := range r.res.sessions {
		id := strconv.FormatInt(int64(s.ID), 10)
		if in.bet.TargetSession != "" && id != in.bet.TargetSession {
			continue
		}
		if s.BotRunning {
			return ""
		}
		targeted = append(targeted, fmt.Sprintf("%s (%s)", id, s.DisplayName))
	}
	if in.bet.TargetSession != "" && len(targeted) == 0 {
		return fmt.Sprintf("bet %s targets session %s, which is not among the account's sessions", in.bet.ID, in.bet.TargetSession)
	}
	if len(targeted) == 0 {
		return "the account has no bookmaker sessions: nothing would be placed"
	}
	return fmt.Sprintf("no targeted session has a running bot (%s): nothing would be placed; start a bot%s", strings.Join(targeted, ", "), allowNoBotHint)
}

// request builds the create body of an instance: a race's, or a sports
// event's (its sport, ids and line instead of the racing fields).
func (r *creator) request(in *instance) *apiclient.CreateNotificationRequest {
	req := &apiclient.CreateNotificationRequest{
		Type:          in.bet.Type,
		Label:         in.label,
		TargetSession: in.bet.TargetSession,
		Options:       in.bet.Options,
	}
	if e := in.info.Event; e != nil {
		eventRequest(req, e)
	} else {
		req.Sports = "RACING"
		req.Competition, req.Code, req.EventNumber = in.race.Venue(), in.race.Code, int(in.race.EventNumber)
		// The start time pins the meeting: without it the service takes
		// the venue's next event with that number.
		req.StartTime = in.race.StartTime.Format(time.RFC3339)
		req.Market, req.Selection = in.bet.Market, in.bet.Selection
	}
	if in.bet.AmountField() == plan.AmountTargetProfit {
		req.TargetProfit = in.amount
	} else {
		req.Stake = in.amount
	}
	return req
}

// create sends the create at most MaxCreateAttempts times, each announced
// in the journal first, and after any ambiguous answer looks the label up
// over the grace window before trying again.
func (r *creator) create(ctx context.Context, in *instance) error {
	info := in.info
	for attempt := 1; attempt <= r.opts.MaxCreateAttempts; attempt++ {
		if r.opts.Serve.yielded() {
			// The serving process is letting the run go (SIGTERM, a
			// reload, the account taken over): nothing new is announced.
			return context.Canceled
		}
		if err := r.halt.checkStop(); err != nil {
			r.book.hold(in, r.halt.notCreated())
			return err
		}
		// A create tried again follows a wait (the grace window's look-ups,
		// a Retry-After): what decided it is checked again first.
		if attempt > 1 && !r.holdsNow(in) {
			return nil
		}
		r.checkpoint("announce")
		e := journalEntry{Op: opCreating, Label: in.label, BetID: in.bet.ID, Amount: in.amount, AtRisk: in.risk.Amount, Basis: in.risk.Basis, Race: &info, Attempt: attempt,
			Blocked: in.blocked, Fence: r.opts.fence()}
		if attempt == 1 { // a later attempt is the same bet, counted by its first
			refusal, seen, unchecked, err := r.money.recordCreating(ctx, in, e)
			switch {
			case err != nil:
				return err
			case unchecked != "":
				r.book.trouble(in, unchecked, "could not check the account's limits; will try again")
				return nil
			case refusal.Code != "":
				r.refuseByLimit(in, refusal, seen)
				return nil
			}
		} else if err := r.hold.journal.Record(e); err != nil {
			return err
		}
		r.checkpoint("creating")
		if r.halt.lockLost() {
			// Announced but never sent: whoever holds the lock now looks
			// the label up before creating it.
			return r.hold.lease.Err()
		}
		if err := r.hold.journal.noteInFlight(e); err != nil {
			// Announced but never sent: the next run looks it up first.
			return err
		}
		res, err := r.svc.CreateNotification(ctx, r.request(in))
		r.checkpoint("posted")
		if err == nil {
			id := res.ID
			if id == 0 {
				// The answer carried no id we could read: the label tells.
				outcome, lerr := r.lookupOverGrace(ctx, in, "the create answered without an id", false)
				if lerr != nil || outcome == createLanded {
					return lerr
				}
				// The service said yes, so it is never created again, even
				// though its notification cannot be found.
				why := "the service accepted the create (200) but no notification carries its label: not created again"
				r.book.fail(in, reason.Why{Code: reason.CreateRefused}, why)
				return r.hold.journal.Record(journalEntry{Op: opFailed, Label: in.label, Error: why})
			}
			err := r.markCreated(in, id, opCreated, "created")
			r.checkpoint("created")
			return err
		}
		if ctx.Err() != nil {
			// Interrupted mid-create: the journal's pending entry makes the
			// next run look the label up first.
			return ctx.Err()
		}
		var apiErr *apiclient.Error
		switch {
		case apiclient.IsAmbiguous(err), apiclient.IsServerError(err):
			r.logf("create %s: %v; looking the label up", in.name(), err)
			outcome, lerr := r.lookupOverGrace(ctx, in, err.Error(), true)
			if lerr != nil || outcome != createAbsent {
				return lerr
			}
		case apiclient.IsRateLimited(err), apiclient.IsUnauthorized(err):
			// Refused before it was processed; check the label once anyway.
			r.logf("create %s: %v", in.name(), err)
			if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
				if serr := r.clock.Sleep(ctx, apiErr.RetryAfter); serr != nil {
					return serr
				}
			}
			found, lerr := r.lookup(ctx, in)
			if lerr == nil && found {
				return nil
			}
			if err := r.hold.journal.Record(journalEntry{Op: opAbsent, Label: in.label, Error: err.Error()}); err != nil {
				return err
			}
			if apiclient.IsUnauthorized(err) && attempt >= 2 {
				r.book.fail(in, reason.Said(reason.CreateRefused, "the service refused the credentials"), err.Error())
				// No later create or poll can succeed either: end the run.
				return &TokenRefusedError{Err: err}
			}
		case isNotSent(err):
			// The connection was refused: nothing reached the service.
			r.logf("create %s: %v; trying again", in.name(), err)
			if jerr := r.hold.journal.Record(journalEntry{Op: opAbsent, Label: in.label, Error: err.Error()}); jerr != nil {
				return jerr
			}
			if serr := r.clock.Sleep(ctx, r.opts.LookupInterval); serr != nil {
				return serr
			}
		default:
			// A validation error or a refusal: the service did not create it.
			if jerr := r.hold.journal.Record(journalEntry{Op: opFailed, Label: in.label, Error: err.Error()}); jerr != nil {
				return jerr
			}
			r.book.fail(in, reason.Said(reason.CreateRefused, "the service refused the create"), err.Error())
			r.logf("create %s refused: %v", in.name(), err)
			return nil
		}
	}
	why := fmt.Sprintf("gave up after %d create attempts that did not land", r.opts.MaxCreateAttempts)
	r.book.fail(in, reason.Said(reason.CreateRefused, why), why)
	return nil
}

// markCreated records the notification id of in; verb says how it was
// had in the log: "created" by this run's create, "found" when a look-up
// found an announced create landed, "adopted existing" otherwise.
func (r *creator) markCreated(in *instance, id int64, op, verb string) error {
	info := in.info
	// The notification exists whatever the journal says: the run follows
	// and reports it even when the entry cannot be written (a lost lock).
	err := r.hold.journal.Record(journalEntry{Op: op, Label: in.label, BetID: in.bet.ID, NotificationID: id, Amount: in.amount, AtRisk: in.risk.Amount, Basis: in.risk.Basis, Race: &info})
	r.book.created(in, id, r.clock.Now())
	if op == opCreated {
		r.noteCreated(id) // the head of the list
	}
	r.logf("%s %s on %s: notification %d (label %s)", verb, in.name(), in.info.describe(), id, in.label)
	return err
}

// lookup asks the service for the label once; found notifications are
// adopted into the journal.
func (r *creator) lookup(ctx context.Context, in *instance) (bool, error) {
	ns, ok := r.labelsSeen[in.label]
	if ok {
		delete(r.labelsSeen, in.label) // a check is good for one create
	} else {
		var err error
		if ns, err = r.svc.NotificationsByLabel(ctx, in.label); err != nil {
			return false, err
		}
	}
	// A label exists only when a notification in results carries it.
	var ids []int64
	var pick *apiclient.Notification
	for i := range ns {
		if ns[i].Label != in.label {
			continue
		}
		ids = append(ids, int64(ns[i].ID))
		if pick == nil || ns[i].ID < pick.ID {
			pick = &ns[i]
		}
	}
	if pick == nil {
		return false, nil
	}
	if len(ids) > 1 {
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		r.logf("warning: label %s has %d notifications %v (created outside this journal); following %d", in.label, len(ids), ids, pick.ID)
	}
	// A create announced in the journal that landed is journalled as
	// created, and logged as found: no create was sent just now.
	op, verb := opAdopted, "adopted existing"
	if s := r.hold.journal.State(in.label); s != nil && s.Pending {
		op, verb = opCreated, "found"
	}
	if amount := notificationAmount(pick, in.bet.AmountField()); amount > 0 {
		r.book.priced(in, amount)
	}
	if s := r.hold.journal.State(in.label); s != nil && s.Pending && s.AtRisk > 0 {
		r.book.risked(in, exposure{Amount: s.AtRisk, Basis: s.Basis}) // ours: what it was announced with
	} else {
		r.book.risked(in, r.money.notificationExposure(pick))
	}
	if err := r.markCreated(in, int64(pick.ID), op, verb); err != nil {
		return true, err
	}
	// Just read: this tick's poll need not read it again.
	r.book.found(in, pick, r.clock.Now())
	return true, nil
}

// createOutcome is what label look-ups concluded about a create.
type createOutcome int

const (
	createLanded  createOutcome = iota // a notification carries the label
	createAbsent                       // none did over the grace window: it did not land
	createUnknown                      // the look-ups failed: it may have landed
)

// lookupOverGrace looks the label up repeatedly over the grace window. Not
// found by then means the create did not land, and the journal says so;
// look-ups that kept failing leave the journal pending, so nothing is
// created until a later look-up can tell. told: the log said why already
// (a request's failure, on the wall clock; the wait is the service's).
func (r *creator) lookupOverGrace(ctx context.Context, in *instance, why string, told bool) (createOutcome, error) {
	deadline := r.clock.Now().Add(r.opts.AmbiguousGrace)
	for first := true; ; first = false {
		found, err := r.lookup(ctx, in)
		if err == nil && found {
			return createLanded, nil
		}
		if ctx.Err() != nil {
			return createUnknown, ctx.Err()
		}
		if first {
			// The wait can be a minute: say what it is for.
			if told {
				r.logf("%s: label %s not found yet; looking it up for up to %s before anything is created", in.name(), in.label, r.opts.AmbiguousGrace)
			} else {
				r.logf("%s: %s; looking label %s up for up to %s before anything is created", in.name(), why, in.label, r.opts.AmbiguousGrace)
			}
		}
		if !r.clock.Now().Before(deadline) {
			if err != nil {
				r.book.trouble(in, fmt.Sprintf("could not confirm whether the create landed (%s): %v", why, err), "outcome of the create unknown; it is looked up again before anything is created")
				return createUnknown, nil
			}
			r.logf("label %s not found after %s: the create did not land", in.label, r.opts.AmbiguousGrace)
			return createAbsent, r.hold.journal.Record(journalEntry{Op: opAbsent, Label: in.label, Error: why})
		}
		if err := r.clock.Sleep(ctx, r.opts.LookupInterval); err != nil {
			return createUnknown, err
		}
	}
}
