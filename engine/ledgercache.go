package engine

import (
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/plan"
)

// The limits are checked before every create, and a burst creates many
// bets on one tick: adding up every committed bet each time would cost a
// 1,000-bet plan a million stakes. The ledger keeps the sums instead, and
// brings them up to date from what changed: the journal's labels written
// since (creates), a preview's planned creates. What the service showed
// (a poll), a race going off or an instance found later changes what many
// bets count, so those rebuild the sums from the stakes (ledger.go), the
// one definition both follow.

// periodSums are the totals of the stakes of one period (or of all).
type periodSums struct {
	t           plan.PlanEnv
	planned     float64
	plannedBets int
	settled     []stake
	lo, hi      float64 // profitRange of settled, once finished
}

func (a *periodSums) add(s *stake, sign int) {
	f := float64(sign)
	a.t.Bets += sign
	a.t.Staked += f * s.risk.Amount
	if s.open {
		a.t.OpenStake += f * s.risk.Amount
	}
	if s.settled {
		a.t.Settled += sign
		a.t.Profit += f * s.profit
		switch {
		case s.profit > 0:
			a.t.Won += sign
		case s.profit < 0:
			a.t.Lost += sign
		}
		if sign > 0 {
			a.settled = append(a.settled, *s)
		}
	}
	if s.planned {
		a.planned += f * s.risk.Amount
		a.plannedBets += sign
	}
}

func (a *periodSums) finish() {
	a.t.Staked = roundCents(a.t.Staked)
	a.t.OpenStake = roundCents(a.t.OpenStake)
	a.t.Profit = roundCents(a.t.Profit)
}

type raceSums struct {
	stake float64
	bets  int
}

// ledger is the running sums of the stakes, and what they were built
// from, to tell when they are stale.
type ledger struct {
	serial     int64     // the journal's last entry counted
	gen        int       // r.book.version when built
	planned    int       // r.planned counted
	nextChange time.Time // a race of an open stake goes off then: what it counts changes
	byLabel    map[string]stake
	periods    map[string]*periodSums // dated stakes by period key
	undated    periodSums             // stakes with no known start: they count in every period
	all        periodSums
	races      map[string]*raceSums
	raceKeys   map[RaceInfo]string
}

// raceSumKey names one race of one meeting, as sameRaceInfo compares
// them. Keys are kept: a plan's bets are on few races.
func (l *ledger) raceSumKey(ri RaceInfo) string {
	if ri.Event != nil {
		return "event|" + ri.Event.ID
	}
	if k, ok := l.raceKeys[ri]; ok {
		return k
	}
	k := plan.FoldVenue(ri.Venue) + "|" + strings.ToLower(ri.Code) + "|" + strconv.Itoa(ri.EventNumber) + "|" + meetingDate(ri.Start)
	if l.raceKeys == nil {
		l.raceKeys = map[RaceInfo]string{}
	}
	l.raceKeys[ri] = k
	return k
}

func (l *ledger) apply(p plan.Period, s *stake, sign int) {
	l.all.add(s, sign)
	if s.race.Start.IsZero() {
		l.undated.add(s, sign)
	} else {
		k := periodKey(p, s.race.Start)
		a := l.periods[k]
		if a == nil {
			a = &periodSums{}
			l.periods[k] = a
		}
		a.add(s, sign)
	}
	if s.race.Venue != "" || (s.race.Event != nil && s.race.Event.ID != "") {
		k := l.raceSumKey(s.race)
		rs := l.races[k]
		if rs == nil {
			rs = &raceSums{}
			l.races[k] = rs
		}
		rs.stake += float64(sign) * s.risk.Amount
		rs.bets += sign
	}
}

// watch remembers when a stake's race goes off, after which it counts
// what was accepted rather than what may be placed.
func (l *ledger) watch(s *stake, now time.Time) {
	if start := s.race.Start; s.open && start.After(now) && (l.nextChange.IsZero() || start.Before(l.nextChange)) {
		l.nextChange = start
	}
}

// usage is what the ledger's stakes add up to in the period of race, and
// on race itself.
func (l *ledger) usage(p plan.Period, race RaceInfo) usage {
	key := periodKey(p, race.Start)
	var a periodSums
	var settled []stake
	if key == "" {
		a = l.all
		a.settled = nil
		settled = l.all.settled
	} else {
		if ps := l.periods[key]; ps != nil {
			a = *ps
			settled = ps.settled
		}
		a.settled = nil
		a.addSums(&l.undated)
		if len(l.undated.settled) > 0 {
			settled = append(append([]stake(nil), settled...), l.undated.settled...)
		}
	}
	a.finish()
	u := usage{period: key, totals: a.t, planned: roundCents(a.planned), plannedBets: a.plannedBets}
	switch {
	case key == "":
		u.totals.LowestProfit, u.totals.HighestProfit = l.all.lo, l.all.hi
	case len(l.undated.settled) == 0:
		if ps := l.periods[key]; ps != nil {
			u.totals.LowestProfit, u.totals.HighestProfit = ps.lo, ps.hi
		}
	default: // rare: a settled bet whose race start is unknown
		u.totals.LowestProfit, u.totals.HighestProfit = profitRange(append([]stake(nil), settled...))
	}
	if race.Venue != "" || (race.Event != nil && race.Event.ID != "") {
		if rs := l.races[l.raceSumKey(race)]; rs != nil {
			u.raceStake, u.raceBets = roundCents(rs.stake), rs.bets
		}
	}
	return u
}

func (a *periodSums) addSums(b *periodSums) {
	a.t.Bets += b.t.Bets
	a.t.Staked += b.t.Staked
	a.t.OpenStake += b.t.OpenStake
	a.t.Profit += b.t.Profit
	a.t.Settled += b.t.Settled
	a.t.Won += b.t.Won
	a.t.Lost += b.t.Lost
	a.planned += b.planned
	a.plannedBets += b.plannedBets
}
