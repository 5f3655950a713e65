package plan_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/plan"
)

const eventPlanHead = `version: 1
name: footy
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
`

// TestEventBets reads the ways a bet names a sports event into the model.
func TestEventBets(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		event     plan.EventRef
		market    string
		selection string
		handicap  string // "" for none
	}{
		{"by sport and name", `defaults: {type: Fixed Wager, stake: 5}
bets:
  - id: a
    event: {sport: AFL, name: "  Collingwood v Carlton "}
    market: Head To Head
    selection: Collingwood
`, plan.EventRef{Sport: "AFL", Name: "Collingwood v Carlton"}, "Head To Head", "Collingwood", ""},
		{"by id written as a number, with a line", `defaults: {type: Fixed Wager, stake: 5}
bets:
  - id: a
    event: {id: 9001}
    market: Line
    selection: Collingwood
    handicap: -12.5
`, plan.EventRef{ID: "9001"}, "Line", "Collingwood", "-12.5"},
		{"a line of zero is a line", `defaults: {type: Fixed Wager, stake: 5}
bets:
  - id: a
    event: {id: "9001", sport: AFL}
    market: Line
    selection: Carlton
    handicap: 0
`, plan.EventRef{ID: "9001", Sport: "AFL"}, "Line", "Carlton", "0"},
		{"event, market and line from the defaults", `defaults: {type: Fixed Wager, stake: 5, event: {sport: NBA, name: Lakers v Celtics}, market: Total Points, handicap: 220.5}
bets:
  - id: a
    selection: Over
`, plan.EventRef{Sport: "NBA", Name: "Lakers v Celtics"}, "Total Points", "Over", "220.5"},
		{"a racing default market overridden", `defaults: {type: Fixed Wager, stake: 5, market: Fixed Win}
bets:
  - id: a
    event: {sport: Tennis, name: M. Ferraro v J. Whitlock}
    market: Head To Head
    selection: M. Ferraro
`, plan.EventRef{Sport: "Tennis", Name: "M. Ferraro v J. Whitlock"}, "Head To Head", "M. Ferraro", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, diags := plan.Parse("footy.yaml", []byte(eventPlanHead+tt.yaml))
			if diags.HasErrors() || len(diags) > 0 {
				t.Fatalf("want a clean plan:\n%s", diags.Error())
			}
			b := p.Bets[0]
			check(t, b.IsEvent(), "want an event bet")
			check(t, b.Race == nil && b.ForEachRace == nil, "an event bet has no race")
			equal(t, tt.event, *b.Event)
			equal(t, tt.market, b.Market)
			equal(t, tt.selection, b.Selection)
			got := ""
			if b.Handicap != nil {
				got = b.Handicap.String()
			}
			equal(t, tt.handicap, got)
		})
	}
}

// TestEventBetKeepsItsOwnRace: a bet's own race wins over the defaults'
// event, as over the defaults' race.
func TestEventBetKeepsItsOwnRace(t *testing.T) {
	p, diags := plan.Parse("footy.yaml", []byte(eventPlanHead+`defaults: {type: Fixed Wager, stake: 5, event: {id: "9001"}, market: Head To Head}
bets:
  - id: pies
    selection: Collingwood
  - id: flem
    race: {venue: Flemington, code: Galloping, event_number: 4}
    market: Fixed Win
    selection: "3"
`))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	check(t, p.Bets[0].IsEvent(), "pies takes the defaults' event")
	check(t, !p.Bets[1].IsEvent() && p.Bets[1].Race != nil, "flem is on its own race")
}

func TestFoldEvent(t *testing.T) {
	for _, s := range []string{"St Kilda v Carlton", "st. kilda  VS carlton", " ST KILDA vs. Carlton"} {
		equal(t, "st kilda v carlton", plan.FoldEvent(s))
	}
	check(t, plan.FoldEvent("Carlton v St Kilda") != plan.FoldEvent("St Kilda v Carlton"), "the order of the sides matters")
}

// TestEventSchema: the JSON Schema accepts event bets, with market and
// selection as the event names them, and keeps the racing values where a
// bet is on a race.
func TestEventSchema(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	must(t, err)
	valid := func(doc string) error {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		must(t, err)
		return sch.Validate(inst)
	}
	for _, doc := range []string{
		`{"version": 1, "name": "x", "bets": [{"id": "a", "event": {"sport": "AFL", "name": "Collingwood v Carlton"}, "market": "Head To Head", "selection": "Collingwood", "handicap": -12.5}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "event": {"id": 9001}, "market": "Line", "selection": "Carlton"}]}`,
		`{"version": 1, "name": "x", "defaults": {"event": {"id": "9001"}, "market": "Line"}, "bets": [{"id": "a", "selection": "Carlton", "handicap": 6.5}]}`,
		`{"version": 1, "name": "x", "defaults": {"market": "Head To Head"}, "bets": [{"id": "a", "event": {"id": "9001"}, "selection": "Carlton"}]}`,
	} {
		if err := valid(doc); err != nil {
			t.Errorf("the schema refuses %s: %v", doc, err)
		}
	}
	for _, doc := range []string{
		// a race bet keeps the racing market and selection, and has no handicap
		`{"version": 1, "name": "x", "bets": [{"id": "a", "race": "r", "market": "Head To Head"}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "market": "Line", "selection": "Carlton"}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "race": "r", "selection": "3", "handicap": 1.5}]}`,
		`{"version": 1, "name": "x", "defaults": {"event": {"id": "9001"}}, "bets": [{"id": "a", "race": "r", "selection": "Carlton"}]}`,
		// an event names its id, or its sport and name, and nothing else
		`{"version": 1, "name": "x", "bets": [{"id": "a", "event": {"name": "Collingwood v Carlton"}}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "event": {"id": "9001", "team": "Carlton"}}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "event": 9001}]}`,
	} {
		check(t, valid(doc) != nil, "the schema accepts %s", doc)
	}
}

func TestFormatEventKeys(t *testing.T) {
	src := `version: 1
name: footy
limits: {max_stake_per_bet: 20}
bets:
  - handicap: -12.5
    selection: Collingwood
    market: Line
    stake: 5
    type: Fixed Wager
    event: {name: Collingwood v Carlton, sport: AFL}
    id: a
  - id: b
    event:
      name: Lakers v Celtics
      id: "9102"
    type: Fixed Wager
    market: Head To Head
    selection: Lakers
    stake: 5
`
	want := `version: 1
name: footy
limits: {max_stake_per_bet: 20}
bets:
  - id: a
    event: {sport: AFL, name: Collingwood v Carlton}
    selection: Collingwood
    handicap: -12.5
    type: Fixed Wager
    market: Line
    stake: 5

  - id: b
    event:
      id: "9102"
      name: Lakers v Celtics
    selection: Lakers
    type: Fixed Wager
    market: Head To Head
    stake: 5
`
	out, diags := plan.Format("footy.yaml", []byte(src))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	equal(t, want, string(out))
}

// TestDiffEvents: a diff shows what changes on event bets, and which
// changes make a bet new for exactly-once.
func TestDiffEvents(t *testing.T) {
	d := plan.Diff(loadDiffPlan(t, "events-old.yaml"), loadDiffPlan(t, "events-new.yaml"))
	byID := map[string]plan.BetChange{}
	for _, b := range d.Bets {
		byID[b.ID] = b
	}
	equal(t, "", byID["pies-h2h"].NewLabel, "the same event, spelt differently")
	equal(t, []plan.Change{{Field: "event", Old: "Collingwood v Carlton (AFL)", New: "COLLINGWOOD vs Carlton (afl)"}}, byID["pies-h2h"].Changes)
	equal(t, "", byID["pies-line"].NewLabel, "a new line is the same bet")
	equal(t, []plan.Change{{Field: "handicap", Old: "-12.5", New: "-9.5"}}, byID["pies-line"].Changes)
	check(t, strings.Contains(byID["lakers"].NewLabel, "the event"), "another event id makes a new bet: %q", byID["lakers"].NewLabel)
	equal(t, "the bet moves between a race and a sports event", byID["flem4"].NewLabel)

	sch, err := jsonschema.NewCompiler().Compile(diffSchemaPath)
	must(t, err)
	var js bytes.Buffer
	must(t, plan.WriteDiffJSON(&js, d))
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js.Bytes()))
	must(t, err)
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the JSON does not match %s: %v", diffSchemaPath, err)
	}
	for _, format := range []string{"txt", "md"} {
		var b bytes.Buffer
		if format == "txt" {
			must(t, plan.WriteDiffText(&b, d, false))
		} else {
			must(t, plan.WriteDiffMarkdown(&b, d))
		}
		golden.Check(t, filepath.Join("../testdata/diff/golden", "events."+format), b.Bytes())
	}
}

// TestEventRules: the sport warning is an unknown name for code scanning,
// like a venue's.
func TestEventRules(t *testing.T) {
	_, diags := plan.Load("../testdata/plans/warnings/event-unknown-sport.yaml")
	check(t, len(diags) == 2, "want 2 warnings, got %d", len(diags))
	for _, d := range diags {
		equal(t, "unknown-name", d.RuleOf().Name, d.Summary)
	}
}
