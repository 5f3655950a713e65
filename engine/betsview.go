package engine

import (
	"time"

	"github.com/betplan/betplan/plan"
)

// A tick decides every waiting bet, and a plan whose expressions read
// plan or bets gives each decision every bet's outcome: built afresh for
// each, a tick would cost the square of the bets. The views below are
// built once and kept while the book stands still (its edits and layout
// counts, book.go); whatever a decision changes moves them, so the next
// decision of the same tick reads it.

// startOrder is the book's bets soonest race first (byStart), sorted
// once while the book's layout stands.
type startOrder struct {
	insts  []*instance
	layout int
	sorted bool
}

// of is b's bets by start. A new order is a new slice: one handed out
// before (a tick going through its bets) stays as it was.
func (s *startOrder) of(b *betBook) []*instance {
	if !s.sorted || s.layout != b.layout {
		out := b.snapshot()
		soonestFirst(out, func(in *instance) time.Time { return in.info.Start })
		s.insts, s.layout, s.sorted = out[:len(out):len(out)], b.layout, true
	}
	return s.insts
}

// betsView is the plan's bets as expressions read them (bets), by period
// key, kept while the book's edits stand. Only minutes_to_start moves
// with the clock, which the wall clock does between any two decisions:
// a later now re-times a period's view in place, it neither builds nor
// copies it.
type betsView struct {
	edits   int
	built   bool
	periods map[string]*periodBets
}

// periodBets is one period's view, timed at now. A bet on one race is a
// *plan.BetEnv, a for_each_race bet a []plan.BetEnv: both re-timed in
// place.
type periodBets struct {
	bets map[string]any
	now  time.Time
}

// at is the view of period key at now while the book's edits are edits;
// build makes a period's view. The map is shared by the decisions that
// read it, each in turn: expressions read it, nothing else writes it,
// and the next decision's now re-times what an earlier one was given.
func (v *betsView) at(edits int, key string, now time.Time, build func(key string) map[string]any) map[string]any {
	if !v.built || v.edits != edits {
		v.periods, v.edits, v.built = map[string]*periodBets{}, edits, true
	}
	p := v.periods[key]
	if p == nil {
		p = &periodBets{bets: build(key)}
		p.retime(now)
		v.periods[key] = p
	} else if !p.now.Equal(now) {
		p.retime(now)
	}
	return p.bets
}

// retime sets each bet's minutes_to_start at now.
func (p *periodBets) retime(now time.Time) {
	p.now = now
	for _, v := range p.bets {
		switch x := v.(type) {
		case *plan.BetEnv:
			retimeBet(x, now)
		case []plan.BetEnv:
			for i := range x {
				retimeBet(&x[i], now)
			}
		}
	}
}

func retimeBet(e *plan.BetEnv, now time.Time) {
	if !e.Race.Start.IsZero() {
		e.Race.MinutesToStart = e.Race.Start.Sub(now).Minutes()
	}
}
