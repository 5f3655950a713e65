package reporters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

const explainSchemaPath = "../schema/explain.schema.json"

func TestExplainSchemaIsUpToDate(t *testing.T) {
	got, err := reporters.ExplainJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, explainSchemaPath, got) // `make schema` writes the same file
}

// explainPlan is a plan with a bet for each thing a journal tells.
const explainPlan = `version: 1
name: card
limits: {period: day, max_total_stake: 12}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: won, race: {venue: Flemington, code: Galloping, event_number: 1}, selection: "8", stake: 5}
  - {id: capped, race: {venue: Flemington, code: Galloping, event_number: 1}, selection: "1", stake: 8, when: race.minutes_to_start > 0}
  - {id: refused, race: {venue: Flemington, code: Galloping, event_number: 2}, selection: "1", stake: 5}
  - {id: missed, race: {venue: Flemington, code: Galloping, event_number: 3}, selection: "1", stake: 5}
  - {id: doubt, race: {venue: Flemington, code: Galloping, event_number: 4}, selection: "1", stake: 5}
  - {id: never, race: {venue: Flemington, code: Galloping, event_number: 5}, selection: "1", stake: 5}
`

// explainJournal is a journal of every entry explain tells, as runs (and
// another part of betplan: detail_read, missed) keep them.
const explainJournal = `{"serial":1,"lineage":"l","time":"2026-11-27T21:00:00Z","op":"init","service":"https://api.example.com"}
{"serial":2,"lineage":"l","time":"2026-11-27T21:00:01Z","op":"creating","label":"bp:card:won:aaaaaaaaaaaa","bet":"won","amount":5,"at_risk":5,"basis":"$5.00 × 1: the target session 4417 (Main Sportsbet)","race":{"Venue":"Flemington","Code":"Galloping","EventNumber":1,"Start":"2026-11-28T09:07:00+11:00"},"attempt":1}
{"serial":3,"lineage":"l","time":"2026-11-27T21:00:02Z","op":"created","label":"bp:card:won:aaaaaaaaaaaa","bet":"won","id":1001,"amount":5}
{"serial":4,"lineage":"l","time":"2026-11-27T21:00:02Z","op":"not_created","label":"bp:card:capped:bbbbbbbbbbbb","bet":"capped","race":{"Venue":"Flemington","Code":"Galloping","EventNumber":1,"Start":"2026-11-28T09:07:00+11:00"},"status":"failed","code":"limit","limit":"max_total_stake","scope":"plan","period":"2026-11-28","error":"refused by a limit: max_total_stake $12.00 in day 2026-11-28: $5.00 at risk already committed by this plan, this bet adds $8.00","amount":8,"at_risk":8,"sums":{"staked":5,"open_stake":5,"profit":0,"worst_case":-5,"lowest_profit":0,"highest_profit":0,"bets":1,"race_stake":5,"race_bets":1}}
{"serial":5,"lineage":"l","time":"2026-11-27T21:00:02Z","op":"decided","label":"bp:card:capped:bbbbbbbbbbbb","bet":"capped","status":"failed","code":"limit","limit":"max_total_stake","scope":"plan","period":"2026-11-28","error":"refused by a limit: max_total_stake $12.00 in day 2026-11-28: $5.00 at risk already committed by this plan, this bet adds $8.00"}
{"serial":6,"lineage":"l","time":"2026-11-27T21:00:03Z","op":"creating","label":"bp:card:refused:cccccccccccc","bet":"refused","amount":5,"at_risk":5,"race":{"Venue":"Flemington","Code":"Galloping","EventNumber":2,"Start":"2026-11-28T09:36:00+11:00"},"attempt":1}
{"serial":7,"lineage":"l","time":"2026-11-27T21:00:04Z","op":"created","label":"bp:card:refused:cccccccccccc","bet":"refused","id":1002}
{"serial":8,"lineage":"l","time":"2026-11-27T21:00:05Z","op":"alert_queued","alert":{"key":"bp:card:refused:cccccccccccc|not_placed","target":"t1","where":"https://hooks.example.com/…","event":"not_placed","body":{}}}
{"serial":9,"lineage":"l","time":"2026-11-27T22:10:00Z","op":"placed","label":"bp:card:won:aaaaaaaaaaaa","placed_at":"2026-11-27T21:00:30Z","placed_from":"records"}
{"serial":10,"lineage":"l","time":"2026-11-27T22:10:00Z","op":"outcome","label":"bp:card:won:aaaaaaaaaaaa","outcome":{"label":"bp:card:won:aaaaaaaaaaaa","bet_id":"won","notification_id":1001,"result":"won","status":"settled","accepted":5,"odds":5.8,"profit":24,"sessions":[{"session":"Main Sportsbet","accepted":5,"odds":5.8,"profit":24}],"result_time":"2026-11-27T22:09:00Z"}}
{"serial":11,"lineage":"l","time":"2026-11-27T22:40:00Z","op":"detail_read","label":"bp:card:refused:cccccccccccc","id":1002,"code":"odds_bound","detail":{"bots":"bot-7f3a","records":[{"session":"Main Sportsbet","bookie":"25","result":"Error","error":"Odds 3.00 are below the minimum of 900.00.","status":"FAILED"}],"lines":["Main Sportsbet: bet failed: Odds 3.00 are below the minimum of 900.00."],"sessions":["Main Sportsbet (Sportsbet)"],"reason":"every session refused it: Main Sportsbet: Odds 3.00 are below the minimum of 900.00."}}
{"serial":12,"lineage":"l","time":"2026-11-27T22:40:01Z","op":"outcome","label":"bp:card:refused:cccccccccccc","outcome":{"label":"bp:card:refused:cccccccccccc","bet_id":"refused","notification_id":1002,"result":"not_placed","status":"failed","accepted":0,"profit":0,"sessions":[{"session":"Main Sportsbet","accepted":0,"profit":0,"result":"Error","error":"Odds 3.00 are below the minimum of 900.00.\u001b[2J"}],"reason_code":"odds_bound","reason":"every session errored: Main Sportsbet: Odds 3.00 are below the minimum of 900.00."}}
{"serial":13,"lineage":"l","time":"2026-11-27T23:10:00Z","op":"missed","label":"bp:card:missed:dddddddddddd","bet":"missed","race":{"Venue":"Flemington","Code":"Galloping","EventNumber":3,"Start":"2026-11-28T10:05:00+11:00"},"status":"skipped","code":"missed","window_closed":"2026-11-27T23:05:00Z","last_looked":"2026-11-27T21:00:05Z","error":"missed: its window closed at 10:05:00 AEDT, when its race started, and no run was there while it was open"}
{"serial":14,"lineage":"l","time":"2026-11-27T23:10:00Z","op":"creating","label":"bp:card:doubt:eeeeeeeeeeee","bet":"doubt","amount":5,"race":{"Venue":"Flemington","Code":"Galloping","EventNumber":4,"Start":"2026-11-28T10:35:00+11:00"},"attempt":1,"blocked":[{"session":"Main Sportsbet","code":"logged_out","words":"logged out since 2026-11-28 09:12:00 AEDT: 'invalid password'"}]}
{"serial":15,"lineage":"l","time":"2026-11-27T23:10:05Z","op":"absent","label":"bp:card:doubt:eeeeeeeeeeee","error":"timeout"}
{"serial":16,"lineage":"l","time":"2026-11-27T23:10:06Z","op":"creating","label":"bp:card:doubt:eeeeeeeeeeee","bet":"doubt","amount":5,"attempt":2}
{"serial":17,"lineage":"l","time":"2026-11-27T23:10:07Z","op":"from_a_later_betplan","label":"bp:card:doubt:eeeeeeeeeeee"}
`

func explainStories(t *testing.T) []reporters.ExplainInput {
	t.Helper()
	p, diags := plan.Parse("card.yaml", []byte(explainPlan))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var records [][]byte
	for _, l := range strings.Split(strings.TrimSpace(explainJournal), "\n") {
		records = append(records, []byte(l))
	}
	s, err := engine.TellJournal(p, "card.journal.jsonl", records)
	if err != nil {
		t.Fatal(err)
	}
	return []reporters.ExplainInput{{File: "card.yaml", Stories: []engine.Story{*s}}}
}

// The text a person reads, for a journal of every entry explain tells: a
// reviewer reads the golden file.
func TestExplainText(t *testing.T) {
	var b bytes.Buffer
	if err := reporters.WriteExplainText(&b, explainStories(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/explain.txt.golden", b.Bytes())
	if strings.Contains(b.String(), "\x1b") {
		t.Error("the service's words reached the text with an escape character in them")
	}
}

func TestExplainJSONValidatesAgainstSchema(t *testing.T) {
	f, err := os.Open(explainSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sdoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("explain.schema.json", sdoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("explain.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := reporters.WriteExplainJSON(&b, explainStories(t)); err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("explain --format json does not match %s: %v\n%s", explainSchemaPath, err, b.String())
	}
	for _, want := range []string{`"op": "not_created"`, `"op": "missed"`, `"op": "detail_read"`, `"staked": 5`, `"reason_code": "odds_bound"`,
		`"window_closed": "2026-11-27T23:05:00Z"`, `"seen_by": [`, `"blocked": [`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explain --format json lacks %s", want)
		}
	}

	// The schema must be able to say no, or the test above proves nothing.
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	doc["plans"].([]any)[0].(map[string]any)["bets"].([]any)[0].(map[string]any)["steps"].([]any)[0].(map[string]any)["reason_code"] = "because"
	if err := sch.Validate(doc); err == nil {
		t.Error("a step with reason_code \"because\" validated; the schema should allow only the list's codes")
	}
}
