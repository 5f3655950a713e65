package reporters_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/reporters"
)

func TestSchemaIsUpToDate(t *testing.T) {
	got, err := reporters.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, schemaPath, got) // `make schema` writes the same file
}

func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestJSONValidatesAgainstSchema(t *testing.T) {
	s := compileSchema(t)
	for name, r := range map[string]*engine.Result{"run": runResult(), "plan": planResult(), "empty": emptyResult(), "big": bigResult(50), "tips": tipsResult(), "tips-plan": tipsPlanResult()} {
		t.Run(name, func(t *testing.T) {
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(render(t, reporters.FormatJSON, r, reporters.TextOptions{})))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("report.json does not match %s: %v", schemaPath, err)
			}
		})
	}

	// The schema must be able to say no, or the test above proves nothing.
	var doc map[string]any
	if err := json.Unmarshal(render(t, reporters.FormatJSON, runResult(), reporters.TextOptions{}), &doc); err != nil {
		t.Fatal(err)
	}
	doc["bets"].([]any)[0].(map[string]any)["status"] = "Settled"
	if err := s.Validate(doc); err == nil {
		t.Error("a report with status \"Settled\" validated; the schema should only allow lower-case statuses")
	}
}

// The contract outside tests rely on: bets with id, label, status,
// notification_id and profit, and totals.profit their sum.
func TestJSONContract(t *testing.T) {
	r := runResult()
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Bets          []struct {
			ID             string   `json:"id"`
			Label          string   `json:"label"`
			Status         string   `json:"status"`
			NotificationID *float64 `json:"notification_id"`
			Profit         *float64 `json:"profit"`
		} `json:"bets"`
		Totals struct {
			Profit   float64        `json:"profit"`
			ByStatus map[string]int `json:"by_status"`
		} `json:"totals"`
	}
	dec := json.NewDecoder(bytes.NewReader(render(t, reporters.FormatJSON, r, reporters.TextOptions{})))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != reporters.SchemaVersion {
		t.Errorf("schema_version = %d, want %d", doc.SchemaVersion, reporters.SchemaVersion)
	}
	if len(doc.Bets) != len(r.Bets) {
		t.Fatalf("%d bets in report.json, want %d", len(doc.Bets), len(r.Bets))
	}
	sum := 0.0
	for i, b := range doc.Bets {
		want := r.Bets[i]
		if b.ID != want.ID || b.Label != want.Label || b.Status != string(want.Status) || b.Status != strings.ToLower(b.Status) {
			t.Errorf("bet %d = %s %q %s, want %s %q %s", i, b.ID, b.Label, b.Status, want.ID, want.Label, want.Status)
		}
		switch {
		case want.NotificationID == 0 && b.NotificationID != nil:
			t.Errorf("bet %s: notification_id = %v, want null (never created)", b.ID, *b.NotificationID)
		case want.NotificationID != 0 && (b.NotificationID == nil || int64(*b.NotificationID) != want.NotificationID):
			t.Errorf("bet %s: notification_id = %v, want %d", b.ID, b.NotificationID, want.NotificationID)
		}
		if b.Profit == nil || *b.Profit != want.Profit {
			t.Errorf("bet %s: profit = %v, want %v", b.ID, b.Profit, want.Profit)
			continue
		}
		sum += *b.Profit
	}
	if math.Abs(doc.Totals.Profit-sum) > 0.001 {
		t.Errorf("totals.profit = %v, want the sum of the bets' profits %v", doc.Totals.Profit, sum)
	}
	for _, s := range engine.Statuses() {
		if _, ok := doc.Totals.ByStatus[string(s)]; !ok {
			t.Errorf("totals.by_status has no %q", s)
		}
	}
}

// Every engine status must be counted in by_status and allowed by the
// schema: a status added to the engine must be added here too.
func TestEveryStatusIsCounted(t *testing.T) {
	schema, err := reporters.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var sch struct {
		Properties struct {
			Totals struct {
				Ref string `json:"$ref"`
			} `json:"totals"`
		} `json:"properties"`
		Defs map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &sch); err != nil {
		t.Fatal(err)
	}
	statusEnum := sch.Defs["Bet"].Properties["status"].Enum
	for _, s := range engine.Statuses() {
		r := &engine.Result{Kind: engine.KindRun, Bets: []engine.BetResult{{ID: "x", Status: s}}}
		var doc struct {
			Totals struct {
				ByStatus map[string]int `json:"by_status"`
			} `json:"totals"`
		}
		if err := json.Unmarshal(render(t, reporters.FormatJSON, r, reporters.TextOptions{}), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Totals.ByStatus[string(s)] != 1 {
			t.Errorf("a %s bet: by_status = %v, want %s: 1", s, doc.Totals.ByStatus, s)
		}
		if !slices.Contains(statusEnum, string(s)) {
			t.Errorf("the schema's status enum %v lacks %q", statusEnum, s)
		}
	}
	if len(statusEnum) != len(engine.Statuses()) {
		t.Errorf("the schema's status enum %v, want exactly %v", statusEnum, engine.Statuses())
	}
}

func TestJSONRoundsMoneyToCents(t *testing.T) {
	r := &engine.Result{Kind: engine.KindRun, Bets: []engine.BetResult{
		{ID: "a", Status: engine.StatusSettled, NotificationID: 1, Stake: money(0.1 + 0.2), AmountAccepted: 0.1 + 0.2, Profit: 1.005 + 0.0001},
		{ID: "b", Status: engine.StatusSettled, NotificationID: 2, Profit: -0.001},
	}}
	out := string(render(t, reporters.FormatJSON, r, reporters.TextOptions{}))
	for _, want := range []string{`"stake": 0.3,`, `"amount_accepted": 0.3,`, `"profit": 1.01,`, `"profit": 0,`} {
		if !strings.Contains(out, want) {
			t.Errorf("report.json lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "-0,") || strings.Contains(out, "0.30000000000000004") {
		t.Errorf("report.json holds an unrounded or negative-zero amount:\n%s", out)
	}
}

// docs/reports.md documents every field the schema has.
func TestReportDocCoversEveryField(t *testing.T) {
	doc, err := os.ReadFile("../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := reporters.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var sch struct {
		Properties map[string]any `json:"properties"`
		Defs       map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &sch); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for k := range sch.Properties {
		names[k] = true
	}
	for _, d := range sch.Defs {
		for k := range d.Properties {
			names[k] = true
		}
	}
	for name := range names {
		if !strings.Contains(string(doc), name+"`") {
			t.Errorf("docs/reports.md does not document %q", name)
		}
	}
}
