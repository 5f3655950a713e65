package limit

import "fmt"

// MaxStakePerRace caps what the bets on one race put at risk together.
var MaxStakePerRace = register(&Kind{
	Key: "max_stake_per_race", Unit: Dollars, Span: PerRace,
	Doc:  "the plan's bets on the bet's race (or sports event) would put more than this at risk together",
	Rank: Rank{Key: 80, Check: 50, Show: 80},
	Refuse: func(v Value, c *Check) string {
		if c.RaceStake+c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_stake_per_race %s on %s: %s at risk on it %s, this bet adds %s (%s)", usd(v.Dollars), c.Race, usd(c.RaceStake), c.Used, usd(c.Risk), c.Basis)
		}
		return ""
	},
	Alone: func(v Value, c *Check) string {
		if c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_stake_per_race %s: this bet alone puts %s at risk on its race (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Use: func(v Value, _ Sums) Use { return Use{Words: usd(v.Dollars) + " at risk per race"} },
	Row: func(v *Value, _ Sums, f Format) Row {
		return Row{Name: "At risk per race", Limit: f.Dollars(v.Dollars)}
	},
})
