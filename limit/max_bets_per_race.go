package limit

import (
	"fmt"
	"strconv"
)

// MaxBetsPerRace caps how many bets one race has.
var MaxBetsPerRace = register(&Kind{
	Key: "max_bets_per_race", Unit: Bets, Span: PerRace,
	Doc:  "the race (or sports event) has this many of the plan's bets already",
	Rank: Rank{Key: 90, Check: 60, Show: 90},
	Refuse: func(v Value, c *Check) string {
		if c.RaceBets+1 > v.Count {
			return fmt.Sprintf("max_bets_per_race %d on %s: %d %s on it %s", v.Count, c.Race, c.RaceBets, plural(c.RaceBets, "bet", "bets"), c.Used)
		}
		return ""
	},
	Use: func(v Value, _ Sums) Use {
		return Use{Words: fmt.Sprintf("%d %s per race", v.Count, plural(v.Count, "bet", "bets"))}
	},
	Row: func(v *Value, _ Sums, _ Format) Row {
		return Row{Name: "Bets per race", Limit: strconv.Itoa(v.Count)}
	},
})
