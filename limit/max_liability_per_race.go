package limit

import "fmt"

// MaxLiabilityPerRace caps what the account can lose on one race: the
// race's worst case, every plan's bets on it together (what they still
// have at risk, a lay's liability included, less what the settled ones
// made), with the new bet. Only the account file may set it: the account's
// gate is what counts the other plans' bets, under its lock, so no two
// plans pass it together; in a plan's limits it would count that plan's
// bets alone, which max_stake_per_race already caps. Unlike the account's
// max_stake_per_race, which counts every stake put on the race, it counts
// what can still be lost: a settled bet by what it made, and (Outcomes)
// the other plans' open bets as the service shows them now.
var MaxLiabilityPerRace = register(&Kind{
	Key: "max_liability_per_race", Unit: Dollars, Span: PerRace, Where: InAccount, Outcomes: true,
	Doc:  "every plan's bets on the bet's race (or sports event), and this one, could lose more than this together: what they still have at risk, less what the settled ones made (the race's worst case)",
	Rank: Rank{Key: 100, Check: 65, Show: 100},
	Refuse: func(v Value, c *Check) string {
		if loss := roundCents(c.Risk - c.RaceWorstCase()); loss > v.Dollars+1e-9 {
			return fmt.Sprintf("max_liability_per_race %s on %s: if every bet on it and this one lost, they would lose %s (%s open at risk on it %s, settled %s, this bet %s (%s)), more than %s",
				usd(v.Dollars), c.Race, usd(loss), usd(c.RaceOpenStake), c.Used, signedUSD(c.RaceProfit), usd(c.Risk), c.Basis, usd(v.Dollars))
		}
		return ""
	},
	Alone: func(v Value, c *Check) string {
		if c.Risk > v.Dollars+1e-9 {
			return fmt.Sprintf("max_liability_per_race %s: this bet alone may lose %s on its race (%s)", usd(v.Dollars), usd(c.Risk), c.Basis)
		}
		return ""
	},
	Use: func(v Value, _ Sums) Use {
		return Use{Words: usd(v.Dollars) + " worst case per race, every plan together"}
	},
	Row: func(v *Value, _ Sums, f Format) Row {
		return Row{Name: "Worst case per race", Lead: "not below ", Limit: f.Dollars(-v.Dollars)}
	},
})
