package limit

import "fmt"

// MaxTotalStake caps what the period's bets put at risk together.
var MaxTotalStake = register(&Kind{
	Key: "max_total_stake", Unit: Dollars, Span: PerPeriod, Bounds: true, Always: true,
	Doc:  "the period's bets would put more than this at risk together",
	Rank: Rank{Key: 20, Check: 70, Show: 20},
	Refuse: func(v Value, c *Check) string {
		if c.Staked+c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_total_stake %s%s: %s at risk %s, this bet adds %s (%s)", usd(v.Dollars), c.In, usd(c.Staked), c.Used, usd(c.Risk), c.Basis)
		}
		return ""
	},
	Alone: func(v Value, c *Check) string {
		if c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_total_stake %s: this bet alone puts %s at risk (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		return Use{Used: s.Staked, Reached: s.Staked >= v.Dollars-1e-9, Brief: usd(s.Staked) + " used",
			Words: fmt.Sprintf("%s at risk of %s (%s)", usd(s.Staked), usd(v.Dollars), room(v.Dollars, s.Staked))}
	},
	Row: func(v *Value, s Sums, f Format) Row {
		return Row{Name: "At risk", Used: f.Dollars(s.Staked - s.Planned), After: f.Dollars(s.Staked),
			Limit: limitOr(v, func(v Value) string { return f.Dollars(v.Dollars) }),
			Over:  v != nil && cents(s.Staked) > cents(v.Dollars)}
	},
})
