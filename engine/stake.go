package engine

import (
	"fmt"
	"sort"
	"time"

	"github.com/betplan/betplan/plan"
)

// What the money counts: a stake, the period it falls in and what the
// stakes of a period add up to. The money (ledger.go) and its running
// sums (ledgercache.go) both build on these.

// exposure is what one bet may put at risk, and how that was worked out
// (risk.go works it out).
type exposure struct {
	Amount float64
	Basis  string
}

// stake is one bet the plan committed (or a preview plans).
type stake struct {
	label     string
	betID     string
	race      RaceInfo
	requested float64
	risk      exposure // at risk now: what the sessions accepted, or may still place
	open      bool     // not resulted (nor ended without a placement)
	settled   bool     // resulted with money accepted
	profit    float64  // settled profit
	resultAt  time.Time
	planned   bool // a preview's create, not committed yet
	canceled  bool // cancelled: at risk only what sessions placed before
}

// periodKey names the period of a race's meeting day: the day itself
// (in the race's own time zone, as the service gives its start), its ISO
// week, or "" for the whole plan.
func periodKey(p plan.Period, start time.Time) string {
	if start.IsZero() {
		return ""
	}
	switch p {
	case plan.PeriodDay:
		return meetingDate(start)
	case plan.PeriodWeek:
		y, w := start.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	}
	return ""
}

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

// usage is what the stakes of one period, and of one race, add up to.
type usage struct {
	period string
	totals plan.PlanEnv
	// planned is the part of totals.Staked a preview would add.
	planned     float64
	plannedBets int
	raceStake   float64
	raceBets    int
}

// profitRange is the settled profit at its lowest and highest as results
// came in (0 before any).
func profitRange(settled []stake) (lo, hi float64) {
	sort.SliceStable(settled, func(i, j int) bool { return settled[i].resultAt.Before(settled[j].resultAt) })
	running := 0.0
	for _, s := range settled {
		running += s.profit
		lo = min(lo, roundCents(running))
		hi = max(hi, roundCents(running))
	}
	return lo, hi
}
