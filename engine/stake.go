package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
)

// What the money counts is the book's (engine/book): a bet's exposure, the
// facts Count folds into what it puts at risk, and what the bets of a
// period add up to. This file turns what the engine knows of a bet (its
// journal state, its notification, this command's instance) into those
// facts.

// exposure is what one bet may put at risk, and how that was worked out
// (risk.go works it out before a create).
type exposure = book.Exposure

// usage is what the bets of one period, and of one race, add up to.
type usage = book.Usage

// periodKey names the period of a race's meeting day (book.PeriodKey).
func periodKey(p plan.Period, start time.Time) string { return book.PeriodKey(p, start) }

// periodWords says which period a key is, for people.
func periodWords(p plan.Period, key string) string {
	switch {
	case p == plan.PeriodDay && key != "":
		return "day " + key
	case p == plan.PeriodWeek && key != "":
		return "week " + key
	}
	return "the plan (all time)"
}

// bookRace is the race the book counts ri as.
func bookRace(ri RaceInfo) book.Race {
	r := book.Race{Venue: ri.Venue, Code: ri.Code, EventNumber: ri.EventNumber, Start: ri.Start}
	if ri.Event != nil {
		r.Event = ri.Event.ID
		if r.Event == "" {
			r.Event = "name|" + ri.Event.Name
		}
	}
	return r
}

// journalFacts is what the journal's state s of label says of a bet of
// the plan called planName; false when the journal knows of no create
// (nothing was sent, or the create failed).
func journalFacts(planName, label string, s *labelState) (book.Facts, bool) {
	if !s.created() && !s.Pending {
		return book.Facts{}, false
	}
	f := book.Facts{Plan: planName, Label: label, BetID: s.BetID, Race: bookRace(s.Race), Requested: s.Amount,
		Estimate: exposure{Amount: s.AtRisk, Basis: s.Basis}, InDoubt: s.Pending && !s.created(),
		CancelSent: s.Canceled, PlacedBefore: !s.PlacedAt.IsZero(), Kept: s.Kept}
	if f.Estimate.Amount == 0 { // a journal from before at-risk was kept
		f.Estimate = exposure{Amount: s.Amount, Basis: "the requested amount (recorded before at-risk amounts were)"}
	}
	return f, true
}

// seenOf is a notification as the book counts it.
func seenOf(n *apiclient.Notification) *book.Seen {
	return &book.Seen{Accepted: float64(n.TotalAccepted), Profit: float64(n.Profit), AverageOdds: float64(n.AverageOdds),
		Resulted: n.Resulted(), Canceled: bool(n.IsCanceled), Start: n.Tip.Competition.StartTime.Time,
		ResultAt: n.Tip.ResultTime.Time, Lay: plan.IsLayMarket(n.Tip.Market)}
}

// instanceFacts adds to f what this command knows of the bet: whether it
// ended or was cancelled, what its sessions refused, its race's start,
// and what the service showed of it (n, when read).
func instanceFacts(f *book.Facts, in *instance, n *apiclient.Notification) {
	if in != nil {
		f.CanceledNothing = in.status == StatusCanceled && in.final
		f.CancelSent = f.CancelSent || in.canceled
		f.PlacedBefore = f.PlacedBefore || !in.placedAt.IsZero()
		f.Ended = in.final
		f.Refused, f.RefusedBy = in.refusedStake, refusedNames(in.refusedBy)
		if !in.info.Start.IsZero() {
			f.Race.Start = in.info.Start
		}
	}
	if n != nil {
		f.Seen = seenOf(n)
	}
}

// oddsPastCap says when in is a lay taken at odds above its max_odds, the
// cap its risk was counted at before it was placed (check_max_odds asks
// the sessions not to; the service does not say every bookmaker holds
// to it): "" otherwise. The alert of its placement and the log line say
// it at once, as the book counts its liability at the odds taken.
func oddsPastCap(in *instance) string {
	if in.bet == nil || in.notif == nil {
		return ""
	}
	t := in.bet.RiskTerms()
	if !t.Lay || t.OddsCap <= 1 {
		return ""
	}
	top := float64(in.notif.AverageOdds)
	for _, r := range in.records {
		if strings.EqualFold(r.SubmitResult, apiclient.SubmitSuccess) && r.Amount > 0 {
			top = max(top, r.Odds)
		}
	}
	if top <= t.OddsCap+1e-9 {
		return ""
	}
	lose := ""
	if b, ok := book.Count(book.Facts{Seen: seenOf(in.notif)}, time.Time{}); ok {
		lose = ": it can lose " + usd(b.Risk().Amount)
	}
	return fmt.Sprintf("warning: the lay was taken at odds %s, above its max_odds %s, the odds its risk was counted at before it was placed%s",
		oddsWords(top), oddsWords(t.OddsCap), lose)
}
