package limit

import "fmt"

// TakeProfit ends the period once its settled profit reaches this.
var TakeProfit = register(&Kind{
	Key: "take_profit", Unit: Dollars, Span: PerPeriod, Stop: true, Outcomes: true,
	Doc:  "the period's settled profit has reached this",
	Hint: "write the profit that stops the plan as a positive amount, or leave it out",
	Rank: Rank{Key: 60, Check: 30, Show: 70},
	// Once reached in the period, a stop stays: a later loser does not
	// undo a take-profit.
	Refuse: func(v Value, c *Check) string {
		if c.HighestProfit >= v.Dollars-1e-9 {
			return fmt.Sprintf("take_profit %s: the settled profit%s reached %s (it is %s now), at or above it; no new bet is created",
				usd(v.Dollars), c.In, signedUSD(c.HighestProfit), signedUSD(c.Profit))
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		return Use{Used: s.Profit, Reached: s.HighestProfit >= v.Dollars-1e-9, Brief: "settled profit " + signedUSD(s.Profit),
			Words: fmt.Sprintf("settled profit %s (highest %s) against %s", signedUSD(s.Profit), signedUSD(s.HighestProfit), usd(v.Dollars))}
	},
	Row: func(v *Value, s Sums, f Format) Row {
		return settledRow(s, f, f.Signed(v.Dollars), cents(s.HighestProfit) >= cents(v.Dollars))
	},
})
