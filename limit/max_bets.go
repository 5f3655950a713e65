package limit

import (
	"fmt"
	"strconv"
)

// MaxBets caps how many bets the period has.
var MaxBets = register(&Kind{
	Key: "max_bets", Unit: Bets, Span: PerPeriod, Always: true,
	Doc:  "the period has this many of the plan's bets already",
	Rank: Rank{Key: 30, Check: 90, Show: 40},
	Refuse: func(v Value, c *Check) string {
		if c.Bets+1 > v.Count {
			return fmt.Sprintf("max_bets %d%s: %d %s %s", v.Count, c.In, c.Bets, plural(c.Bets, "bet", "bets"), c.Used)
		}
		return ""
	},
	Use: func(v Value, s Sums) Use {
		return Use{Used: float64(s.Bets), Reached: s.Bets >= v.Count, Brief: fmt.Sprintf("%d used", s.Bets),
			Words: fmt.Sprintf("%d of %d %s", s.Bets, v.Count, plural(v.Count, "bet", "bets"))}
	},
	Row: func(v *Value, s Sums, _ Format) Row {
		return Row{Name: "Bets created", Used: strconv.Itoa(s.Bets - s.PlannedBets), After: strconv.Itoa(s.Bets),
			Limit: limitOr(v, func(v Value) string { return strconv.Itoa(v.Count) }),
			Over:  v != nil && s.Bets > v.Count}
	},
})
