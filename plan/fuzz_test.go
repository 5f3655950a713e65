package plan_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/betplan/betplan/plan"
)

// FuzzLoad: any bytes give a plan or diagnostics, never a panic or a hang.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("../examples/*.yaml")
	more, _ := filepath.Glob("../testdata/plans/*/*.yaml")
	for _, s := range append(seeds, more...) {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, diags := plan.Parse("fuzz.yaml", data)
		if (p == nil) != diags.HasErrors() {
			t.Fatalf("plan %v with diagnostics %v", p != nil, diags)
		}
		if p == nil && len(diags) == 0 {
			t.Fatal("no plan and no diagnostics")
		}
		for _, d := range diags {
			if d.Summary == "" || d.Line < 0 || d.Column < 0 {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
	})
}

// generatedPlan is n bets over 40 races, a mix of static and expression
// stakes and conditions, as a large generated card would be.
func generatedPlan(n int) []byte {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\nname: big\nvars: {unit: 2}\nlimits: {max_stake_per_bet: 20, max_total_stake: %d, max_bets: %d}\n", n*20, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nraces:\n")
	venues := []string{"Flemington", "Randwick", "Menangle", "The Meadows"}
	codes := []string{"Galloping", "Galloping", "Harness", "Greyhounds"}
	for i := range 40 {
		fmt.Fprintf(&sb, "  r%d: {venue: %s, code: %s, event_number: %d}\n", i, venues[i%4], codes[i%4], i/4+1)
	}
	sb.WriteString("bets:\n")
	for i := range n {
		sel := i%12 + 1
		if codes[i%4] == "Greyhounds" {
			sel = i%10 + 1 // eight boxes and two reserves
		}
		fmt.Fprintf(&sb, "  - id: b%05d\n    race: r%d\n    selection: \"%d\"\n", i, i%40, sel)
		switch i % 4 {
		case 0:
			sb.WriteString("    stake: 5\n")
		case 1:
			sb.WriteString("    stake: vars.unit * 2\n    when: race.minutes_to_start <= 10\n")
		case 2:
			sb.WriteString("    stake: clamp(round(total_balance(running(sessions)) * 0.01, 2), 1, 20)\n")
		default:
			sb.WriteString("    stake: 7.5\n    when: race.minutes_to_start <= 5 && race.minutes_to_start > 1\n")
		}
	}
	return []byte(sb.String())
}

func BenchmarkValidate10000Bets(b *testing.B) {
	data := generatedPlan(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p, diags := plan.Parse("big.yaml", data)
		if diags.HasErrors() || len(p.Bets) != 10000 {
			b.Fatalf("%d bets: %s", len(p.Bets), diags.Error())
		}
	}
}

func TestGeneratedPlanIsValid(t *testing.T) {
	p, diags := plan.Parse("big.yaml", generatedPlan(100))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	check(t, p != nil && len(p.Bets) == 100, "want 100 bets")
}
