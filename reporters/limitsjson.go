package reporters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/invopop/jsonschema"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
)

// report.json's limits (and the account's) have one field for each limit
// kind, after period, in a limits section's key order: the maximum, or
// null when it is not set. The fields come from the kinds (package limit),
// so a new kind is in the report, its schema and REPORT.md without a line
// here.

// MarshalJSON writes the limits with a field for each limit kind.
func (l Limits) MarshalJSON() ([]byte, error) {
	type fields Limits // the struct's own fields, without this method
	b, err := marshal(fields(l))
	if err != nil {
		return nil, err
	}
	p, err := marshal(l.Period)
	if err != nil {
		return nil, err
	}
	open := slices.Concat([]byte(`{"period":`), p)
	if !bytes.HasPrefix(b, open) {
		return nil, fmt.Errorf("report limits: %.40s… does not open with the period", b)
	}
	out := bytes.NewBuffer(open)
	for _, k := range limit.All() {
		out.WriteString(`,"` + k.Key + `":`)
		v, ok := l.Caps.Get(k)
		switch {
		case !ok:
			out.WriteString("null")
		case k.Unit == limit.Bets:
			out.WriteString(strconv.Itoa(v.Count))
		default:
			c, err := marshal(cents(v.Dollars))
			if err != nil {
				return nil, err
			}
			out.Write(c)
		}
	}
	out.Write(b[len(open):])
	return out.Bytes(), nil
}

// MarshalJSON writes the account's file, plans and limits (the embedded
// Limits' method would write the limits alone).
func (a Account) MarshalJSON() ([]byte, error) {
	head, err := marshal(struct {
		File   string   `json:"file"`
		Plans  []string `json:"plans"`
		Unread string   `json:"unread,omitempty"`
	}{a.File, a.Plans, a.Unread})
	if err != nil {
		return nil, err
	}
	limits, err := a.Limits.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return slices.Concat(head[:len(head)-1], []byte(","), limits[1:]), nil
}

// marshal is json.Marshal as report.json writes: HTML characters as they
// are (the encoder around a MarshalJSON does not undo an escape).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// JSONSchemaExtend adds a field for each limit kind.
func (Limits) JSONSchemaExtend(s *jsonschema.Schema) { capsSchema(s) }

// JSONSchemaExtend adds a field for each limit kind.
func (Account) JSONSchemaExtend(s *jsonschema.Schema) { capsSchema(s) }

// capsSchema adds each kind's field after period: a number (an integer
// for a count), or null.
func capsSchema(s *jsonschema.Schema) {
	after := "period"
	at := slices.Index(s.Required, after) + 1
	for _, k := range limit.All() {
		typ := "number"
		if k.Unit == limit.Bets {
			typ = "integer"
		}
		s.Properties.Set(k.Key, &jsonschema.Schema{OneOf: []*jsonschema.Schema{
			{Type: typ, Description: plan.LimitDoc(k) + " Null when it is not set."},
			{Type: "null"},
		}})
		if err := s.Properties.MoveAfter(k.Key, after); err != nil {
			panic("report schema: " + err.Error())
		}
		s.Required = slices.Insert(s.Required, at, k.Key)
		after, at = k.Key, at+1
	}
}
