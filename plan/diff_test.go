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

const diffSchemaPath = "../schema/diff.schema.json"

func TestDiffSchemaIsUpToDate(t *testing.T) {
	got, err := plan.DiffJSONSchema()
	must(t, err)
	golden.Check(t, diffSchemaPath, got) // `make schema` writes the same file
}

func loadDiffPlan(t *testing.T, name string) *plan.Plan {
	t.Helper()
	p, diags := plan.Load(filepath.Join("../testdata/diff", name))
	if diags.HasErrors() {
		t.Fatalf("%s: %s", name, diags.Error())
	}
	return p
}

// TestDiffGolden renders each pair in every format; the goldens are the
// review a person reads, so a change to them is a change to the product.
func TestDiffGolden(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(diffSchemaPath)
	must(t, err)
	old := loadDiffPlan(t, "old.yaml")
	for _, name := range []string{"new", "renamed", "defaults", "old"} {
		d := plan.Diff(old, loadDiffPlan(t, name+".yaml"))
		for _, format := range []string{"txt", "color.txt", "md", "json"} {
			t.Run(name+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				switch format {
				case "txt":
					must(t, plan.WriteDiffText(&b, d, false))
				case "color.txt":
					must(t, plan.WriteDiffText(&b, d, true))
				case "md":
					must(t, plan.WriteDiffMarkdown(&b, d))
				case "json":
					must(t, plan.WriteDiffJSON(&b, d))
					inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
					must(t, err)
					if err := sch.Validate(inst); err != nil {
						t.Errorf("the JSON does not match %s: %v", diffSchemaPath, err)
					}
				}
				golden.Check(t, filepath.Join("../testdata/diff/golden", name+"."+format), b.Bytes())
			})
		}
	}
}

// TestDiffFindsEachKindOfChange checks the diff's model, not its text:
// each edit in new.yaml must be found where a reviewer looks for it.
func TestDiffFindsEachKindOfChange(t *testing.T) {
	old := loadDiffPlan(t, "old.yaml")
	d := plan.Diff(old, loadDiffPlan(t, "new.yaml"))
	fields := map[string]plan.Change{}
	for _, c := range d.Plan {
		fields[c.Field] = c
	}
	equal(t, plan.Change{Field: "vars.bank", New: "500"}, fields["vars.bank"], "a var added")
	equal(t, plan.Change{Field: "limits.max_total_stake", Old: "100", New: "80"}, fields["limits.max_total_stake"], "a limit changed")
	equal(t, plan.Change{Field: "poll.timeout", Old: "6h", New: "5h"}, fields["poll.timeout"], "poll changed")
	bets := map[string]plan.BetChange{}
	for _, b := range d.Bets {
		bets[b.ID] = b
	}
	equal(t, plan.BetAdded, bets["meadows-every-box1"].Kind, "added")
	equal(t, plan.BetRemoved, bets["menangle3-no4"].Kind, "removed")
	equal(t, plan.BetChanged, bets["rand6-no7"].Kind, "changed")
	equal(t, "", bets["rand6-no7"].NewLabel, "a stake and selection change keeps the label")
	check(t, bets["meadows8-box2"].NewLabel != "", "a race's event number is part of the label")
	_, untouched := bets["flem4-no3"] // its own when overrides the changed default
	check(t, !untouched, "flem4-no3 did not change, yet the diff lists it")
	stake := bets["rand6-no7"].Changes
	check(t, len(stake) == 3 && stake[1] == plan.Change{Field: "stake", Old: "15", New: "vars.unit * 2"}, "expression stake: %v", stake)
	equal(t, 70.0, d.Before.StaticTotal, "static total before")
	equal(t, 65.0, d.After.StaticTotal, "static total after: vars.unit * 2 counts its $20")
	equal(t, 1, d.After.PerRaceBets, "for_each_race bets after")

	same := plan.Diff(old, loadDiffPlan(t, "old.yaml"))
	check(t, !same.Changed(), "a plan compared with itself changed: %+v", same)

	renamed := plan.Diff(old, loadDiffPlan(t, "renamed.yaml"))
	equal(t, len(old.Bets), renamed.Count(plan.BetChanged), "a rename changes every bet")
	for _, b := range renamed.Bets {
		check(t, strings.Contains(b.NewLabel, "plan name"), "bet %s: want a new label, got %q", b.ID, b.NewLabel)
	}
	check(t, len(renamed.Warnings) == 1, "a rename is a warning")
}

// TestDiffTips checks that tips are added, removed and changed like bets,
// with the changes that make a tip new to the journal called out.
func TestDiffTips(t *testing.T) {
	d := plan.Diff(loadDiffPlan(t, "tips-old.yaml"), loadDiffPlan(t, "tips-new.yaml"))
	tips := map[string]plan.BetChange{}
	for _, c := range d.Tips {
		tips[c.ID] = c
	}
	equal(t, 4, len(d.Tips), "tips changed")
	equal(t, plan.BetAdded, tips["sandown-box2"].Kind, "added")
	equal(t, plan.BetRemoved, tips["meadows-box1"].Kind, "removed")
	equal(t, plan.BetChanged, tips["flem4-no3"].Kind, "changed")
	equal(t, "", tips["flem4-no3"].NewLabel, "new odds keep the tip's journal key")
	check(t, strings.Contains(tips["flem5-no1"].NewLabel, "race"), "a race change makes the tip new: %q", tips["flem5-no1"].NewLabel)
	equal(t, []plan.Change{
		{Field: "amount_units", Old: "2", New: "3"},
		{Field: "odds", Old: "3.50", New: "3.80"},
		{Field: "confidence", New: "High"},
	}, tips["flem4-no3"].Changes, "flem4-no3's changes")
	fields := map[string]plan.Change{}
	for _, c := range d.Plan {
		fields[c.Field] = c
	}
	equal(t, plan.Change{Field: "prealert.before", New: "20m"}, fields["prealert.before"], "a pre-alert added")
	check(t, d.Changed(), "the diff must count tips as changes")
	check(t, !plan.Diff(loadDiffPlan(t, "tips-old.yaml"), loadDiffPlan(t, "tips-old.yaml")).Changed(), "a plan compared with itself changed")

	for _, format := range []string{"txt", "md"} {
		var b bytes.Buffer
		if format == "txt" {
			must(t, plan.WriteDiffText(&b, d, false))
		} else {
			must(t, plan.WriteDiffMarkdown(&b, d))
		}
		golden.Check(t, filepath.Join("../testdata/diff/golden", "tips."+format), b.Bytes())
	}
}

// A changed for_each_race changes which races, and so which labels, the
// bet is made on: the diff calls it out like any label change; the same
// expression spaced differently is no change.
func TestDiffForEachRaceChangesLabels(t *testing.T) {
	src := func(expr string) *plan.Plan {
		p, diags := plan.Parse("p.yaml", []byte(`version: 1
name: cron
limits: {max_stake_per_bet: 5, max_total_stake: 50, max_bets: 10}
defaults: {type: Fixed Wager, market: Fixed Win}
bets:
  - id: box1
    for_each_race: `+expr+`
    selection: "1"
    stake: 2
`))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return p
	}
	d := plan.Diff(src(`race.code == "Greyhounds"`), src(`race.code == "Greyhounds" && race.venue == "The Meadows"`))
	if len(d.Bets) != 1 || !strings.Contains(d.Bets[0].NewLabel, "for_each_race") {
		t.Fatalf("diff = %+v, want box1 flagged: its for_each_race changes its labels", d.Bets)
	}
	same := plan.Diff(src(`race.code == "Greyhounds"`), src(`race.code  ==  "Greyhounds"`))
	for _, b := range same.Bets {
		if b.NewLabel != "" {
			t.Errorf("respacing the expression flags a label change: %+v", b)
		}
	}
}

// TestDiffNotify shows a notify target and the heartbeat changing, their
// URLs as written (a literal one by scheme and host only).
func TestDiffNotify(t *testing.T) {
	parse := func(tail string) *plan.Plan {
		t.Helper()
		p, diags := plan.Parse("p.yaml", []byte(`version: 1
name: p
limits: {max_stake_per_bet: 5, max_total_stake: 5, max_bets: 1}
bets:
  - {id: a, race: {venue: Flemington, code: Galloping, event_number: 1}, type: Fixed Wager, market: Fixed Win, selection: "2", stake: 5}
`+tail))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		return p
	}
	old := parse("notify:\n  - url: ${SLACK_URL}\n  - url: https://hooks.example.com/T0KEN\n    on: [placed]\n")
	d := plan.Diff(old, parse("notify:\n  - url: ${SLACK_URL}\n    on: [summary]\nheartbeat: https://hc-ping.com/T0KEN\n"))
	equal(t, []plan.Change{
		{Field: "notify[0]", Old: "${SLACK_URL} on not_placed, missed, settled, limit, in_doubt, run_failed, summary, stopped, plan_invalid, token_expiring", New: "${SLACK_URL} on summary"},
		{Field: "notify[1]", Old: "https://hooks.example.com/… on placed"},
		{Field: "heartbeat", New: "https://hc-ping.com/…"},
	}, d.Plan, "notify changes")
	check(t, !plan.Diff(old, old).Changed(), "a plan compared with itself changed")
}
