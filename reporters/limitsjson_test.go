package reporters_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// report.json's limits, and the account's, have a field for every limit
// kind after period, in a limits section's order: the maximum in cents or
// bets, null when not set. The account's file and plans lead its object,
// written as they are (no HTML escapes), and the report validates against
// the schema, which requires each kind's field.
func TestLimitsHaveAFieldPerKind(t *testing.T) {
	t.Parallel()
	r := emptyResult()
	r.Limits.Limits = plan.Limits{Period: plan.PeriodDay, Set: limit.Set{limit.MaxTotalStake: limit.Amount(100.004), limit.MaxBets: limit.Count(3)}}
	r.Account = &engine.AccountSummary{File: "R&D/betplan.yaml", Plans: []string{"empty", "other"},
		LimitsSummary: engine.LimitsSummary{Limits: plan.Limits{Period: plan.PeriodWeek, Set: limit.Set{limit.StopLoss: limit.Amount(50)}}}}
	out := render(t, reporters.FormatJSON, r, reporters.TextOptions{})
	if !bytes.Contains(out, []byte(`"file": "R&D/betplan.yaml"`)) {
		t.Errorf("the account's file is not written as it is:\n%s", out)
	}
	var doc struct {
		Limits, Account json.RawMessage
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range limit.All() {
		kinds = append(kinds, k.Key)
	}
	tail := []string{"committed", "planned", "created_bets", "periods"}
	for _, tt := range []struct {
		name string
		obj  json.RawMessage
		head []string
		set  map[string]any
	}{
		{"limits", doc.Limits, []string{"period"}, map[string]any{"period": "day", "max_total_stake": 100.0, "max_bets": 3.0}},
		{"account", doc.Account, []string{"file", "plans", "period"}, map[string]any{"period": "week", "stop_loss": 50.0}},
	} {
		keys, values := objectKeys(t, tt.obj)
		if want := slices.Concat(tt.head, kinds, tail); !slices.Equal(keys, want) {
			t.Errorf("%s: keys %v\nwant %v", tt.name, keys, want)
		}
		for _, k := range kinds {
			if want, set := tt.set[k]; set && values[k] != want {
				t.Errorf("%s.%s = %v, want %v", tt.name, k, values[k], want)
			} else if !set && values[k] != nil {
				t.Errorf("%s.%s = %v, want null: it is not set", tt.name, k, values[k])
			}
		}
		if values["period"] != tt.set["period"] {
			t.Errorf("%s.period = %v, want %v", tt.name, values["period"], tt.set["period"])
		}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSchema(t).Validate(v); err != nil {
		t.Errorf("report.json does not match the schema: %v", err)
	}
	var sch struct {
		Defs map[string]struct {
			Required []string `json:"required"`
		} `json:"$defs"`
	}
	s, err := reporters.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s, &sch); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{"Limits", "Account"} {
		for _, k := range kinds {
			if !slices.Contains(sch.Defs[def].Required, k) {
				t.Errorf("the schema's %s does not require %s", def, k)
			}
		}
	}
}

// objectKeys are the keys of a JSON object in the order written, and its
// values.
func objectKeys(t *testing.T, obj json.RawMessage) ([]string, map[string]any) {
	t.Helper()
	var values map[string]any
	if err := json.Unmarshal(obj, &values); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys, values
}
