package limit

import "fmt"

// MaxLoss caps the period's worst case: its settled profit if every open
// bet, and this one, lost.
var MaxLoss = register(&Kind{
	Key: "max_loss", Unit: Dollars, Span: PerPeriod, Bounds: true, Outcomes: true,
	Doc:  "the period's worst case would go below minus this: its settled profit, minus everything its open bets have at risk, minus this bet (a loss cap: bets open at once cannot take the period past it)",
	Hint: "write the most the period may lose as a positive amount (max_loss: 50 never risks going below -$50), or leave it out",
	Rank: Rank{Key: 40, Check: 20, Show: 50},
	// A loss cap holds before the results: every open bet, and this one,
	// may lose all they have at risk.
	Refuse: func(v Value, c *Check) string {
		if worst := c.WorstCase() - c.Risk; worst < -v.Dollars-1e-9 {
			return fmt.Sprintf("max_loss %s%s: if every open bet and this one lost, the profit would be %s (settled %s, %s open at risk, this bet %s (%s)), below -%s",
				usd(v.Dollars), c.In, signedUSD(roundCents(worst)), signedUSD(c.Profit), usd(c.OpenStake), usd(c.Risk), c.Basis, usd(v.Dollars))
		}
		return ""
	},
	Alone: func(v Value, c *Check) string {
		if c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_loss %s: this bet alone may lose %s (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		loss := -s.WorstCase()
		return Use{Used: loss, Reached: loss >= v.Dollars-1e-9, Brief: "worst case " + signedUSD(s.WorstCase()),
			Words: fmt.Sprintf("worst case %s if every open bet lost (settled %s, %s open) against -%s", signedUSD(-loss), signedUSD(s.Profit), usd(s.OpenStake), usd(v.Dollars))}
	},
	Row: func(v *Value, s Sums, f Format) Row {
		worst := s.WorstCase()
		return Row{Name: "Worst-case profit", Used: f.Signed(worst + s.Planned), After: f.Signed(worst),
			Lead: "not below ", Limit: f.Dollars(-v.Dollars), Over: cents(worst) < -cents(v.Dollars)}
	},
})
