package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
)

// ShareAccount makes the account section of each result of one command
// of several plans say the same money, counted once all of them ended:
// what every plan of the command ended with (its result's bets, as the
// book counts them) and what the other plans sharing the state committed
// (their journals, read now). Each plan's report was written with the
// account as it stood when that plan ended, before the plans after it
// were read: three plans' reports gave three figures.
func ShareAccount(ctx context.Context, results []*Result, opts []Options) {
	var all []book.Bet
	inRun := map[string]bool{}
	for _, res := range results {
		if res == nil {
			continue
		}
		inRun[res.PlanName] = true
		all = append(all, res.countedBets()...)
	}
	for i, res := range results {
		if res == nil || res.Account == nil || res.Account.Unread != "" {
			continue
		}
		r := newTracker(&plan.Plan{Name: res.PlanName}, opts[i])
		others, err := r.money.otherPlansBets(ctx)
		if err != nil {
			continue // the report keeps what its run counted
		}
		bets := slices.Clone(all)
		for _, o := range others {
			if !inRun[o.Plan()] {
				bets = append(bets, o)
			}
		}
		a := res.Account
		for j, p := range a.Periods {
			race := RaceInfo{}
			if p.Period != "" {
				race.Start = periodStart(a.Limits.Period, p.Period)
			}
			u := book.Sum(bets, a.Limits.Period, bookRace(race), false)
			a.Periods[j] = PeriodUsage{Period: p.Period, Words: p.Words, PlanEnv: u.Env(), Planned: u.Planned, PlannedBets: u.PlannedBets}
		}
	}
}

// countedBets are the result's bets whose money counts, as the book
// counts them from what the report says.
func (res *Result) countedBets() []book.Bet {
	var out []book.Bet
	for i := range res.Bets {
		b := &res.Bets[i]
		if !b.Counts() || (b.Status == StatusCanceled && !b.PlacedThenCanceled()) {
			continue
		}
		stage := book.Open
		switch {
		case b.Status == StatusSettled && roundCents(b.AmountAccepted) > 0:
			stage = book.Settled
		case b.Status == StatusInDoubt:
			stage = book.InDoubt
		case !b.Open() && b.Status != StatusInDoubt:
			stage = book.Unplaced
		}
		out = append(out, book.Reported(res.PlanName, b.Label, b.ID, bookRace(b.Race), exposure{Amount: b.AtRisk, Basis: b.AtRiskBasis}, stage, b.Profit, b.ResultAt))
	}
	return out
}

// periodStart is a time in the period key names (periodKey's inverse): a
// day's noon, a week's Monday noon.
func periodStart(p plan.Period, key string) time.Time {
	switch p {
	case plan.PeriodDay:
		t, err := time.Parse("2006-01-02", key)
		if err == nil {
			return t.Add(12 * time.Hour)
		}
	case plan.PeriodWeek:
		var y, w int
		if _, err := fmt.Sscanf(key, "%04d-W%02d", &y, &w); err == nil {
			// January 4th is in week 1; its Monday starts it.
			jan4 := time.Date(y, time.January, 4, 12, 0, 0, 0, time.UTC)
			monday := jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7))
			return monday.AddDate(0, 0, 7*(w-1))
		}
	}
	return time.Time{}
}
