package book_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
)

var (
	now   = time.Date(2026, 11, 21, 14, 0, 0, 0, time.FixedZone("AEDT", 11*3600))
	later = now.Add(time.Hour)
	race  = book.Race{Venue: "Flemington", Code: "Galloping", EventNumber: 3, Start: later}
)

func facts(est float64) book.Facts {
	return book.Facts{Plan: "card", Label: "bp:card:b1", BetID: "b1", Race: race, Requested: est,
		Estimate: book.Exposure{Amount: est, Basis: "estimate"}}
}

// Each state a bet's money can be in, as Count folds it: what it can lose
// now, and whether it counts at all.
func TestCountEachState(t *testing.T) {
	t.Parallel()
	type want struct {
		counted bool
		stage   book.Stage
		risk    float64
		profit  float64
		open    bool
	}
	tests := []struct {
		name string
		f    func() book.Facts
		want want
	}{
		{"created, not read", func() book.Facts { return facts(10) }, want{true, book.Open, 10, 0, true}},
		{"in doubt", func() book.Facts { f := facts(10); f.InDoubt = true; return f }, want{true, book.InDoubt, 10, 0, true}},
		{"planned", func() book.Facts { f := facts(10); f.Planned = true; return f }, want{true, book.Planned, 10, 0, true}},
		{"placed in part", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Accepted: 4}
			return f
		}, want{true, book.Open, 10, 0, true}},
		{"accepted past the estimate", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Accepted: 12}
			return f
		}, want{true, book.Open, 12, 0, true}},
		{"a session refused", func() book.Facts {
			f := facts(10)
			f.Seen, f.Refused, f.RefusedBy = &book.Seen{Accepted: 2}, 5, "Lads"
			return f
		}, want{true, book.Open, 5, 0, true}},
		{"off with a part placed", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Accepted: 4, Start: now.Add(-time.Minute)}
			return f
		}, want{true, book.Open, 4, 0, true}},
		{"off with nothing placed", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Start: now.Add(-time.Minute)}
			return f
		}, want{true, book.Unplaced, 0, 0, false}},
		{"settled loss", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Accepted: 10, Profit: -10, Resulted: true}
			return f
		}, want{true, book.Settled, 10, -10, false}},
		{"resulted unplaced", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Resulted: true}
			return f
		}, want{true, book.Unplaced, 0, 0, false}},
		{"cancelled, nothing placed", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Canceled: true}
			return f
		}, want{counted: false}},
		{"cancelled after placement", func() book.Facts {
			f := facts(10)
			f.Seen = &book.Seen{Canceled: true, Accepted: 6}
			return f
		}, want{true, book.CanceledPlaced, 6, 0, true}},
		{"cancel sent, placed before, not read", func() book.Facts {
			f := facts(10)
			f.CancelSent, f.PlacedBefore = true, true
			return f
		}, want{true, book.CanceledPlaced, 10, 0, true}},
		{"cancel sent, nothing known placed", func() book.Facts {
			f := facts(10)
			f.CancelSent = true
			return f
		}, want{counted: false}},
		{"this command saw it cancelled with nothing placed", func() book.Facts {
			f := facts(10)
			f.CanceledNothing = true
			return f
		}, want{counted: false}},
		{"outcome kept in the journal", func() book.Facts {
			f := facts(10)
			f.Kept = &book.Kept{Accepted: 10, Profit: -10, ResultAt: now}
			return f
		}, want{true, book.Settled, 10, -10, false}},
		{"kept not placed", func() book.Facts {
			f := facts(10)
			f.Kept = &book.Kept{NotPlaced: true}
			return f
		}, want{true, book.Unplaced, 0, 0, false}},
		{"a lay placed at 8: its liability", func() book.Facts {
			f := facts(140)
			f.Seen = &book.Seen{Accepted: 20, AverageOdds: 8, Lay: true}
			return f
		}, want{true, book.Open, 140, 0, true}},
		{"a lay placed at 1.5: the stake, the larger reading", func() book.Facts {
			f := facts(20)
			f.Seen = &book.Seen{Accepted: 20, AverageOdds: 1.5, Lay: true}
			return f
		}, want{true, book.Open, 20, 0, true}},
		{"a lay lost", func() book.Facts {
			f := facts(140)
			f.Kept = &book.Kept{Accepted: 20, Odds: 8, Profit: -140, Lay: true, ResultAt: now}
			return f
		}, want{true, book.Settled, 140, -140, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, ok := book.Count(tt.f(), now)
			if ok != tt.want.counted {
				t.Fatalf("counted %v, want %v (%+v)", ok, tt.want.counted, b)
			}
			if !ok {
				return
			}
			got := want{ok, b.Stage(), b.Risk().Amount, b.Profit(), b.IsOpen()}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v (%s)", got, tt.want, b.Risk().Basis)
			}
		})
	}
}

// The running sums of a Ledger are Sum's, bet by bet, as bets are put in,
// replaced (a poll, an outcome) and taken out, in every period and race.
func TestLedgerKeepsSumsSums(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range []plan.Period{plan.PeriodPlan, plan.PeriodDay, plan.PeriodWeek} {
		l := book.NewLedger(p)
		held := map[string]book.Bet{}
		var planned []book.Bet
		races := []book.Race{race, {Venue: "Randwick", Code: "Galloping", EventNumber: 1, Start: later.Add(24 * time.Hour)},
			{Venue: "Meadows", Code: "Greyhound", EventNumber: 5, Start: later.Add(8 * 24 * time.Hour)}, {Event: "afl-1", Start: later}, {}}
		for step := 0; step < 400; step++ {
			label := "bp:card:b" + string(rune('a'+rng.IntN(20)))
			f := facts(float64(rng.IntN(2000)) / 100)
			f.Label, f.Race = label, races[rng.IntN(len(races))]
			switch rng.IntN(6) {
			case 0:
				f.Seen = &book.Seen{Accepted: f.Estimate.Amount, Profit: float64(rng.IntN(4000)-2000) / 100, Resulted: true,
					ResultAt: now.Add(time.Duration(rng.IntN(1000)) * time.Minute)}
			case 1:
				f.Seen = &book.Seen{Canceled: true, Accepted: float64(rng.IntN(3))}
			case 2:
				f.Planned = true
			case 3:
				l.Remove(label)
				delete(held, label)
				continue
			}
			b, ok := book.Count(f, now)
			if !ok {
				l.Remove(label)
				delete(held, label)
				continue
			}
			l.Put(b, now)
			if f.Planned {
				planned = append(planned, b)
			} else {
				held[label] = b
			}
			all := append([]book.Bet(nil), planned...)
			for _, b := range held {
				all = append(all, b)
			}
			for _, r := range races {
				got, want := l.Usage(r), book.Sum(all, p, r, false)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("period %q, step %d, race %+v:\nledger %+v\nsum    %+v", p, step, r, got, want)
				}
			}
		}
	}
}

// Sums are kept in cents: a thousand bets of 10c add up to $100 exactly,
// and an absurd amount holds at a bound rather than wrapping round.
func TestSumInCents(t *testing.T) {
	t.Parallel()
	var bets []book.Bet
	for range 1000 {
		b, _ := book.Count(facts(0.1), now)
		bets = append(bets, b)
	}
	if u := book.Sum(bets, plan.PeriodPlan, book.Race{}, false); u.Staked != 100 || u.OpenStake != 100 || u.Bets != 1000 {
		t.Fatalf("1000 × 10c: %+v", u)
	}
	huge, _ := book.Count(facts(1e300), now)
	u := book.Sum([]book.Bet{huge, huge}, plan.PeriodPlan, book.Race{}, false)
	if u.Staked <= 0 {
		t.Fatalf("two absurd amounts wrapped round: %v", u.Staked)
	}
}

// A race's worst case is what its bets made if every one still open lost:
// its open at-risk less its settled profit. A settled bet's stake, which
// RaceStake still counts, can no longer be lost; a bet on another race is
// not counted. The ledger keeps the same figures (TestLedgerKeepsSumsSums).
func TestRaceWorstCase(t *testing.T) {
	t.Parallel()
	bet := func(label string, r book.Race, est float64, seen *book.Seen) book.Bet {
		f := facts(est)
		f.Label, f.Race, f.Seen = label, r, seen
		b, ok := book.Count(f, now)
		if !ok {
			t.Fatalf("%s not counted", label)
		}
		return b
	}
	other := book.Race{Venue: "Randwick", Code: "Galloping", EventNumber: 1, Start: later}
	bets := []book.Bet{
		bet("open", race, 10, nil),
		bet("lost", race, 5, &book.Seen{Accepted: 5, Profit: -5, Resulted: true, ResultAt: now}),
		bet("won", race, 4, &book.Seen{Accepted: 4, Profit: 8, Resulted: true, ResultAt: now}),
		bet("elsewhere", other, 50, nil),
	}
	u := book.Sum(bets, plan.PeriodPlan, race, false)
	if u.RaceStake != 19 || u.RaceOpenStake != 10 || u.RaceProfit != 3 || u.RaceBets != 3 || u.RaceWorstCase() != -7 {
		t.Errorf("race sums: stake %v, open %v, profit %v, bets %d, worst case %v; want 19, 10, 3, 3, -7",
			u.RaceStake, u.RaceOpenStake, u.RaceProfit, u.RaceBets, u.RaceWorstCase())
	}
	l := book.NewLedger(plan.PeriodPlan)
	for _, b := range bets {
		l.Put(b, now)
	}
	if got := l.Usage(race); got.RaceOpenStake != 10 || got.RaceProfit != 3 {
		t.Errorf("ledger: open %v, profit %v; want 10, 3", got.RaceOpenStake, got.RaceProfit)
	}
}
