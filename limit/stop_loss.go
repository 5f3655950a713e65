package limit

import "fmt"

// StopLoss ends the period once its settled profit reaches minus this.
var StopLoss = register(&Kind{
	Key: "stop_loss", Unit: Dollars, Span: PerPeriod, Stop: true, Outcomes: true,
	Doc:  "the period's settled profit has reached minus this (a stop-loss; it stays stopped for the period, but bets already open may take the profit lower)",
	Hint: "write the loss that stops the plan as a positive amount (stop_loss: 50 stops at -$50), or leave it out",
	Rank: Rank{Key: 50, Check: 10, Show: 60},
	// Once reached in the period, a stop stays: a later winner does not
	// undo a stop-loss.
	Refuse: func(v Value, c *Check) string {
		if c.LowestProfit <= -v.Dollars+1e-9 {
			return fmt.Sprintf("stop_loss %s: the settled profit%s reached %s (it is %s now), at or below -%s; no new bet is created",
				usd(v.Dollars), c.In, signedUSD(c.LowestProfit), signedUSD(c.Profit), usd(v.Dollars))
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		return Use{Used: s.Profit, Reached: s.LowestProfit <= -v.Dollars+1e-9, Brief: "settled profit " + signedUSD(s.Profit),
			Words: fmt.Sprintf("settled profit %s (lowest %s) against -%s", signedUSD(s.Profit), signedUSD(s.LowestProfit), usd(v.Dollars))}
	},
	Row: func(v *Value, s Sums, f Format) Row {
		return settledRow(s, f, f.Dollars(-v.Dollars), cents(s.LowestProfit) <= -cents(v.Dollars))
	},
})

// settledRow is the stops' line of the limits table: the settled profit,
// and the wins and losses it came from.
func settledRow(s Sums, f Format, limit string, reached bool) Row {
	used := fmt.Sprintf("%s, %d won, %d lost", f.Signed(s.Profit), s.Won, s.Lost)
	if reached {
		used = "stopped: " + used
	}
	return Row{Name: "Settled profit", Used: used, After: f.Signed(s.Profit), Lead: "stops at ", Limit: limit, Over: reached}
}
