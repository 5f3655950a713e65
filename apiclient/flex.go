package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/engine/bet"
)

// The service's sources disagree on JSON types (service-facts.md §4.2, §6,
// §13): numbers arrive as numbers or numeric strings, names as a string or
// an array. These types read every variant seen and never fail on null.

// Float is a number that may arrive as a JSON number, a numeric string, an
// empty string or null (both read as 0).
type Float float64

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	s, err := scalarText(b, "a number")
	if err != nil || s == "" {
		*f = 0
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("apiclient: cannot read %q as a number", s)
	}
	*f = Float(v)
	return nil
}

// Money is an amount of dollars from the service (a stake, an amount
// accepted, a profit): read as Float is, except that an amount too large
// for a float64 (1e309) reads as an infinity instead of failing the whole
// answer. The record that holds it checks it (checkMoney): one corrupt
// record never stops the run's other bets from being read.
type Money float64

// UnmarshalJSON implements json.Unmarshaler.
func (m *Money) UnmarshalJSON(b []byte) error {
	s, err := scalarText(b, "a number")
	if err != nil || s == "" {
		*m = 0
		return err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("apiclient: cannot read %q as a number", s)
	}
	*m = Money(v)
	return nil
}

// Cents is the amount in whole cents (bet.Cents); 0 for an amount a
// record named corrupt, which reads as 0.
func (m Money) Cents() int64 {
	c, _ := bet.Cents(float64(m))
	return c
}

// moneyField is one Money field of a record, by its JSON name.
type moneyField struct {
	name string
	v    *Money
}

// checkMoney sets every field that is not money (bet.Cents) to 0 and
// says which they were and what the service sent ("" when all are).
func checkMoney(fields ...moneyField) string {
	var bad []string
	for _, f := range fields {
		if err := bet.CheckDollars(float64(*f.v)); err != nil {
			bad = append(bad, f.name+" "+err.Error())
			*f.v = 0
		}
	}
	return strings.Join(bad, "; ")
}

// Int is an integer that may arrive as a JSON number (even 4.0), a numeric
// string, an empty string or null.
type Int int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(b []byte) error {
	s, err := scalarText(b, "an integer")
	if err != nil || s == "" {
		*n = 0
		return err
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = Int(v)
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return fmt.Errorf("apiclient: cannot read %q as an integer", s)
	}
	*n = Int(v)
	return nil
}

// Bool is a boolean that may arrive as true/false, "true"/"false", 0/1 or null.
type Bool bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *Bool) UnmarshalJSON(b []byte) error {
	s, err := scalarText(b, "a boolean")
	if err != nil {
		return err
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		*v = true
	case "false", "0", "no", "":
		*v = false
	default:
		return fmt.Errorf("apiclient: cannot read %q as a boolean", s)
	}
	return nil
}

// String is text that may arrive as a JSON string, a number or null. Bet
// records carry `bookie` as an integer id in one doc version and a string
// in another.
type String string

// UnmarshalJSON implements json.Unmarshaler.
func (v *String) UnmarshalJSON(b []byte) error {
	s, ok := unquoteScalar(b)
	if !ok {
		// An object or array (e.g. `notification` as an object): keep it as text.
		*v = String(bytes.TrimSpace(b))
		return nil
	}
	*v = String(s)
	return nil
}

// Names is a list of names that may arrive as one string or an array of
// strings (the race entry's `name`, service-facts.md §6).
type Names []string

// UnmarshalJSON implements json.Unmarshaler.
func (n *Names) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var raw []String
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		out := make(Names, 0, len(raw))
		for _, s := range raw {
			if t := strings.TrimSpace(string(s)); t != "" {
				out = append(out, t)
			}
		}
		*n = out
		return nil
	}
	s, err := scalarText(b, "a name")
	if err != nil {
		return err
	}
	if s = strings.TrimSpace(s); s == "" {
		*n = nil
	} else {
		*n = Names{s}
	}
	return nil
}

// First returns the first name, the one to send back as `competition`.
func (n Names) First() string {
	if len(n) == 0 {
		return ""
	}
	return n[0]
}

// Time is a datetime as the service writes it: RFC 3339 with or without
// fractional seconds, sometimes without seconds or offset; null and "" read
// as the zero time.
type Time struct{ time.Time }

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
}

// ParseTime reads a service datetime in any of the layouts seen.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("apiclient: cannot read %q as a time", s)
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	s, err := scalarText(b, "a time")
	if err != nil {
		return err
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := ParseTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// MarshalJSON writes RFC 3339 with nanoseconds, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.Format(time.RFC3339Nano))
}

// scalarText is the text of a scalar JSON value ("" for null), or an error
// naming what was expected when b is an object or array.
func scalarText(b []byte, what string) (string, error) {
	s, ok := unquoteScalar(b)
	if !ok {
		return "", fmt.Errorf("apiclient: cannot read %s as %s", truncate(b), what)
	}
	return s, nil
}

// unquoteScalar returns the text of a JSON string, number, boolean or null
// ("" for null). ok is false for objects and arrays.
func unquoteScalar(b []byte) (string, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", true
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false
		}
		return strings.TrimSpace(s), true
	case '{', '[':
		return "", false
	}
	if string(b) == "null" {
		return "", true
	}
	return string(b), true
}

func truncate(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// SplitList splits a service list field: `#&#`-joined when that token is
// present (runner names in notification tips), else comma-joined.
func SplitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	sep := ","
	if strings.Contains(s, "#&#") {
		sep = "#&#"
	}
	parts := strings.Split(s, sep)
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
