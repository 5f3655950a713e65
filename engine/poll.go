package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// labelLookupMax is how many due notifications are polled one label at a
// time; more are found through list pages (100 a call).
const labelLookupMax = 10

// unresultedAfter is how long after its start a notification nothing was
// placed on may stay unresulted before it counts as not taken.
const unresultedAfter = 2 * time.Hour

// poll reads the plan's open notifications: every one, once a tick, so
// each outcome is seen at the first tick after the service shows it. The
// pages of the notification list that hold them are read (100 a call),
// each once; a page another plan of the run read on this tick serves this
// plan too (adoptListPages, and the account's shared reads).
func (f *follower) poll(ctx context.Context) error {
	if err := f.adoptListPages(ctx); err != nil {
		return err
	}
	now := f.clock.Now()
	why := map[string]bool{}
	var open []*instance
	for _, in := range f.book.insts {
		// A bet cancelled by betplan is read too: sessions may have placed
		// it before the cancel.
		if in.notifID == 0 || in.final || in.readThisTick(f.tickAt) {
			continue
		}
		if in.createdThisTick(f.tickAt) && !f.opts.NoWait && !f.lastLook {
			continue // a --no-wait run's last look includes it
		}
		reason := whyLastLook
		if !f.lastLook {
			reason = in.due()
		}
		why[reason] = true
		open = append(open, in)
	}
	if !f.tickAt.IsZero() {
		ctx = withReadSince(ctx, f.tickAt.Add(-f.readSlack()))
	}
	return f.fetch(withReadReason(ctx, reasons(why)), open, now)
}

// readSlack is how long before this plan's tick a page another plan of
// the run read still counts as read on this tick: the plans tick together
// (tickGrid), give or take the time one tick's work takes to start. A
// quarter of the interval at most, so an outcome is never seen from a page
// read much more than an interval ago.
func (f *follower) readSlack() time.Duration {
	return min(time.Second, f.interval()/4)
}

// interval is the plan's poll interval (30s when unset).
func (f *follower) interval() time.Duration {
	if f.plan.Poll.Interval > 0 {
		return f.plan.Poll.Interval
	}
	return 30 * time.Second
}

// reasons joins a poll's reasons in a fixed order.
func reasons(set map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(set)), "+")
}

// adoptListPages applies the pages of the notification list that other
// plans of the run read since this plan last looked (and after its own
// last create): a page shows every bet on it, so it is a poll of this
// plan's bets there too, at the time it was read, and they need no read
// of their own until they are due again. A plan running alone has none.
// The list index is left as the plan's own reads set it: an adopted page
// may be older than what the plan last saw of the list's length, and
// would move its predictions back.
func (f *follower) adoptListPages(ctx context.Context) error {
	ap, ok := f.svc.(*accountPlan)
	if !ok {
		return nil
	}
	pages := ap.listPagesSince(f.adoptedAt)
	if len(pages) == 0 {
		return nil
	}
	ours := f.book.notifications()
	for _, sp := range pages {
		if sp.at.After(f.adoptedAt) {
			f.adoptedAt = sp.at
		}
		if sp.n > 1 && sp.page.Previous == nil {
			continue // past the end: the service's page 1 (see listPage)
		}
		for i := range sp.page.Results {
			in := ours[int64(sp.page.Results[i].ID)]
			if in == nil || in.final || !in.lastPolled.Before(sp.at) {
				continue
			}
			f.book.polled(in, sp.at, true)
			if err := f.update(ctx, in, &sp.page.Results[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pollLast is the run's last look before it ends unfinished (poll.timeout):
// every open bet is read, due or not, so none ends the run as it was seen
// minutes ago.
func (f *follower) pollLast(ctx context.Context) error {
	f.lastLook = true
	defer func() { f.lastLook = false }()
	return f.poll(ctx)
}

// fetch reads the given notifications and applies them. The pages the
// list index points to come first (one call reads a hundred, and every
// open bet of the plan a page shows is polled with it); what they did not
// show is found through list pages from the head when that is cheaper,
// else one label look-up each.
func (f *follower) fetch(ctx context.Context, open []*instance, now time.Time) error {
	open = slices.DeleteFunc(slices.Clone(open), func(in *instance) bool {
		return in.lastPolled.Equal(now) && !now.IsZero() // read already, by a page of this poll
	})
	if len(open) == 0 {
		return nil
	}
	seen := map[int64]*apiclient.Notification{}
	rest, err := f.readPages(ctx, open, seen)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if refused := tokenRefused(err); refused != nil {
			return refused
		}
		f.logf("poll: %v", err) // fall back to label look-ups
		rest = slices.DeleteFunc(slices.Clone(open), func(in *instance) bool { return seen[in.notifID] != nil })
	}
	if len(rest) > labelLookupMax && f.book.pagesToCover(rest) < len(rest) {
		if err := f.scanFor(ctx, rest, seen); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if refused := tokenRefused(err); refused != nil {
				return refused
			}
			f.logf("poll: %v", err) // fall back to label look-ups
		}
	}
	for _, in := range open {
		if seen[in.notifID] != nil {
			continue
		}
		f.book.polled(in, now, false)
		ns, err := f.svc.NotificationsByLabel(ctx, in.label)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if refused := tokenRefused(err); refused != nil {
				return refused
			}
			f.book.trouble(in, fmt.Sprintf("polling: %v", err), "")
			continue
		}
		for i := range ns {
			if int64(ns[i].ID) == in.notifID {
				seen[in.notifID] = &ns[i]
			}
		}
		if seen[in.notifID] == nil {
			f.book.trouble(in, fmt.Sprintf("notification %d with label %s is no longer listed by the service", in.notifID, in.label), "")
		}
	}
	// Every open bet of the plan the pages showed is polled, due or not.
	for _, in := range f.book.insts {
		n := seen[in.notifID]
		if n == nil || in.notifID == 0 || in.final {
			continue
		}
		f.book.polled(in, now, true)
		if err := f.update(ctx, in, n); err != nil {
			return err
		}
	}
	return nil
}

// update applies a fresh notification to its instance. It reads the
// per-session records (one call) once it is resulted, and before that
// when the bots answered and nothing was accepted: a refusal by every
// session ends the bet then, not at the race.
func (f *follower) update(ctx context.Context, in *instance, n *apiclient.Notification) error {
	f.book.observe(in, n)
	if s := n.Tip.Competition.StartTime.Time; !s.IsZero() && !s.Equal(in.info.Start) {
		if !in.info.Start.IsZero() {
			f.logf("%s: the service now lists its race at %s (was %s)", in.name(), f.raceTime(in.info.Venue, s), f.raceTime(in.info.Venue, in.info.Start))
		}
		in.info.Start = s
	}
	f.notePlacement(in, n)
	if bool(n.IsCanceled) && n.TotalAccepted > 0 && !in.canceled {
		f.logf("cancelled %s after it was placed: $%.2f already placed by %s stays on; nothing more will be placed",
			in.name(), float64(n.TotalAccepted), sessionList(in.placedBy))
	}
	if n.IsCanceled {
		f.book.cancelled(in)
	}
	switch {
	case bool(n.IsCanceled) && float64(n.TotalAccepted) == 0:
		f.book.end(in, StatusCanceled, "cancelled before any session placed it")
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && !in.info.Start.IsZero() && f.clock.Now().After(in.info.Start.Add(unresultedAfter)):
		// A notification the service never matched to a race is never
		// resulted; nothing was placed, so nothing is left to follow.
		f.book.end(in, StatusNotTaken, fmt.Sprintf("no session placed it and the service had not resulted it %s after the start", unresultedAfter))
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && in.answered() && in.answeredBy != n.ReceivedBots:
		// The bots answered and accepted nothing: read what each session
		// said, once per answer.
		recs, err := f.records(ctx, in)
		if err != nil || recs == nil {
			return err
		}
		f.book.answered(in, n.ReceivedBots)
		if refused, why := everyRefused(recs); refused {
			f.book.end(in, StatusFailed, "every session refused it: "+why)
			f.logOutcome(in)
			return nil
		}
		f.book.move(in, StatusCreated, "the sessions answered; none has placed it yet")
		return nil
	case !n.Resulted():
		if n.TotalAccepted > 0 && in.canceled {
			// Cancelled after it was placed: nothing more is placed (so
			// cancel and stop leave it be), what was placed awaits the
			// result.
			f.book.move(in, StatusCanceled, fmt.Sprintf("cancelled after $%.2f was placed, which stays on; awaiting the result", float64(n.TotalAccepted)))
		} else if n.TotalAccepted > 0 {
			f.book.move(in, StatusPlaced, fmt.Sprintf("$%.2f accepted at average odds %.2f; awaiting the result", float64(n.TotalAccepted), float64(n.AverageOdds)))
		} else if in.status != StatusCreated || in.reason == "" {
			f.book.move(in, StatusCreated, "no session has placed it yet")
		}
		return nil
	}
	if n.TotalAccepted > 0 {
		// Settled: the notification says how it ended. What each session
		// did is read with other bets' records in one list read (see
		// completeRecords), not one call per bet.
		f.book.settled(in, settledReason(n))
		f.logOutcome(in)
		return nil
	}
	recs, err := f.records(ctx, in)
	if err != nil || recs == nil {
		return err
	}
	accepted := false
	for i := range recs {
		accepted = accepted || recs[i].Accepted()
	}
	refused, why := everyRefused(recs)
	switch {
	case accepted:
		f.book.complete(in, StatusSettled, settledReason(n))
	case refused:
		f.book.complete(in, StatusFailed, "every session errored: "+why)
	case len(recs) == 0:
		f.book.complete(in, StatusNotTaken, "no session acted on it by race start (no running bot matched, or the race was not found)")
	default:
		f.book.complete(in, StatusNotTaken, "no session placed it before the race")
	}
	f.logOutcome(in)
	return nil
}

// logOutcome logs how a bet ended, once: the journal keeps that it was
// told (a resulted entry), so a later cron run that reads the same
// outcome again does not repeat it.
func (f *follower) logOutcome(in *instance) {
	if f.outcomeAfterPlacement(in) {
		return
	}
	if f.host.currentJournal() == nil {
		f.logf("%s %s: %s", in.status, in.name(), in.reason)
		return
	}
	if s := f.host.currentJournal().State(in.label); s != nil && s.Resulted {
		return
	}
	f.logf("%s %s: %s", in.status, in.name(), in.reason)
	if f.host.currentJournal().writable() {
		_ = f.host.currentJournal().Record(journalEntry{Op: opResulted, Label: in.label}) // a journal out of reach stops the run on its own
	}
}

// records reads the notification's per-session records into in; nil
// records and a nil error mean the read failed and is tried again on the
// next poll.
func (f *follower) records(ctx context.Context, in *instance) ([]apiclient.BetRecord, error) {
	recs, err := f.svc.BetsByNotification(ctx, in.notifID)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if refused := tokenRefused(err); refused != nil {
			return nil, refused
		}
		f.book.trouble(in, fmt.Sprintf("reading bet records: %v", err), "")
		return nil, nil
	}
	f.applyRecords(in, recs)
	if recs == nil {
		recs = []apiclient.BetRecord{}
	}
	return recs, nil
}

// notePlacement marks a bet first seen placed (and again when more is
// accepted) for its records to be read: who placed it, who refused it and
// why, and when it was placed (readPlacements, in bulk). Until they are
// read the poll's time and the sessions whose bots took it up stand in.
func (f *follower) notePlacement(in *instance, n *apiclient.Notification) {
	accepted := float64(n.TotalAccepted)
	if accepted <= 0 || (in.recordsRead && roundCents(in.recordsAt) == roundCents(accepted)) {
		return
	}
	var by []string
	if len(in.placedBy) == 0 {
		by = f.botSessions(in, n.ReceivedBots)
	}
	f.book.placing(in, f.clock.Now(), by, accepted)
}

// placementWords is the log line of a placement: who accepted, who
// refused and the service's reason.
func placementWords(in *instance, accepted float64) string {
	s := fmt.Sprintf("placed %s: $%.2f accepted by %s", in.name(), accepted, sessionList(in.placedBy))
	if len(in.refusedBy) > 0 {
		s += "; refused by " + strings.Join(in.refusedBy, "; ")
	}
	return s
}

// applyRecords keeps a notification's records and what they say of who
// placed it and when.
func (f *follower) applyRecords(in *instance, recs []apiclient.BetRecord) {
	if f.book.readRecords(in, recs, f.clock.Now()) {
		f.logf("%s", placementWords(in, in.recordsAt))
	}
	f.logDueOutcome(in)
}

// refusedShare is what one session's refusal takes off a bet's money at
// risk: its stake, for a Fixed Wager each session places in full; 0 where
// a session's share is not known (a total split across sessions, a
// target profit).
func refusedShare(in *instance) float64 {
	t := betTerms(in.bet)
	if !strings.EqualFold(t.betType, plan.TypeFixedWager) || t.total {
		return 0
	}
	return in.amount
}

// everyRefused reports whether every record failed, and their errors.
func everyRefused(recs []apiclient.BetRecord) (bool, string) {
	var errs []string
	for i := range recs {
		if !recs[i].Failed() {
			return false, ""
		}
		errs = append(errs, fmt.Sprintf("%s: %s", recs[i].DisplayName, recs[i].SubmitError))
	}
	return len(errs) > 0, strings.Join(errs, "; ")
}

// botSessions names the bet's sessions whose bots received the
// notification: who placed it, until the bet records say exactly.
func (f *follower) botSessions(in *instance, bots string) []string {
	var names []string
	for _, b := range strings.Split(bots, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		for _, s := range f.res.sessions {
			if string(s.BotID) != b {
				continue
			}
			if in.bet.TargetSession != "" && !slices.Contains(strings.Split(in.bet.TargetSession, ","), strconv.FormatInt(int64(s.ID), 10)) {
				continue
			}
			names = append(names, s.DisplayName)
		}
	}
	return names
}

func sessionList(names []string) string {
	if len(names) == 0 {
		return "a session"
	}
	return strings.Join(names, ", ")
}

func settledReason(n *apiclient.Notification) string {
	result := n.Tip.Competition.Result
	p := float64(n.Profit)
	switch {
	case p > 0:
		return fmt.Sprintf("won $%.2f (result %s)", p, result)
	case p < 0:
		return fmt.Sprintf("lost $%.2f (result %s)", -p, result)
	}
	if result == "" || strings.EqualFold(result, "void") {
		return "void: the stake was returned"
	}
	return fmt.Sprintf("returned the stake (result %s)", result)
}
