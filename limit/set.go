package limit

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Set is what a limits section sets, by kind; a kind not in it is not set.
type Set map[*Kind]Value

// Get is the value s sets k to, and whether it sets k.
func (s Set) Get(k *Kind) (Value, bool) {
	v, ok := s[k]
	return v, ok
}

// Refuse is the first of s's limits, in checking order, that one more bet
// would break, and its words; nil and "" when every limit allows the bet.
// A bet whose risk is not an amount of money is refused whatever s sets.
func (s Set) Refuse(c *Check) (*Kind, string) {
	// Every amount was checked against the plan's bound before the
	// create; this refuses what no comparison could (NaN compares false)
	// whatever its origin.
	if math.IsNaN(c.Risk) || math.IsInf(c.Risk, 0) || c.Risk < 0 {
		return nil, fmt.Sprintf("this bet would put %v at risk (%s): not an amount of money", c.Risk, c.Basis)
	}
	if len(s) == 0 {
		return nil, ""
	}
	for _, k := range byCheck {
		if v, ok := s[k]; ok {
			if words := k.Refuse(v, c); words != "" {
				return k, words
			}
		}
	}
	return nil, ""
}

// Alone is the first of s's limits, in checking order, that the bet of c
// breaks on its own (its Risk and Basis), whatever else is at risk, and
// its words; nil and "" when none does.
func (s Set) Alone(c *Check) (*Kind, string) {
	for _, k := range byCheck {
		if v, ok := s[k]; ok && k.Alone != nil {
			if words := k.Alone(v, c); words != "" {
				return k, words
			}
		}
	}
	return nil, ""
}

// Words says each limit s sets, in the views' order, with what the sums
// use of those counted over the period: "max_stake_per_bet $5.00,
// max_total_stake $100.00 ($20.00 used)"; "" when s sets none.
func (s Set) Words(u Sums) string {
	var b strings.Builder
	for _, k := range byShow {
		v, ok := s[k]
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.Key + " " + k.Words(v))
		if k.Span == PerPeriod {
			b.WriteString(" (" + k.Use(v, u).Brief + ")")
		}
	}
	return b.String()
}

// MarshalJSON writes s as a limits section does: {"max_total_stake": 100}
// (a map keyed by kind is no JSON object of itself).
func (s Set) MarshalJSON() ([]byte, error) {
	out := make(map[string]float64, len(s))
	for k, v := range s {
		out[k.Key] = k.Number(v)
	}
	return json.Marshal(out)
}

// Any reports whether s sets a kind for which is true (any kind, for nil).
func (s Set) Any(is func(*Kind) bool) bool {
	for k := range s {
		if is == nil || is(k) {
			return true
		}
	}
	return false
}
