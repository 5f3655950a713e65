package plan_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/betplan/betplan/plan"
)

func boundsPlan(when, stake string) string {
	return fmt.Sprintf(`version: 1
name: bounds
vars: {unit: 5, n: 1000000, x: "x"}
limits: {max_stake_per_bet: 25, max_total_stake: 100}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: b
    race: {venue: Flemington, code: Galloping, event_number: 4}
    selection: "3"
    stake: %s
    when: '%s'
`, stake, when)
}

// TestEvaluationBoundsFailTheBetAlone: an expression whose constant parts
// are too big is refused by validate; one that builds too much from what
// only the run knows fails when evaluated, with the reason, and never
// allocates what it asked for.
func TestEvaluationBounds(t *testing.T) {
	tests := []struct {
		name, when string
		validate   string // the validate error, or "" when valid
		run        string // the evaluation error
	}{
		{"nested repeats", `len(repeat(repeat("x", 999999), 1000000)) > 0`,
			"bounds.yaml:11:16: when: invalid expression: this repeat would build a string of 999999000000 bytes", ""},
		{"one repeat too long", `len(repeat("ab", 600000)) > 0`,
			"bounds.yaml:11:16: when: invalid expression: this repeat would build a string of 1200000 bytes", ""},
		{"a repeat of vars", `len(repeat(repeat(vars.x, 999999), vars.n)) > 0`, "",
			"repeat would build a string of 999999000000 bytes, more than the 1048576 an expression may build"},
		{"doubling with reduce", `len(reduce(1..64, #acc + #acc, "xx")) > 0`, "",
			"+ would build a string of 2097152 bytes"},
		{"replace", `len(replace(repeat(vars.x, 1000), "x", repeat(vars.x, 100000))) > 0`, "",
			"replace would build a string of 100000000 bytes"},
		{"join", `len(join(map(1..100, repeat(vars.x, 100000)), ",")) > 0`, "",
			"join would build a string of 10000099 bytes"},
		{"a list too long", `len(1..(race.event_number * 2000000)) > 0`, "",
			"memory budget exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, diags := plan.Parse("bounds.yaml", []byte(boundsPlan(tt.when, "5")))
			if tt.validate != "" {
				check(t, diags.HasErrors() && strings.Contains(diags.Error(), tt.validate), "want %q, got\n%s", tt.validate, diags.Error())
				return
			}
			check(t, !diags.HasErrors(), "%s", diags.Error())
			e := env(5, "Flemington", "Galloping")
			e.Vars = p.Vars
			_, err := p.Bets[0].Ready(e)
			check(t, err != nil && strings.Contains(err.Error(), tt.run), "want %q, got %v", tt.run, err)
		})
	}
}

// TestBoundedBuildersStillWork: within the bounds, repeat, replace, join
// and + give what expr's own do.
func TestBoundedBuildersStillWork(t *testing.T) {
	when := `repeat("ab", 2) + "-" + replace("a.b", ".", "/") + join(["x", "y"], ",") == "abab-a/bx,y" && join(map([1, 2], "z")) == "zz"`
	p, diags := plan.Parse("bounds.yaml", []byte(boundsPlan(when, "5")))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	ok, err := p.Bets[0].Ready(env(5, "Flemington", "Galloping"))
	must(t, err)
	check(t, ok, "the builders gave something else")
}

// TestASelfReferencingAliasIsRefusedAtOnce: an alias inside its own
// anchor is refused at its position before anything expands it (it took
// 550 MB before the node budget refused it).
func TestASelfReferencingAliasIsRefusedAtOnce(t *testing.T) {
	for _, src := range []string{
		"version: 1\nname: a\nvars: &a\n  x: *a\nbets: []\n",
		"version: 1\nname: a\nvars: &a {x: [1, {y: *a}]}\nbets: []\n",
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, diags := plan.Parse("alias.yaml", []byte(src))
		runtime.ReadMemStats(&after)
		check(t, strings.Contains(diags.Error(), "alias *a is inside its own anchor &a: it would expand forever"), "got %s", diags.Error())
		check(t, after.TotalAlloc-before.TotalAlloc < 10<<20, "allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
	}
}

// TestBoundedPlusKeepsTypeErrors: the bounded + still lets the checker
// refuse a string added to a number, or compared with one.
func TestBoundedPlusKeepsTypeErrors(t *testing.T) {
	for when, want := range map[string]string{
		`race.venue + 1 == "x"`: "invalid operation: + (mismatched types string and int)",
		`race.venue + "x" > 5`:  "invalid operation: > (mismatched types string and int)",
	} {
		_, diags := plan.Parse("bounds.yaml", []byte(boundsPlan(when, "5")))
		check(t, strings.Contains(diags.Error(), want), "%s: want %q, got %s", when, want, diags.Error())
	}
}
