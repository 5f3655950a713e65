package limit

import "fmt"

// MaxOpenStake caps exposure: what the period's bets not resulted yet
// have at risk.
var MaxOpenStake = register(&Kind{
	Key: "max_open_stake", Unit: Dollars, Span: PerPeriod, Bounds: true, Outcomes: true,
	Doc:  "the period's bets not resulted yet, plus this one, would have more than this at risk (exposure)",
	Rank: Rank{Key: 70, Check: 80, Show: 30},
	Refuse: func(v Value, c *Check) string {
		if c.OpenStake+c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_open_stake %s%s: %s at risk on bets not resulted yet, this bet adds %s (%s)", usd(v.Dollars), c.In, usd(c.OpenStake), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Alone: func(v Value, c *Check) string {
		if c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_open_stake %s: this bet alone puts %s at risk (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		return Use{Used: s.OpenStake, Reached: s.OpenStake >= v.Dollars-1e-9, Brief: usd(s.OpenStake) + " open",
			Words: fmt.Sprintf("%s open of %s (%s)", usd(s.OpenStake), usd(v.Dollars), room(v.Dollars, s.OpenStake))}
	},
	Row: func(v *Value, s Sums, f Format) Row {
		return Row{Name: "Open (not resulted)", Used: f.Dollars(s.OpenStake - s.Planned), After: f.Dollars(s.OpenStake),
			Limit: f.Dollars(v.Dollars), Over: cents(s.OpenStake) > cents(v.Dollars)}
	},
})
