package book

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
)

// Usage is what the bets of a scope add up to: a period of the limits (or
// all time), and one race in it. Amounts are dollars to the cent, summed in
// whole cents.
type Usage struct {
	// Period is the key of the period counted ("2026-11-21", "2026-W47";
	// "" for all time).
	Period string
	// Bets counts the bets made (and a preview's planned ones); Open those
	// still to be decided; Settled those resulted with money accepted, of
	// which Won and Lost.
	Bets, Open, Settled, Won, Lost int
	// Staked is what every bet counted put at risk (max_total_stake);
	// OpenStake what the open ones have at risk now.
	Staked, OpenStake float64
	// Profit is the settled profit; LowestProfit and HighestProfit the
	// lowest and highest it ran to as results came in (0 before any).
	Profit, LowestProfit, HighestProfit float64
	// Planned is the part of Staked a preview's creates add, PlannedBets
	// how many they are.
	Planned     float64
	PlannedBets int
	// Requested is what the bets made (not a preview's) requested, their
	// stakes or target profits; PlannedRequested what a preview's would.
	Requested, PlannedRequested float64
	// RaceStake and RaceBets are the at-risk and count of the bets on the
	// race asked about; RaceOpenStake what those not resulted have at risk
	// now, RaceProfit what the settled ones made.
	RaceStake, RaceOpenStake, RaceProfit float64
	RaceBets                             int
	// ByPlan is what each plan put at risk in the period, when the sum
	// was asked by plan.
	ByPlan map[string]float64
}

// WorstCase is the settled profit if every open bet lost what it has at
// risk: what max_loss caps.
func (u Usage) WorstCase() float64 { return RoundCents(u.Profit - u.OpenStake) }

// RaceWorstCase is WorstCase of the bets on the race asked about: what
// they made if every one of them still open lost what it has at risk.
func (u Usage) RaceWorstCase() float64 { return RoundCents(u.RaceProfit - u.RaceOpenStake) }

// Sums is the usage as the limits read it.
func (u Usage) Sums() limit.Sums {
	return limit.Sums{Staked: u.Staked, OpenStake: u.OpenStake, Profit: u.Profit, LowestProfit: u.LowestProfit, HighestProfit: u.HighestProfit,
		Bets: u.Bets, Won: u.Won, Lost: u.Lost, Planned: u.Planned, PlannedBets: u.PlannedBets,
		RaceStake: u.RaceStake, RaceOpenStake: u.RaceOpenStake, RaceProfit: u.RaceProfit, RaceBets: u.RaceBets}
}

// Env is the usage as plan expressions read it (`plan.staked`, …).
func (u Usage) Env() plan.PlanEnv {
	return plan.PlanEnv{Staked: u.Staked, OpenStake: u.OpenStake, Profit: u.Profit, LowestProfit: u.LowestProfit,
		HighestProfit: u.HighestProfit, Bets: u.Bets, Settled: u.Settled, Won: u.Won, Lost: u.Lost}
}

// PeriodKey names the period of a race's meeting day: the day itself (in
// the race's own time zone, as the service gives its start), its ISO week,
// or "" for the whole plan.
func PeriodKey(p plan.Period, start time.Time) string {
	if start.IsZero() {
		return ""
	}
	switch p {
	case plan.PeriodDay:
		return MeetingDate(start)
	case plan.PeriodWeek:
		y, w := start.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	}
	return ""
}

// MeetingDate is the race's meeting day, in the race's own time zone.
func MeetingDate(start time.Time) string {
	if start.IsZero() {
		return ""
	}
	return start.Format("2006-01-02")
}

// SameRace reports whether two bets are on one race of one meeting. A
// sports event is its own "race": per-race limits hold for its bets.
func SameRace(a, b Race) bool {
	if a.Event != "" || b.Event != "" {
		return a.Event == b.Event
	}
	return strings.EqualFold(a.Code, b.Code) && a.EventNumber == b.EventNumber &&
		plan.FoldVenue(a.Venue) == plan.FoldVenue(b.Venue) && MeetingDate(a.Start) == MeetingDate(b.Start)
}

// named reports whether r names a race the per-race sums can count.
func (r Race) named() bool { return r.Venue != "" || r.Event != "" }

// Key names the race as SameRace compares races: bets on one race have
// one key.
func (r Race) Key() string { return r.key() }

// key names the race as SameRace compares races.
func (r Race) key() string {
	if r.Event != "" {
		return "event|" + r.Event
	}
	return plan.FoldVenue(r.Venue) + "|" + strings.ToLower(r.Code) + "|" + strconv.Itoa(r.EventNumber) + "|" + MeetingDate(r.Start)
}

// Sum adds up bets in the period of race (all of them with period "plan")
// and on race itself: the definition every sum keeps to (a Ledger keeps the
// same sums running). A bet whose race has no known start counts in every
// period: it may be today's. byPlan asks for what each plan put at risk.
func Sum(bets []Bet, p plan.Period, race Race, byPlan bool) Usage {
	key := PeriodKey(p, race.Start)
	var a sums
	var rs raceSums
	var plans map[string]int64
	if byPlan {
		plans = map[string]int64{}
	}
	for i := range bets {
		b := &bets[i]
		if key != "" && !b.race.Start.IsZero() && PeriodKey(p, b.race.Start) != key {
			continue
		}
		a.add(b, 1)
		if plans != nil {
			plans[b.plan] = addCents(plans[b.plan], cents(b.risk.Amount))
		}
		if race.named() && SameRace(b.race, race) {
			rs.add(b, 1)
		}
	}
	u := a.usage(key)
	rs.fill(&u)
	if plans != nil {
		u.ByPlan = make(map[string]float64, len(plans))
		for n, c := range plans {
			u.ByPlan[n] = dollars(c)
		}
	}
	return u
}

// sums are the running totals of some bets, in cents.
type sums struct {
	bets, open, settledN, won, lost int
	staked, openStake, profit       int64
	planned                         int64
	plannedBets                     int
	requested, plannedRequested     int64
	settled                         []Bet // to order the profit's lowest and highest
	rangeDirty                      bool
	lo, hi                          int64
}

func (a *sums) add(b *Bet, sign int) {
	c := cents(b.risk.Amount)
	if sign < 0 {
		c = -c
	}
	a.bets += sign
	a.staked = addCents(a.staked, c)
	if b.IsOpen() {
		a.open += sign
		a.openStake = addCents(a.openStake, c)
	}
	r := cents(b.requested)
	if sign < 0 {
		r = -r
	}
	if b.stage == Planned {
		a.planned = addCents(a.planned, c)
		a.plannedBets += sign
		a.plannedRequested = addCents(a.plannedRequested, r)
	} else {
		a.requested = addCents(a.requested, r)
	}
	if b.stage != Settled {
		return
	}
	p := cents(b.profit)
	if sign < 0 {
		p = -p
	}
	a.settledN += sign
	a.profit = addCents(a.profit, p)
	switch {
	case b.profit > 0:
		a.won += sign
	case b.profit < 0:
		a.lost += sign
	}
	a.rangeDirty = true
	if sign > 0 {
		a.settled = append(a.settled, *b)
		return
	}
	for i := range a.settled {
		if a.settled[i].label == b.label && a.settled[i].plan == b.plan {
			a.settled = append(a.settled[:i], a.settled[i+1:]...)
			break
		}
	}
}

// addSums adds b's totals to a (not its settled bets: see usage).
func (a *sums) addSums(b *sums) {
	a.bets += b.bets
	a.open += b.open
	a.settledN += b.settledN
	a.won += b.won
	a.lost += b.lost
	a.staked = addCents(a.staked, b.staked)
	a.openStake = addCents(a.openStake, b.openStake)
	a.profit = addCents(a.profit, b.profit)
	a.planned = addCents(a.planned, b.planned)
	a.plannedBets += b.plannedBets
	a.requested = addCents(a.requested, b.requested)
	a.plannedRequested = addCents(a.plannedRequested, b.plannedRequested)
}

// profitRange is the settled profit at its lowest and highest as results
// came in (0 before any), in cents.
func (a *sums) profitRange() (lo, hi int64) {
	if !a.rangeDirty {
		return a.lo, a.hi
	}
	a.lo, a.hi = profitRange(a.settled)
	a.rangeDirty = false
	return a.lo, a.hi
}

func profitRange(settled []Bet) (lo, hi int64) {
	sort.SliceStable(settled, func(i, j int) bool { return settled[i].resultAt.Before(settled[j].resultAt) })
	var running int64
	for i := range settled {
		running = addCents(running, cents(settled[i].profit))
		lo, hi = min(lo, running), max(hi, running)
	}
	return lo, hi
}

func (a *sums) usage(key string) Usage {
	lo, hi := a.profitRange()
	return Usage{Period: key, Bets: a.bets, Open: a.open, Settled: a.settledN, Won: a.won, Lost: a.lost,
		Staked: dollars(a.staked), OpenStake: dollars(a.openStake), Profit: dollars(a.profit),
		LowestProfit: dollars(lo), HighestProfit: dollars(hi), Planned: dollars(a.planned), PlannedBets: a.plannedBets,
		Requested: dollars(a.requested), PlannedRequested: dollars(a.plannedRequested)}
}

// raceSums are the running totals of the bets on one race, in cents.
type raceSums struct {
	stake, openStake, profit int64
	bets                     int
}

func (r *raceSums) add(b *Bet, sign int) {
	c := cents(b.risk.Amount)
	if sign < 0 {
		c = -c
	}
	r.stake = addCents(r.stake, c)
	r.bets += sign
	if b.IsOpen() {
		r.openStake = addCents(r.openStake, c)
	}
	if b.stage == Settled {
		p := cents(b.profit)
		if sign < 0 {
			p = -p
		}
		r.profit = addCents(r.profit, p)
	}
}

// fill writes the race's sums into u.
func (r *raceSums) fill(u *Usage) {
	u.RaceStake, u.RaceOpenStake, u.RaceProfit, u.RaceBets = dollars(r.stake), dollars(r.openStake), dollars(r.profit), r.bets
}

// maxCents bounds a sum: past it a sum holds at the bound rather than
// wrapping round to an absurd figure of the other sign. Amounts are range
// checked where they enter (one bet is at most plan.MaxBetAmount), so no
// real sum comes near it.
const maxCents = math.MaxInt64 / 2

// cents is v dollars in whole cents (bet.Cents, the one conversion); a
// value that is not money holds at the bound, for the limits to refuse.
func cents(v float64) int64 {
	c, err := bet.Cents(v)
	switch {
	case err == nil:
		return c
	case v < 0:
		return -maxCents
	}
	return maxCents
}

// addCents adds two sums of cents, holding at the bound.
func addCents(a, b int64) int64 {
	s, ok := AddCents(a, b)
	switch {
	case !ok && a > 0:
		return maxCents
	case !ok:
		return -maxCents
	case s > maxCents:
		return maxCents
	case s < -maxCents:
		return -maxCents
	}
	return s
}

// AddCents is a + b in cents, or false when the sum does not fit: the one
// addition of money every sum of betplan makes (the book's, history's).
func AddCents(a, b int64) (int64, bool) { return bet.AddCents(a, b) }

func dollars(c int64) float64 { return float64(c) / 100 }

// RoundCents rounds v to whole cents (bet.RoundCents).
func RoundCents(v float64) float64 { return bet.RoundCents(v) }

func usd(v float64) string { return fmt.Sprintf("$%.2f", v) }

// Plus is what u and v add up to together: two sums of bets apart (the
// bets committed, and the certain bets held to the limits with them).
// The lowest and highest profit are u's, moved by v's settled profit.
func (u Usage) Plus(v Usage) Usage {
	add := func(a, b float64) float64 { return dollars(addCents(cents(a), cents(b))) }
	u.Bets += v.Bets
	u.Open += v.Open
	u.Settled += v.Settled
	u.Won += v.Won
	u.Lost += v.Lost
	u.Staked = add(u.Staked, v.Staked)
	u.OpenStake = add(u.OpenStake, v.OpenStake)
	u.Profit = add(u.Profit, v.Profit)
	u.LowestProfit = min(u.LowestProfit, add(u.LowestProfit, v.LowestProfit))
	u.HighestProfit = max(u.HighestProfit, add(u.HighestProfit, v.HighestProfit))
	u.Planned = add(u.Planned, v.Planned)
	u.PlannedBets += v.PlannedBets
	u.Requested = add(u.Requested, v.Requested)
	u.PlannedRequested = add(u.PlannedRequested, v.PlannedRequested)
	u.RaceStake = add(u.RaceStake, v.RaceStake)
	u.RaceOpenStake = add(u.RaceOpenStake, v.RaceOpenStake)
	u.RaceProfit = add(u.RaceProfit, v.RaceProfit)
	u.RaceBets += v.RaceBets
	return u
}

// Add is a + b dollars, added in whole cents as every sum of the book is.
func Add(a, b float64) float64 { return dollars(addCents(cents(a), cents(b))) }

// Total is a running sum of money in whole cents, the one way a view adds
// amounts the book did not sum itself (a report's totals of its rows, a
// session's accepted and profit): it holds at a bound rather than
// wrapping round, and two views adding the same amounts agree to the cent.
type Total struct{ c int64 }

// Add adds v dollars.
func (t *Total) Add(v float64) { t.c = addCents(t.c, cents(v)) }

// AddCents adds c whole cents.
func (t *Total) AddCents(c int64) { t.c = addCents(t.c, c) }

// Dollars is the sum in dollars.
func (t Total) Dollars() float64 { return dollars(t.c) }

// Cents is the sum in whole cents.
func (t Total) Cents() int64 { return t.c }
