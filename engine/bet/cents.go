package bet

import (
	"fmt"
	"math"
	"strconv"
)

// MaxDollars bounds every amount betplan reads as money: a stake, an
// amount accepted, a profit, from the service, a journal or the database.
// No bet of any account comes near it (a run refuses a stake above
// $1,000,000), and a sum of a million such amounts still fits int64
// cents many times over, so an amount past it is a corrupt record, never
// money: it is refused where it enters rather than wrapped into an absurd
// figure.
const MaxDollars = 1e12

// Cents is dollars in whole cents, rounded half away from zero: the one
// conversion of an amount read from outside (the service, a journal, the
// database) to money betplan counts. An amount that is not finite or is
// beyond MaxDollars either way is an *AmountError.
func Cents(dollars float64) (int64, error) {
	if math.IsNaN(dollars) || math.IsInf(dollars, 0) || math.Abs(dollars) > MaxDollars {
		return 0, &AmountError{Dollars: dollars}
	}
	return int64(math.Round(dollars * 100)), nil
}

// CheckDollars is Cents' verdict alone: nil for an amount betplan may
// count as money.
func CheckDollars(dollars float64) error {
	_, err := Cents(dollars)
	return err
}

// AmountError is an amount outside what any bet could be: a corrupt
// record, not money.
type AmountError struct{ Dollars float64 }

func (e *AmountError) Error() string {
	return fmt.Sprintf("%s is not an amount of money (not finite, or beyond ±$1,000,000,000,000)", strconv.FormatFloat(e.Dollars, 'g', -1, 64))
}

// AddCents is a + b, or false when the sum does not fit int64 (it cannot
// from amounts Cents gave, short of some 10^7 of them at the bound).
func AddCents(a, b int64) (int64, bool) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, false
	}
	return s, true
}
