package book

import (
	"time"

	"github.com/betplan/betplan/plan"
)

// A plan's limits are checked before every create, and a burst creates
// many bets on one tick: adding every bet up each time would cost a
// 1,000-bet plan a million additions. A Ledger keeps Sum's sums running
// instead, bet by bet as they are put in, replaced or taken out.

// Ledger is the running sums of a plan's (or an account's) bets, by
// period of p and by race. Its answers are Sum's over the bets it holds.
type Ledger struct {
	period  plan.Period
	byLabel map[string]Bet
	periods map[string]*sums // dated bets by period key
	undated sums             // bets with no known start: they count in every period
	all     sums
	races   map[string]*raceSums
	// nextChange is when a race of an open bet goes off: what it counts
	// may change then (what may be placed becomes what was accepted).
	nextChange time.Time
}

// NewLedger is an empty ledger counting periods of p.
func NewLedger(p plan.Period) *Ledger {
	return &Ledger{period: p, byLabel: map[string]Bet{}, periods: map[string]*sums{}, races: map[string]*raceSums{}}
}

// Put puts b in, in place of what the ledger held of its label (a planned
// bet, which has no label of its own to replace, is added).
func (l *Ledger) Put(b Bet, now time.Time) {
	if b.stage != Planned {
		if old, ok := l.byLabel[b.label]; ok {
			l.apply(&old, -1)
		}
		l.byLabel[b.label] = b
	}
	l.apply(&b, 1)
	if start := b.race.Start; b.IsOpen() && start.After(now) && (l.nextChange.IsZero() || start.Before(l.nextChange)) {
		l.nextChange = start
	}
}

// Remove takes label's bet out, if the ledger holds it.
func (l *Ledger) Remove(label string) {
	if old, ok := l.byLabel[label]; ok {
		l.apply(&old, -1)
		delete(l.byLabel, label)
	}
}

// Holds returns the bet the ledger holds for label.
func (l *Ledger) Holds(label string) (Bet, bool) {
	b, ok := l.byLabel[label]
	return b, ok
}

// NextChange is when a race of an open bet goes off, after which its
// sums must be counted again (zero: none to come).
func (l *Ledger) NextChange() time.Time { return l.nextChange }

func (l *Ledger) apply(b *Bet, sign int) {
	l.all.add(b, sign)
	if b.race.Start.IsZero() {
		l.undated.add(b, sign)
	} else {
		k := PeriodKey(l.period, b.race.Start)
		a := l.periods[k]
		if a == nil {
			a = &sums{}
			l.periods[k] = a
		}
		a.add(b, sign)
	}
	if b.race.named() {
		k := b.race.key()
		rs := l.races[k]
		if rs == nil {
			rs = &raceSums{}
			l.races[k] = rs
		}
		rs.add(b, sign)
	}
}

// Usage is what the ledger's bets add up to in the period of race, and on
// race itself: Sum's answer.
func (l *Ledger) Usage(race Race) Usage {
	key := PeriodKey(l.period, race.Start)
	var u Usage
	switch {
	case key == "":
		u = l.all.usage("")
	case len(l.undated.settled) == 0:
		var a sums
		if ps := l.periods[key]; ps != nil {
			a = *ps
			a.lo, a.hi = ps.profitRange()
			a.rangeDirty = false
		}
		a.addSums(&l.undated)
		u = a.usage(key)
	default: // rare: a settled bet whose race start is unknown
		var a sums
		if ps := l.periods[key]; ps != nil {
			a.addSums(ps)
			a.settled = append(a.settled, ps.settled...)
		}
		a.addSums(&l.undated)
		a.settled = append(a.settled, l.undated.settled...)
		a.rangeDirty = true
		u = a.usage(key)
	}
	if race.named() {
		if rs := l.races[race.key()]; rs != nil {
			rs.fill(&u)
		}
	}
	return u
}

// Bets are the bets the ledger holds under a label (not the planned
// ones), in no order.
func (l *Ledger) Bets() []Bet {
	out := make([]Bet, 0, len(l.byLabel))
	for _, b := range l.byLabel {
		out = append(out, b)
	}
	return out
}

// Len is how many bets the ledger holds under a label.
func (l *Ledger) Len() int { return len(l.byLabel) }
