package limit

import "fmt"

// MaxStakePerBet caps what one bet puts at risk.
var MaxStakePerBet = register(&Kind{
	Key: "max_stake_per_bet", Unit: Dollars, Span: PerBet, Always: true,
	Doc:    "the bet alone puts more than this at risk",
	Rank:   Rank{Key: 10, Check: 40, Show: 10},
	Refuse: perBet,
	Alone:  perBet, // what the others have at risk does not matter
	Use:    func(v Value, _ Sums) Use { return Use{Words: usd(v.Dollars) + " at risk per bet"} },
	Row: func(v *Value, _ Sums, f Format) Row {
		return Row{Name: "At risk per bet", Limit: limitOr(v, func(v Value) string { return f.Dollars(v.Dollars) })}
	},
})

func perBet(v Value, c *Check) string {
	if c.Risk > v.Dollars+1e-9 {
		return fmt.Sprintf("max_stake_per_bet %s: this bet puts %s at risk (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
	}
	return ""
}
