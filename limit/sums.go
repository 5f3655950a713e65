package limit

import (
	"fmt"
	"math"
)

// Sums is what the bets of a limit's scope add up to, as the book counts
// them (book.Usage.Sums): in the limits' period, and on the race of the
// bet asked about. Amounts are dollars to the cent.
type Sums struct {
	// Staked is what every bet counted put at risk; OpenStake what those
	// not resulted yet have at risk now.
	Staked, OpenStake float64
	// Profit is the settled profit; LowestProfit and HighestProfit the
	// lowest and highest it ran to as results came in (0 before any).
	Profit, LowestProfit, HighestProfit float64
	// Bets counts the bets; Won and Lost those settled with a profit and
	// with a loss.
	Bets, Won, Lost int
	// Planned is the part of Staked a preview's creates add, PlannedBets
	// how many they are.
	Planned     float64
	PlannedBets int
	// RaceStake, RaceOpenStake, RaceProfit and RaceBets are Staked,
	// OpenStake, Profit and Bets of the bets on the race asked about.
	RaceStake, RaceOpenStake, RaceProfit float64
	RaceBets                             int
}

// WorstCase is the settled profit if every open bet lost what it has at
// risk: what max_loss caps.
func (s Sums) WorstCase() float64 { return roundCents(s.Profit - s.OpenStake) }

// RaceWorstCase is WorstCase of the bets on the race asked about.
func (s Sums) RaceWorstCase() float64 { return roundCents(s.RaceProfit - s.RaceOpenStake) }

// Check is one more bet held to the limits: what it puts at risk, what the
// bets of the limits' scope add up to already, and the words that say
// where and whose those are.
type Check struct {
	Sums
	// Risk is what the bet puts at risk, Basis how that was worked out.
	Risk  float64
	Basis string
	// In names the period counted, " in day 2026-11-21" ("" for all time).
	In string
	// Race names the bet's race: "Flemington R5 of 2026-11-21".
	Race string
	// Used says whose bets Sums counts: "already committed by this plan".
	Used string
}

// Use is what is used of a limit, for doctor and the prompt.
type Use struct {
	// Used is the figure the limit caps now, in its unit (doctor's used);
	// Reached says nothing more fits under it in the period.
	Used    float64
	Reached bool
	// Brief is the prompt's words of use, in brackets after the limit:
	// "$20.00 used"; "" for a kind counted per bet or race.
	Brief string
	// Words is doctor's sentence: "$20.00 at risk of $100.00 ($80.00
	// left)", or "$5.00 at risk per bet".
	Words string
}

// Row is a line of the reports' limits table: what was used before this
// run, after it (a preview's planned creates), and the limit, which reads
// Lead then Limit.
type Row struct {
	Name, Used, After string
	Lead, Limit       string
	// Over says the limit is passed, or for a stop, reached.
	Over bool
}

// Format writes amounts as a view does.
type Format struct {
	Dollars func(float64) string // $1,234.50
	Signed  func(float64) string // +$12.00
}

// Merge adds r to rows: a line of its own, or joined to the line of its
// name ("Settled profit" is stop_loss's and take_profit's: "stops at
// -$50.00 or +$100.00", over when either is, its used words then the
// reached one's).
func Merge(rows []Row, r Row) []Row {
	for i := range rows {
		if rows[i].Name != r.Name {
			continue
		}
		if r.Over && !rows[i].Over {
			rows[i].Used = r.Used
		}
		rows[i].Limit += " or " + r.Limit
		rows[i].Over = rows[i].Over || r.Over
		return rows
	}
	return append(rows, r)
}

// usd is an amount as the limits' words write it: $1234.50.
func usd(v float64) string { return fmt.Sprintf("$%.2f", v) }

// signedUSD is a profit: -$12.00, $3.50.
func signedUSD(v float64) string {
	if v < 0 {
		return "-" + usd(-v)
	}
	return usd(v)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// roundCents rounds v to whole cents, half away from zero, as the book
// does (bet.RoundCents: the plan imports this package, and nothing of the
// engine's), a v too large for cents, NaN and the infinities coming back
// as they are. A test holds the two to one rule.
func roundCents(v float64) float64 {
	if math.IsNaN(v) || math.Abs(v) >= 1<<53/100 {
		return v
	}
	if v < 0 {
		return -roundCents(-v)
	}
	return math.Floor(v*100+0.5) / 100
}

// cents is v in whole cents, as the reports compare amounts.
func cents(v float64) float64 { return math.Round(v * 100) }

// room says what is left under a limit: "$80.00 left", "none left".
func room(limit, used float64) string {
	if used >= limit-1e-9 {
		return "none left"
	}
	return usd(roundCents(limit-used)) + " left"
}

// limitOr is a row's limit: its value, or "none" when not set.
func limitOr(v *Value, words func(Value) string) string {
	if v == nil {
		return "none"
	}
	return words(*v)
}
