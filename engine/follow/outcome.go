package follow

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/reason"
)

// What a read of a bet's notification and records means for it: the
// book's transitions each read brings, and the log lines that say so.

// UnresultedAfter is how long after its start a notification nothing was
// placed on may stay unresulted before it counts as not taken.
const UnresultedAfter = 2 * time.Hour

// update applies a fresh notification to its bet. It reads the
// per-session records (one call) once it is resulted, and before that
// when the bots answered and nothing was accepted: a refusal by every
// session ends the bet then, not at the race.
func (f *Follower) update(ctx context.Context, b Bet, n *apiclient.Notification) error {
	if why := n.CorruptAmounts(); why != "" {
		// Its money is unknown: the bet stays as last read (at risk, if
		// it was placed), and nothing of the record reaches a sum.
		f.warnCorrupt(b, fmt.Sprintf("notification %d", n.ID), why, "the bet stays as it was last read")
		return nil
	}
	f.book.Observe(b, n)
	if s := n.Tip.Competition.StartTime.Time; !s.IsZero() && !s.Equal(b.ListedStart()) {
		if was := b.ListedStart(); !was.IsZero() {
			f.logf("%s: the service now lists its race at %s (was %s)", b.Name(), f.host.RaceTime(b.Venue(), s), f.host.RaceTime(b.Venue(), was))
		}
		f.book.Listed(b, s)
	}
	f.notePlacement(b, n)
	if bool(n.IsCanceled) && n.TotalAccepted > 0 && !b.Canceled() {
		f.logf("cancelled %s after it was placed: $%.2f already placed by %s stays on; nothing more will be placed",
			b.Name(), float64(n.TotalAccepted), placers(b))
	}
	if n.IsCanceled {
		f.book.Cancelled(b)
	}
	switch {
	case bool(n.IsCanceled) && float64(n.TotalAccepted) == 0:
		f.book.End(b, bet.Canceled, reason.Said(reason.Cancelled, "cancelled before any session placed it"))
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && !b.ListedStart().IsZero() && f.clock.Now().After(b.ListedStart().Add(UnresultedAfter)):
		// A notification the service never matched to a race is never
		// resulted; nothing was placed, so nothing is left to follow but
		// why.
		d, recs, err := f.detail(ctx, b)
		if err != nil || recs == nil {
			return err
		}
		err = f.notPlaced(ctx, b, d, recs, "every session refused it: ", func(s bet.Status, why reason.Why) {
			if s == bet.NotTaken {
				why.Text = strings.Replace(why.Text, "no session placed it", fmt.Sprintf("no session placed it and the service had not resulted it %s after the start", UnresultedAfter), 1)
			}
			f.book.End(b, s, why)
		})
		return err
	case !n.Resulted() && n.TotalAccepted == 0 && answered(b) && b.AnsweredBy() != n.ReceivedBots:
		// The bots answered and accepted nothing: read what each session
		// said, once per answer.
		d, recs, err := f.detail(ctx, b)
		if err != nil || recs == nil {
			return err
		}
		f.book.Answered(b, n.ReceivedBots)
		if _, refused := everyRefused(recs, ""); refused {
			err := f.notPlaced(ctx, b, d, recs, "every session refused it: ", func(s bet.Status, why reason.Why) { f.book.End(b, s, why) })
			f.logOutcome(b)
			return err
		}
		f.book.Move(b, bet.Created, "the sessions answered; none has placed it yet")
		return nil
	case !n.Resulted():
		if n.TotalAccepted > 0 && b.Canceled() {
			// Cancelled after it was placed: nothing more is placed (so
			// cancel and stop leave it be), what was placed awaits the
			// result.
			f.book.Move(b, bet.Canceled, fmt.Sprintf("cancelled after $%.2f was placed, which stays on; awaiting the result", float64(n.TotalAccepted)))
		} else if n.TotalAccepted > 0 {
			f.book.Move(b, bet.Placed, fmt.Sprintf("$%.2f accepted at average odds %.2f; awaiting the result", float64(n.TotalAccepted), float64(n.AverageOdds)))
		} else if b.Status() != bet.Created || b.Reason() == "" {
			f.book.Move(b, bet.Created, "no session has placed it yet")
		}
		return nil
	}
	if n.TotalAccepted > 0 {
		// Settled: the notification says how it ended. What each session
		// did is read with other bets' records in one list read (see
		// CompleteRecords), not one call per bet.
		f.book.Settled(b, settledReason(n))
		f.logOutcome(b)
		return nil
	}
	d, recs, err := f.detail(ctx, b)
	if err != nil || recs == nil {
		return err
	}
	accepted := false
	for i := range recs {
		accepted = accepted || recs[i].Accepted()
	}
	if accepted {
		f.book.Complete(b, bet.Settled, reason.Why{Text: settledReason(n)})
	} else if err := f.notPlaced(ctx, b, d, recs, "every session errored: ", func(s bet.Status, why reason.Why) {
		f.book.Complete(b, s, why)
	}); err != nil {
		return err
	}
	f.logOutcome(b)
	return nil
}

// answered reports whether the last poll showed the sessions' answer:
// a bet placed, or bots that received it (a refusal or a review).
func answered(b Bet) bool {
	return b.Accepted() > 0 || strings.TrimSpace(b.ReceivedBots()) != ""
}

// placers names the sessions that placed b, as far as they are known.
func placers(b Bet) string {
	if b.Placers() == 0 {
		return "a session"
	}
	return b.PlacedBy()
}

// notePlacement marks a bet first seen placed (and again when more is
// accepted) for its records to be read: who placed it, who refused it and
// why, and when it was placed (ReadPlacements, in bulk). Until they are
// read the poll's time and the sessions whose bots took it up stand in.
func (f *Follower) notePlacement(b Bet, n *apiclient.Notification) {
	accepted := float64(n.TotalAccepted)
	if accepted <= 0 || (b.RecordsRead() && bet.RoundCents(b.RecordsAt()) == bet.RoundCents(accepted)) {
		return
	}
	var by []string
	if b.Placers() == 0 {
		by = f.botSessions(b, n.ReceivedBots)
	}
	f.book.Placing(b, f.clock.Now(), by, accepted)
}

// botSessions names the bet's sessions whose bots received the
// notification: who placed it, until the bet records say exactly.
func (f *Follower) botSessions(b Bet, bots string) []string {
	var names []string
	target := b.TargetSession()
	for _, id := range strings.Split(bots, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		for _, s := range f.host.Sessions() {
			if string(s.BotID) != id {
				continue
			}
			if target != "" && !slices.Contains(strings.Split(target, ","), strconv.FormatInt(int64(s.ID), 10)) {
				continue
			}
			names = append(names, s.DisplayName)
		}
	}
	return names
}

// placementWords is the log line of a placement: who accepted, who
// refused and the service's reason.
func placementWords(b Bet, accepted float64) string {
	s := fmt.Sprintf("placed %s: $%.2f accepted by %s", b.Name(), accepted, placers(b))
	if refused := b.RefusedBy(); refused != "" {
		s += "; refused by " + refused
	}
	if w := b.PlacementWarning(); w != "" {
		s += "; " + w
	}
	return s
}

// applyRecords keeps a notification's records and what they say of who
// placed it and when.
func (f *Follower) applyRecords(b Bet, recs []apiclient.BetRecord) {
	for i := range recs {
		if why := recs[i].CorruptAmounts(); why != "" {
			f.warnCorrupt(b, fmt.Sprintf("bet record %d", recs[i].ID), why, "its amounts count as $0.00")
		}
	}
	if f.book.ReadRecords(b, recs, f.clock.Now()) {
		f.logf("%s", placementWords(b, b.RecordsAt()))
	}
	f.logDueOutcome(b)
}

// warnCorrupt says once a run that the service sent what of b with
// amounts that are not money (why: which, and what they were), and what
// is made of it.
func (f *Follower) warnCorrupt(b Bet, what, why, made string) {
	if f.warned[what] {
		return
	}
	if f.warned == nil {
		f.warned = map[string]bool{}
	}
	f.warned[what] = true
	f.logf("warning: %s: the service sent %s with %s: a corrupt record, left out of every sum; %s", b.Name(), what, why, made)
}

// everyRefused reports whether every session's record refused the bet,
// and why, the sessions' own words after lead: its reason is the one their
// words give (apiclient.RefusalReason) when they agree, else the first that
// names one.
func everyRefused(recs []apiclient.BetRecord, lead string) (reason.Why, bool) {
	var errs []string
	code := reason.Code("")
	for i := range recs {
		if !recs[i].Failed() {
			return reason.Why{}, false
		}
		errs = append(errs, fmt.Sprintf("%s: %s", recs[i].DisplayName, recs[i].SubmitError))
		switch c := apiclient.RefusalReason(recs[i].SubmitError); {
		case code == "":
			code = c
		case c != code && code == reason.SessionRefused:
			code = c
		case c != code && c != reason.SessionRefused && code == reason.OddsBound:
			code = c // the plan's own bound alone is not a failure: another reason is
		}
	}
	return reason.Said(code, lead+strings.Join(errs, "; ")), len(errs) > 0
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

// A bet seen placed and resulted in one look (a status, or a cron run,
// after the race) is logged as it happened: placed, then how it ended.
// Its placement is logged once its bet records are read, after the poll
// that saw the result, so the outcome's line waits for it. The book
// holds and releases the outcome; these say it.

// logDueOutcome logs the outcome held back for b's placement.
func (f *Follower) logDueOutcome(b Bet) {
	if f.book.ReleaseOutcome(b, false) {
		f.logOutcome(b)
	}
}

// logPlacementLine is the line of a placement known only from its
// notification.
func (f *Follower) logPlacementLine(b Bet) {
	s := fmt.Sprintf("placed %s: $%.2f accepted; who placed it is not known yet (the bet records could not be read; the bots of %s took it up)",
		b.Name(), b.Accepted(), placers(b))
	if w := b.PlacementWarning(); w != "" {
		s += "; " + w
	}
	f.logf("%s", s)
}

// logOutcomesDue logs, after a read of bet records, the outcomes still
// held back: a placement whose records could not be read is logged first
// with what is known of it.
func (f *Follower) logOutcomesDue() {
	for b := range f.book.Bets() {
		if !b.OutcomeDue() {
			continue
		}
		if f.book.PlacementUnread(b, b.Err()) {
			f.logPlacementLine(b)
		}
		if f.book.ReleaseOutcome(b, true) {
			f.logOutcome(b)
		}
	}
}

// logOutcome logs how a bet ended, once: the journal keeps that it was
// told (a resulted entry), so a later cron run that reads the same
// outcome again does not repeat it.
func (f *Follower) logOutcome(b Bet) {
	if f.book.HoldOutcome(b) {
		return // after its placement (logDueOutcome, logOutcomesDue)
	}
	if f.host.Told(b.Label()) {
		return
	}
	f.logf("%s %s: %s", b.Status(), b.Name(), b.Reason())
	f.host.KeepTold(b.Label())
}
