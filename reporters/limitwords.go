package reporters

import (
	"fmt"
	"slices"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/limit"
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

// limitRows are the lines of a limits table, each from its limit kind
// (package limit): for each period, the lines every report has (what is at
// risk, the bets created) then those of the period's other limits set;
// then the limits of each bet and each race.
func limitRows(l *engine.LimitsSummary) []limitRow {
	f := limit.Format{Dollars: dollars, Signed: signedDollars}
	rowsOf := func(pick func(*limit.Kind) bool, s limit.Sums) []limit.Row {
		var rows []limit.Row
		for _, k := range limit.Shown() {
			if !pick(k) {
				continue
			}
			if v, ok := l.Set.Get(k); ok {
				rows = limit.Merge(rows, k.Row(&v, s, f))
			} else if k.Always {
				rows = limit.Merge(rows, k.Row(nil, s, f))
			}
		}
		return rows
	}
	var rows []limitRow
	for _, p := range l.Periods {
		suffix := ""
		if len(l.Periods) > 1 || p.Period != "" {
			suffix = ", " + p.Words
		}
		s := p.Sums()
		always := rowsOf(func(k *limit.Kind) bool { return k.Span == limit.PerPeriod && k.Always }, s)
		others := rowsOf(func(k *limit.Kind) bool { return k.Span == limit.PerPeriod && !k.Always }, s)
		for _, r := range slices.Concat(always, others) {
			r.Name += suffix
			rows = append(rows, newLimitRow(r))
		}
	}
	for _, r := range rowsOf(func(k *limit.Kind) bool { return k.Span != limit.PerPeriod }, limit.Sums{}) {
		rows = append(rows, newLimitRow(r))
	}
	return rows
}

func newLimitRow(r limit.Row) limitRow {
	return limitRow{Name: r.Name, Used: r.Used, After: r.After, Limit: r.Lead + r.Limit, Over: r.Over}
}

// limitRow is one line of the limits table.
type limitRow struct {
	Name, Used, After, Limit string
	Over                     bool // after this run, the limit is passed
}
