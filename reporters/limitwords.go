package reporters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
)

// planLimits is the limits table: for each limit, what is used already,
// after this run (a preview's planned creates; a run's report shows the
// same), and the limit. Every amount is money at risk.
func planLimits(r *engine.Result) []limitRow { return limitRows(&r.Limits) }

// accountLimits is the account's limits table, as planLimits, counted
// over every plan sharing the state; nil without an account file.
func accountLimits(r *engine.Result) []limitRow {
	if r.Account == nil {
		return nil
	}
	return limitRows(&r.Account.LimitsSummary)
}

// accountTitle heads the account's limits: the file and its period.
func accountTitle(a *engine.AccountSummary) string {
	return fmt.Sprintf("%s, %s, counted over the plans %s", a.File, a.PeriodTitle(), strings.Join(a.Plans, ", "))
}

func limitRows(l *engine.LimitsSummary) []limitRow {
	limit := func(v *float64) string {
		if v == nil {
			return "none"
		}
		return dollars(*v)
	}
	count := func(v *int) string {
		if v == nil {
			return "none"
		}
		return strconv.Itoa(*v)
	}
	overAmount := func(used float64, v *float64) bool { return v != nil && cents(used) > cents(*v) }
	var rows []limitRow
	for _, p := range l.Periods {
		suffix := ""
		if len(l.Periods) > 1 || p.Period != "" {
			suffix = ", " + p.Words
		}
		rows = append(rows,
			limitRow{"At risk" + suffix, dollars(p.Staked - p.Planned), dollars(p.Staked), limit(l.MaxTotalStake), overAmount(p.Staked, l.MaxTotalStake)},
			limitRow{"Bets created" + suffix, strconv.Itoa(p.Bets - p.PlannedBets), strconv.Itoa(p.Bets), count(l.MaxBets), l.MaxBets != nil && p.Bets > *l.MaxBets})
		if l.MaxOpenStake != nil {
			rows = append(rows, limitRow{"Open (not resulted)" + suffix, dollars(p.OpenStake - p.Planned), dollars(p.OpenStake), limit(l.MaxOpenStake), overAmount(p.OpenStake, l.MaxOpenStake)})
		}
		if l.MaxLoss != nil {
			// The worst case: the settled profit if every open bet lost.
			worst := p.WorstCase()
			rows = append(rows, limitRow{"Worst-case profit" + suffix, signedDollars(worst + p.Planned), signedDollars(worst),
				"not below " + dollars(-*l.MaxLoss), cents(worst) < -cents(*l.MaxLoss)})
		}
		if l.StopLoss != nil || l.TakeProfit != nil {
			var stops []string
			stopped := false
			if l.StopLoss != nil {
				stops = append(stops, dollars(-*l.StopLoss))
				stopped = stopped || cents(p.LowestProfit) <= -cents(*l.StopLoss)
			}
			if l.TakeProfit != nil {
				stops = append(stops, signedDollars(*l.TakeProfit))
				stopped = stopped || cents(p.HighestProfit) >= cents(*l.TakeProfit)
			}
			used := fmt.Sprintf("%s, %d won, %d lost", signedDollars(p.Profit), p.Won, p.Lost)
			if stopped {
				used = "stopped: " + used
			}
			rows = append(rows, limitRow{"Settled profit" + suffix, used, signedDollars(p.Profit), "stops at " + strings.Join(stops, " or "), stopped})
		}
	}
	rows = append(rows, limitRow{Name: "At risk per bet", Limit: limit(l.MaxStakePerBet)})
	if l.MaxStakePerRace != nil {
		rows = append(rows, limitRow{Name: "At risk per race", Limit: limit(l.MaxStakePerRace)})
	}
	if l.MaxBetsPerRace != nil {
		rows = append(rows, limitRow{Name: "Bets per race", Limit: count(l.MaxBetsPerRace)})
	}
	return rows
}

// limitRow is one line of the limits table.
type limitRow struct {
	Name, Used, After, Limit string
	Over                     bool // after this run, the limit is passed
}
