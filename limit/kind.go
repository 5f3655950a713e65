// Package limit is the one list of limit kinds: each key a plan's or the
// account file's `limits:` may set (max_total_stake, stop_loss, …) is one
// Kind, in one file of this package, that says what it counts and where it
// may be written, carries its line of documentation, and checks a bet
// against the book's sums, giving the words of its refusal (flumine's
// trading controls: one class per control, a violation with a code and a
// message, and the framework runs the list).
//
// The plan reads, validates and lays out the keys from here; the engine's
// gate, the prompt, doctor and the reports go through the kinds in their
// orders; the documentation's tables and the schemas are generated from
// them. A new kind is one file and its test. What still names a kind
// elsewhere is that kind's own offline analysis (the plan's sums of the
// bets certain to be created, a bet's own risk held at its amount, diff's
// worst case, the prompt's total).
package limit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Kind is one kind of limit. Its funcs read plain values: what was written
// (a Value) and what the bets of the limit's scope add up to (Sums).
type Kind struct {
	// Key is how a limits section writes it: max_total_stake.
	Key string
	// Unit is what its value counts: dollars or bets.
	Unit Unit
	// Span is what it counts over: one bet, the limits' period, one race.
	Span Span
	// Where says which limits sections may set it.
	Where Where
	// Stop marks a limit that ends the period once reached (stop_loss,
	// take_profit): its refusal is a stop (reason.Stop), said once, not a
	// cap holding one bet back.
	Stop bool
	// Bounds marks a limit that bounds what a plan may spend in all: a
	// real run refuses a plan with bets and no such limit.
	Bounds bool
	// Outcomes marks a limit that depends on how bets went (a profit,
	// what is still open): the account's gate reads the other plans' open
	// bets from the service before it counts them.
	Outcomes bool
	// Always marks a limit whose row the reports' limits table shows even
	// when it is not set, as "none".
	Always bool
	// Doc completes "a bet is refused when …": the README's limits table,
	// the schemas and REPORT.md say it.
	Doc string
	// Hint follows an invalid value's error; "" says what the unit takes.
	Hint string
	// Rank orders the kinds in each list.
	Rank Rank

	// Refuse says why one more bet would break the limit v, counted with
	// what c's scope has already, or "". The words lead with the key.
	Refuse func(v Value, c *Check) string
	// Alone says why the bet alone breaks v, whatever else is at risk, or
	// "" (nil: no bet alone can).
	Alone func(v Value, c *Check) string
	// Use says what is used of v: a period's figures for a kind counted
	// over the period, its words alone for one counted per bet or race.
	Use func(v Value, s Sums) Use
	// Row is the kind's line of the reports' limits table (v nil: not set,
	// for an Always kind); rows of one name are one line (Merge).
	Row func(v *Value, s Sums, f Format) Row
}

// Unit is what a limit's value counts.
type Unit uint8

// The units.
const (
	Dollars Unit = iota + 1 // an amount of money, to the cent
	Bets                    // a number of bets
)

// Span is what a limit counts over.
type Span uint8

// The spans.
const (
	PerBet    Span = iota + 1 // the bet alone
	PerPeriod                 // the bets of the limits' period
	PerRace                   // the bets on the bet's race (or sports event)
)

// Where is which limits sections may set a kind.
type Where uint8

// The sections.
const (
	InPlan    Where = 1 << iota // a plan's limits
	InAccount                   // the account file's, every plan together
	Anywhere  = InPlan | InAccount
)

// Rank places a kind in each list of kinds; lower first.
type Rank struct {
	// Key is its place in a limits section: `fmt`'s key order, the
	// schemas', report.json's.
	Key int
	// Check is when it is checked: which refusal a user reads first when
	// several would refuse a bet (a stop before a cap).
	Check int
	// Show is its place in the prompt's limits line, doctor and the
	// reports' table.
	Show int
}

// Value is what a limits section sets a kind to: dollars, or a count of
// bets, as its Unit says.
type Value struct {
	Dollars float64
	Count   int
}

// Amount is a value of dollars.
func Amount(d float64) Value { return Value{Dollars: d} }

// Count is a value counting bets.
func Count(n int) Value { return Value{Count: n} }

// Words is v as the messages write it: $50.00, or 3.
func (k *Kind) Words(v Value) string {
	if k.Unit == Bets {
		return strconv.Itoa(v.Count)
	}
	return usd(v.Dollars)
}

// Number is v as one number, for JSON.
func (k *Kind) Number(v Value) float64 {
	if k.Unit == Bets {
		return float64(v.Count)
	}
	return v.Dollars
}

// Help follows an error about k's value: what to write instead.
func (k *Kind) Help() string {
	switch {
	case k.Hint != "":
		return k.Hint
	case k.Unit == Bets:
		return "a limit is a count of at least 1; leave it out for no limit"
	}
	return "a limit is a positive amount in dollars; leave it out for no limit"
}

// In reports whether the section w may set k.
func (k *Kind) In(w Where) bool { return k.Where&w != 0 }

// CapsMoney reports whether k caps money: what bets put at risk, or what
// they may lose (every kind in dollars but the stops, which end a period
// on its settled profit). A bet whose risk no one knows before it is
// placed (a lay without an odds cap, Fixed Profit without an odds floor)
// cannot be held to such a kind beforehand.
func (k *Kind) CapsMoney() bool { return k.Unit == Dollars && !k.Stop }

var (
	byKey, byCheck, byShow []*Kind
	keys                   = map[string]*Kind{}
)

// register adds a kind to the list; each kind's file calls it once, for
// its package variable.
func register(k *Kind) *Kind {
	switch {
	case k.Key == "" || keys[k.Key] != nil:
		panic(fmt.Sprintf("limit: kind %q has no key, or one another kind has", k.Key))
	case k.Unit == 0 || k.Span == 0 || k.Doc == "":
		panic("limit: kind " + k.Key + " lacks its unit, span or doc")
	case k.Refuse == nil || k.Use == nil || k.Row == nil:
		panic("limit: kind " + k.Key + " lacks Refuse, Use or Row")
	}
	if k.Where == 0 {
		k.Where = Anywhere
	}
	keys[k.Key] = k
	byKey = sorted(append(byKey, k), func(k *Kind) int { return k.Rank.Key })
	byCheck = sorted(append(byCheck, k), func(k *Kind) int { return k.Rank.Check })
	byShow = sorted(append(byShow, k), func(k *Kind) int { return k.Rank.Show })
	return k
}

func sorted(ks []*Kind, rank func(*Kind) int) []*Kind {
	slices.SortStableFunc(ks, func(a, b *Kind) int {
		if r := rank(a) - rank(b); r != 0 {
			return r
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return ks
}

// All is every kind in key order: how a limits section lists them.
func All() []*Kind { return slices.Clone(byKey) }

// Checked is every kind in the order a bet is checked against them.
func Checked() []*Kind { return slices.Clone(byCheck) }

// Shown is every kind in the order the views list them.
func Shown() []*Kind { return slices.Clone(byShow) }

// Lookup is the kind of key; nil for a key no kind has.
func Lookup(key string) *Kind { return keys[key] }

// Keys are the keys the section w may set, in key order.
func Keys(w Where) []string {
	var out []string
	for _, k := range byKey {
		if k.In(w) {
			out = append(out, k.Key)
		}
	}
	return out
}
