// Package bet holds what every part of the engine says of one bet of a
// plan, whichever part it is: where the bet stands (its Status) and its
// money in whole cents. The book, which alone changes a bet, and the
// parts that read the service for it (follow) both speak of it; the
// engine re-exports Status as engine.Status.
package bet

import (
	"math"
	"strings"
)

// Status is where one bet of a plan stands. The strings are part of the
// report.json contract.
type Status string

// The statuses of a bet, in the order a report lists them.
const (
	Waiting    Status = "waiting"    // its `when` is not true yet
	InDoubt    Status = "in_doubt"   // a create was sent and may have landed: the next run looks its label up
	Skipped    Status = "skipped"    // its condition was never true before the race started
	Unresolved Status = "unresolved" // its race could not be found
	Created    Status = "created"    // the notification exists; no session has acted yet
	Placed     Status = "placed"     // at least one session accepted it; not resulted yet
	NotTaken   Status = "not_taken"  // no session acted by race start
	Failed     Status = "failed"     // every session errored, or creating it failed
	Settled    Status = "settled"    // resulted, with a signed profit
	Canceled   Status = "canceled"   // cancelled: before it was placed, or after and not resulted yet (the JSON value keeps one l)
)

// Words is the status as people read it: "not taken", "in doubt",
// "cancelled" (the value keeps one l; the words use one spelling).
func (s Status) Words() string {
	if s == Canceled {
		return "cancelled"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// RoundCents rounds v to whole cents. Past 2^53 cents a float64 holds no
// cents to round, and int64 would overflow (a sum of 1e19 turned into
// -$92 quadrillion): such a v, NaN and the infinities come back as they
// are, for the limits to refuse.
func RoundCents(v float64) float64 {
	if math.IsNaN(v) || math.Abs(v) >= 1<<53/100 {
		return v
	}
	if v < 0 {
		return -RoundCents(-v)
	}
	return math.Floor(v*100+0.5) / 100
}
