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
func (s *startOrder) of(b *book) []*instance {
	if !s.sorted || s.layout != b.layout {
		out := b.snapshot()
		soonestFirst(out, func(in *instance) time.Time { return in.info.Start })
		s.insts, s.layout, s.sorted = out[:len(out):len(out)], b.layout, true
	}
	return s.insts
}

// betsView is the plan's bets as expressions read them (bets), by period
// key, kept while the book's edits stand. Only minutes_to_start moves
// with the clock: a later now re-times a period's view, it does not
// build it again.
type betsView struct {
	edits   int
	built   bool
	periods map[string]*periodBets
}

// periodBets is one period's view: base with minutes_to_start unset, and
// base at now, the time it was last asked at.
type periodBets struct {
	base map[string]any
	now  time.Time
	at   map[string]any
}

// at is the view of period key at now while the book's edits are edits;
// build makes a period's base. The map is shared by the decisions that
// read it: expressions read it, nothing writes it.
func (v *betsView) at(edits int, key string, now time.Time, build func(key string) map[string]any) map[string]any {
	if !v.built || v.edits != edits {
		v.periods, v.edits, v.built = map[string]*periodBets{}, edits, true
	}
	p := v.periods[key]
	if p == nil {
		p = &periodBets{base: build(key)}
		v.periods[key] = p
	}
	if p.at == nil || !p.now.Equal(now) {
		p.at, p.now = timedBets(p.base, now), now
	}
	return p.at
}

// timedBets is base, a bets view, with each bet's minutes_to_start at now.
func timedBets(base map[string]any, now time.Time) map[string]any {
	out := make(map[string]any, len(base))
	for id, v := range base {
		switch x := v.(type) {
		case plan.BetEnv:
			out[id] = timedBet(x, now)
		case []plan.BetEnv:
			l := make([]plan.BetEnv, len(x))
			for i := range x {
				l[i] = timedBet(x[i], now)
			}
			out[id] = l
		default:
			out[id] = v
		}
	}
	return out
}

func timedBet(e plan.BetEnv, now time.Time) plan.BetEnv {
	if !e.Race.Start.IsZero() {
		e.Race.MinutesToStart = e.Race.Start.Sub(now).Minutes()
	}
	return e
}
