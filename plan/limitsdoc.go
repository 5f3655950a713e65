package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/limit"
)

// A limits section's keys are the limit kinds' (package limit): the
// decoder, the validation, fmt's key order and the JSON Schemas read them
// from there, so a new kind is read here without a line of this file.

// limitsDoc is a plan's limits section as written: its period, and what it
// sets each kind to (not yet validated: readLimits does).
type limitsDoc struct {
	Period *string
	Values limit.Set
}

// accountLimitsDoc is the account file's limits section: a plan's keys,
// and those only the account file may set (they count every plan of the
// account together).
type accountLimitsDoc struct{ limitsDoc }

func (l *limitsDoc) decodeNode(d *decoder, n *yaml.Node, path string) {
	l.decodeIn(d, n, path, limit.InPlan)
}

func (l *accountLimitsDoc) decodeNode(d *decoder, n *yaml.Node, path string) {
	l.decodeIn(d, n, path, limit.InAccount)
}

// limitsPeriodDoc describes limits.period.
const limitsPeriodDoc = "What the total limits count within: day (the race's meeting day, in the race's own time zone), week (Monday to Sunday of meeting days) or plan (all time, the default)."

// decodeIn fills l from a limits section of the section where, as
// decodeStruct fills a struct: unknown and duplicate keys and wrong types
// are errors at their position, with the nearest key.
func (l *limitsDoc) decodeIn(d *decoder, n *yaml.Node, path string, where limit.Where) {
	const what = "limits"
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return
	}
	d.eachPair(n, func(k, val *yaml.Node) {
		p := path + "." + k.Value
		kind := limit.Lookup(k.Value)
		switch {
		case k.Value == "period":
			d.keys[p] = k
			d.decode(val, reflect.ValueOf(&l.Period).Elem(), p, what)
		case kind != nil && kind.In(where):
			d.keys[p] = k
			if v, ok := decodeLimit(d, val, p, kind); ok {
				if l.Values == nil {
					l.Values = limit.Set{}
				}
				l.Values[kind] = v
			}
		case kind != nil:
			d.errorf(k, "%s is a limit of the account file only: it counts every plan of the account together, so it goes in the limits of %s, not a plan's", k.Value, ConfigFileName)
		default:
			names := append([]string{"period"}, limit.Keys(where)...)
			hint := didYouMean(k.Value, names)
			if hint == "" {
				hint = " (fields: " + strings.Join(names, ", ") + ")"
			}
			d.errorf(k, "unknown field %q in %s%s", k.Value, what, hint)
		}
	})
}

// decodeLimit reads one limit's value: a number of dollars, or a whole
// number of bets. A value that cannot be read is an error and stays unset.
func decodeLimit(d *decoder, n *yaml.Node, path string, k *limit.Kind) (limit.Value, bool) {
	if k.Unit == limit.Bets {
		var c *int
		d.decode(n, reflect.ValueOf(&c).Elem(), path, "limits")
		if c == nil {
			return limit.Value{}, false
		}
		return limit.Count(*c), true
	}
	var f *float64
	d.decode(n, reflect.ValueOf(&f).Elem(), path, "limits")
	if f == nil {
		return limit.Value{}, false
	}
	return limit.Amount(*f), true
}

// checkLimitValue holds one limit's value to its unit: a positive amount
// in dollars and cents, or a count of at least 1; false, and an error at
// the value, when it is not.
func (p *parser) checkLimitValue(k *limit.Kind, v limit.Value) bool {
	full := "limits." + k.Key
	var val any = v.Dollars
	if k.Unit == limit.Bets {
		val = v.Count
	}
	switch {
	case k.Unit == limit.Bets && v.Count <= 0, k.Unit == limit.Dollars && v.Dollars <= 0:
		p.d.errorf(p.at(full), "%s must be more than 0, got %v: %s", k.Key, val, k.Help())
	case k.Unit == limit.Dollars && !isCents(v.Dollars) && math.Abs(v.Dollars) >= maxAmount:
		written := fmt.Sprint(val)
		if n := p.d.pos[full]; n != nil {
			written = n.Value
		}
		p.d.errorf(p.at(full), "%s %s is out of range: %s", k.Key, written, amountRange)
	case k.Unit == limit.Dollars && !isCents(v.Dollars):
		p.d.errorf(p.at(full), "%s %v has more than two decimals: amounts are dollars and cents", k.Key, val)
	default:
		return true
	}
	return false
}

// layoutKeys is a limits section's key order, which fmt lays it out in.
func (limitsDoc) layoutKeys() []string {
	return append([]string{"period"}, limit.Keys(limit.Anywhere)...)
}

// JSONSchema is a plan's limits section: the kinds a plan may set.
func (limitsDoc) JSONSchema() *jsonschema.Schema { return limitsSchema(limit.InPlan) }

// JSONSchema is the account file's limits section: every kind.
func (accountLimitsDoc) JSONSchema() *jsonschema.Schema { return limitsSchema(limit.InAccount) }

func limitsSchema(where limit.Where) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	period := &jsonschema.Schema{Type: "string", Description: limitsPeriodDoc}
	for _, p := range Periods() {
		period.Enum = append(period.Enum, string(p))
	}
	s.Properties.Set("period", period)
	for _, k := range limit.All() {
		if !k.In(where) {
			continue
		}
		p := &jsonschema.Schema{Description: LimitDoc(k)}
		if k.Unit == limit.Bets {
			p.Type, p.Minimum = "integer", json.Number("1")
		} else {
			p.Type, p.ExclusiveMinimum = "number", json.Number("0")
		}
		s.Properties.Set(k.Key, p)
	}
	return s
}

// LimitDoc is a kind's documentation as a sentence: its unit, and when it
// refuses a bet.
func LimitDoc(k *limit.Kind) string {
	unit := "In dollars"
	if k.Unit == limit.Bets {
		unit = "A number of bets"
	}
	if !k.In(limit.InPlan) {
		unit += ", in the account file only (every plan of the account together)"
	}
	return unit + ": a bet is refused when " + k.Doc + "."
}
