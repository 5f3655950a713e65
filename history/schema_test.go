package history_test

import (
	"bytes"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/internal/golden"
)

const historySchemaPath = "../schema/history.schema.json"

// The schema folder's copy is the one betplan prints.
func TestHistorySchemaIsUpToDate(t *testing.T) {
	got, err := history.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, historySchemaPath, got) // `make schema` writes the same file
}

// history --format json matches its schema, for every grouping, with an
// empty state, with nulls, and with a journal skipped.
func TestHistoryJSONMatchesItsSchema(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(historySchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	bets := sampleBets()
	rehearsed := sampleBets()
	for i := range rehearsed {
		rehearsed[i].Sim = []string{"served", "in-process"}[i%2]
	}
	for _, by := range append([][]string{{"plan", "day"}, {"account", "plan"}}, each(history.Fields)...) {
		for k, in := range [][]history.Bet{nil, bets, rehearsed} {
			s := history.Summarise(in, history.Query{By: by, Sim: k == 2})
			s.Skipped = []history.Skipped{{Where: "x.journal.jsonl", Reason: "line 2 does not read"}}
			s.Reconciled = len(by) == 1
			if s.Reconciled {
				s.Read = &history.ServiceRead{Since: "2026-11-01", Records: 120, Pages: 2, Bytes: 180000, LeftOut: 3, Ended: history.EndedOlderPage}
			}
			if by[0] == "day" {
				s.Differences = []history.Difference{{Label: "bp:x:y:1", Plan: "x", Kind: "profit_corrected", Words: "corrected"}, {Label: "manual", Kind: "unknown", Words: "no plan"}}
			}
			var b bytes.Buffer
			if err := history.WriteJSON(&b, &s); err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("by %v: %v\n%s", by, err, b.String())
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("by %v: the JSON does not match %s: %v\n%s", by, historySchemaPath, err, b.String())
			}
		}
	}
}

func each(fs []string) [][]string {
	out := make([][]string, len(fs))
	for i, f := range fs {
		out[i] = []string{f}
	}
	return out
}
