package plan_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/betplan/betplan/plan"
)

func formattable(t *testing.T) (valid, invalid []string) {
	t.Helper()
	for _, g := range []string{"../examples/*.yaml", "../testdata/plans/warnings/*.yaml", "../testdata/diff/*.yaml"} {
		m, err := filepath.Glob(g)
		must(t, err)
		valid = append(valid, m...)
	}
	invalid, err := filepath.Glob("../testdata/plans/invalid/*.yaml")
	must(t, err)
	check(t, len(valid) > 15 && len(invalid) > 20, "too few plans found: %d valid, %d invalid", len(valid), len(invalid))
	return valid, invalid
}

var commentRE = regexp.MustCompile(`#.*$`)

// TestFormatKeepsEveryPlan formats every example and golden plan: the
// decoded plan must not change, comments must survive, and formatting
// the result again must change nothing.
func TestFormatKeepsEveryPlan(t *testing.T) {
	valid, invalid := formattable(t)
	for _, f := range valid {
		if strings.HasSuffix(f, "invalid.yaml") {
			continue
		}
		t.Run(f, func(t *testing.T) {
			src, err := os.ReadFile(f)
			must(t, err)
			before, diags := plan.Parse(f, src)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			out, diags := plan.Format(f, src)
			check(t, !diags.HasErrors(), "diagnostics: %s", diags.Error())
			after, diags := plan.Parse(f, out)
			if diags.HasErrors() {
				t.Fatalf("the formatted plan is invalid: %s\n%s", diags.Error(), out)
			}
			if d := plan.Diff(before, after); d.Changed() {
				t.Errorf("formatting changed the plan: %+v\n%s", d, out)
			}
			ids := func(p *plan.Plan) (s []string) {
				for _, b := range p.Bets {
					s = append(s, b.ID)
				}
				return s
			}
			equal(t, ids(before), ids(after), "bet order")
			for _, line := range strings.Split(string(src), "\n") {
				// A comment is kept word for word; only the spaces before it may change.
				if c := commentRE.FindString(line); c != "" && !strings.Contains(line, `"#`) {
					check(t, strings.Contains(string(out), c), "comment %q lost:\n%s", c, out)
				}
			}
			again, _ := plan.Format(f, out)
			check(t, string(again) == string(out), "not idempotent:\nfirst:\n%s\nsecond:\n%s", out, again)
		})
	}
	for _, f := range invalid {
		src, err := os.ReadFile(f)
		must(t, err)
		out, diags := plan.Format(f, src)
		check(t, diags.HasErrors() && out == nil, "%s: an invalid plan must come back as errors, not formatted", f)
	}
}

func TestFormatCanonicalLayout(t *testing.T) {
	src := `# a plan written by hand
bets:
    - stake: 5
      selection: '3'
      id: a   # the first
      race: {event_number: 1, code: Galloping, venue: Flemington}
    # the second bet
    - id: "b"
      race: {venue: Flemington, code: Galloping, event_number: 2}
      selection: "1"
      stake: 5
      target_session: "4417"
name: "hand"
version: 1

limits: {max_bets: 2, max_total_stake: 10}
defaults:
    market: Fixed Win
    type: Fixed Wager
`
	want := `# a plan written by hand
version: 1
name: hand

limits: {max_total_stake: 10, max_bets: 2}
defaults:
  type: Fixed Wager
  market: Fixed Win
bets:
  - id: a # the first
    race: {venue: Flemington, code: Galloping, event_number: 1}
    selection: "3"
    stake: 5

  # the second bet
  - id: b
    race: {venue: Flemington, code: Galloping, event_number: 2}
    selection: "1"
    target_session: "4417"
    stake: 5
`
	out, diags := plan.Format("hand.yaml", []byte(src))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	equal(t, want, string(out))
}

// TestFormatTipsLayout lays tips out in the documented key order, a blank
// line between them, with the pre-alert before them.
func TestFormatTipsLayout(t *testing.T) {
	src := `tips:
  - analysis: Drawn to lead.
    confidence: High
    when: race.minutes_to_start <= 15
    use_bonus: false
    bookies: '41&42'
    max_odds: 5
    odds: 3.5
    amount_units: 2
    selection: '3'
    market: Fixed Win
    race: {event_number: 4, code: Galloping, venue: Flemington}
    id: flem4-no3
  - {id: flem5-no1, race: {venue: Flemington, code: Galloping, event_number: 5}, market: Fixed Win, selection: "1", amount_units: 1, odds: 2.4, max_odds: 3, bookies: "41"}
prealert: {before: 20m}
name: tipster
version: 1
`
	want := `version: 1
name: tipster
prealert: {before: 20m}
tips:
  - id: flem4-no3
    race: {venue: Flemington, code: Galloping, event_number: 4}
    market: Fixed Win
    selection: "3"
    amount_units: 2
    odds: 3.5
    max_odds: 5
    bookies: 41&42
    use_bonus: false
    when: race.minutes_to_start <= 15
    confidence: High
    analysis: Drawn to lead.

  - {id: flem5-no1, race: {venue: Flemington, code: Galloping, event_number: 5}, market: Fixed Win, selection: "1", amount_units: 1, odds: 2.4, max_odds: 3, bookies: "41"}
`
	out, diags := plan.Format("tipster.yaml", []byte(src))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	equal(t, want, string(out))
}

// A block of end-of-line comments a person lined up stays lined up, at
// their column when the code fits, and formatting it again changes
// nothing; a lone comment keeps one space.
func TestFormatKeepsAlignedComments(t *testing.T) {
	src := `version: 1
name: t   # the plan
limits: {max_stake_per_bet: 5, max_total_stake: 50, max_bets: 10}
defaults: {type: Fixed Wager, market: Fixed Win}
bets:
  - id: a
    race: {venue: Flemington, code: Galloping, event_number: 1}
    selection: "1"     # the favourite
    stake: 2           # two dollars
    when: race.minutes_to_start <= 5 # late
`
	out, diags := plan.Format("p.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, want := range []string{
		"    selection: \"1\"     # the favourite\n",
		"    stake: 2           # two dollars\n",
		"name: t # the plan\n",
		"    when: race.minutes_to_start <= 5 # late\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("formatted plan lacks %q:\n%s", want, out)
		}
	}
	again, _ := plan.Format("p.yaml", out)
	if string(again) != string(out) {
		t.Errorf("formatting twice changes the plan:\n%s\nthen\n%s", out, again)
	}
}
