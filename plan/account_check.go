package plan

import (
	"fmt"

	"github.com/betplan/betplan/limit"
)

// CheckAccountLimits holds the plan's amounts known offline (literals,
// and expressions of the plan's vars) to the limits of the account file
// named account, as checkBetRisk and checkStaticLimits hold them to the
// plan's own: a bet that alone breaks the account's max_stake_per_bet or
// max_loss (betCaps), a lay with no odds cap under its money limits, and
// the bet that takes the bets certain to be created past its
// max_total_stake, max_open_stake or max_bets, are errors at that bet's
// amount (its line for max_bets and the lay). The account's limits count
// every plan of the account together, so what one plan alone is certain
// to break, the run refuses whatever the others do. Under the account's
// period day or week the certain bets may fall on different days: a
// total limit they pass is a warning naming that condition, the run
// deciding. Amounts known only at run time stay the run's to check.
func CheckAccountLimits(p *Plan, account string, l Limits) Diagnostics {
	var d Diagnostics
	at := func(b *Bet, sp Span, format string, args ...any) {
		x := Diagnostic{Severity: SeverityError, Filename: p.Filename, Summary: fmt.Sprintf(format, args...)}
		x.Line, x.Column, x.EndLine, x.EndColumn = sp.Line, sp.Column, sp.EndLine, sp.EndColumn
		if x.Line == 0 {
			x.Line, x.Column = b.Line, b.Column
		}
		d = append(d, x)
	}
	limitOf := func(k *limit.Kind) string { return account + " limits." + k.Key }
	for _, b := range p.Bets {
		name := "bet " + b.ID
		if b.LayWithoutCap() && l.CapsMoney() {
			at(b, Span{Line: b.Line, Column: b.Column}, "%s", layWithoutCapWords(name, b, l, account+" limits."))
		}
		a := b.amount()
		r, known := b.KnownRisk()
		if !known || a == nil || a.Value <= 0 {
			continue
		}
		if !r.Bounded {
			if most, ok := l.Set.Get(limit.MaxStakePerBet); ok && !r.Lay && r.PerSession > most.Dollars+1e-9 {
				at(b, b.AmountAt, "%s is Fixed Profit without check_odds: until the sessions place it the run counts its target_profit %s as the stake, above %s (%s), so the run would refuse it; set options.check_odds and options.odds to bound the stake",
					name, money(a.Value), limitOf(limit.MaxStakePerBet), money(most.Dollars))
			}
			continue
		}
		if msg := overBetCaps(name, b, a, r, l, account+" limits."); msg != "" {
			at(b, b.AmountAt, "%s", msg)
		}
	}
	// The bets certain to be created, in plan order, each counting the
	// ones before it: the run checks them so before creating any, and
	// refuses the plan when one breaks a limit (certainAccountRefusal in
	// the engine). Each limit is named once, at the bet that passes it.
	var all certainSum
	var total, open, count bool
	maxTotal, totalSet := l.Set.Get(limit.MaxTotalStake)
	maxOpen, openSet := l.Set.Get(limit.MaxOpenStake)
	maxBets, betsSet := l.Set.Get(limit.MaxBets)
	refuse := "the run would refuse the plan before creating any bet, whatever the account's other plans do; raise the account's limit or remove a bet"
	report := at
	if c := onePeriod(l.Period); c != "" {
		// The bets may fall on different days: the run's check, which
		// knows them, decides (checkStaticLimits).
		refuse = c + ", the run refuses the plan before creating any bet, whatever the account's other plans do; raise the account's limit or remove a bet"
		report = func(b *Bet, sp Span, format string, args ...any) {
			at(b, sp, format, args...)
			d[len(d)-1].Severity = SeverityWarning
		}
	}
	for _, b := range p.Bets {
		if !b.Certain() {
			continue
		}
		r, _ := b.KnownRisk()
		all.add(b.ID, r)
		sum := all.total()
		atRisk := "at risk at least"
		if len(all.unbounded) > 0 {
			atRisk = "at risk as the run counts it (" + CutList(all.unbounded, idsShown) + ": Fixed Profit without check_odds, counted at the target profit until placed)"
		}
		if totalSet && !total && sum > maxTotal.Dollars+1e-9 {
			total = true
			report(b, b.AmountAt, "bet %s takes %s to $%s %s, above %s (%s): %s",
				b.ID, all.words(), money(sum), atRisk, limitOf(limit.MaxTotalStake), "$"+money(maxTotal.Dollars), refuse)
		}
		if openSet && !open && sum > maxOpen.Dollars+1e-9 {
			open = true
			report(b, b.AmountAt, "bet %s takes %s, open together, to $%s %s, above %s (%s): %s",
				b.ID, all.words(), money(sum), atRisk, limitOf(limit.MaxOpenStake), "$"+money(maxOpen.Dollars), refuse)
		}
		if betsSet && !count && len(all.ids) > maxBets.Count {
			count = true
			report(b, Span{Line: b.Line, Column: b.Column}, "bet %s is bet %d of %s, above %s (%d): %s",
				b.ID, len(all.ids), all.words(), limitOf(limit.MaxBets), maxBets.Count, refuse)
		}
	}
	sortDiagnostics(d)
	return d
}

// amountWords is an amount as a message shows it: "30" for a literal,
// "vars.unit * 3 = 30" for an expression of vars.
func amountWords(a *Amount) string {
	if a.Expr != nil {
		return a.Expr.Source + " = " + money(a.Value)
	}
	return money(a.Value)
}
