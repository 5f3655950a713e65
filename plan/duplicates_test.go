package plan_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/betplan/betplan/plan"
)

// duplicateKeys is a plan of n copies of one key in a flow mapping on one
// line: the shape that made refusing it cost the most (every diagnostic
// quoted its 4 MiB line).
func duplicateKeys(n int) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for range n {
		b.WriteString("a: 1, ")
	}
	b.WriteString("b: 2}\n")
	return b.Bytes()
}

// refuse parses data and writes its diagnostics as validate does.
func refuse(tb testing.TB, data []byte) plan.Diagnostics {
	_, diags := plan.Parse("dup.yaml", data)
	if !diags.HasErrors() {
		tb.Fatal("a plan of duplicate keys was accepted")
	}
	if err := plan.WriteText(io.Discard, diags, map[string][]byte{"dup.yaml": data}); err != nil {
		tb.Fatal(err)
	}
	return diags
}

// BenchmarkRefuseDuplicateKeys refuses a 4 MiB plan of 690,000 duplicate
// keys, on one line and one a line.
func BenchmarkRefuseDuplicateKeys(b *testing.B) {
	for _, shape := range []struct {
		name string
		data []byte
	}{
		{"one-line", duplicateKeys(690_000)},
		{"one-a-line", []byte(strings.Repeat("a: 1\n", 690_000))},
	} {
		b.Run(shape.name, func(b *testing.B) {
			b.SetBytes(int64(len(shape.data)))
			b.ReportAllocs()
			for b.Loop() {
				refuse(b, shape.data)
			}
		})
	}
}

// TestDuplicateKeysBuildNoMoreThanTheCap: refusing a plan of many
// duplicate keys holds no more diagnostics than it shows (the cap) and the
// one that says how many more, and builds only those and the plan's few
// other problems, not one per key; it is the benchmark's path at a size CI
// runs at once.
func TestDuplicateKeysBuildNoMoreThanTheCap(t *testing.T) {
	const keys = 5000
	for _, shape := range []struct {
		name string
		data []byte
		// after is how many problems follow the duplicates (the one-line
		// shape ends with an unknown key).
		after int
	}{
		{"one-line", duplicateKeys(keys), 1},
		{"one-a-line", []byte(strings.Repeat("a: 1\n", keys)), 0},
	} {
		t.Run(shape.name, func(t *testing.T) {
			diags, built, peak := plan.ParseCountingDiagnostics("dup.yaml", shape.data)
			if peak > plan.MaxDiagnosticsPerFile+1 {
				t.Errorf("held %d diagnostics at once, want at most %d", peak, plan.MaxDiagnosticsPerFile+1)
			}
			// The cap, and the plan's other problems (no version, no
			// bets, an unknown key), each built once.
			if built > plan.MaxDiagnosticsPerFile+10 {
				t.Errorf("built %d diagnostics for %d duplicate keys, want the cap and the plan's few other problems", built, keys)
			}
			if len(diags) != plan.MaxDiagnosticsPerFile+1 {
				t.Fatalf("%d diagnostics, want %d and one more", len(diags), plan.MaxDiagnosticsPerFile)
			}
			// Every duplicate but the first ones shown is counted in the last.
			shownDup := 0
			for _, d := range diags {
				if strings.HasPrefix(d.Summary, `duplicate key "a"`) {
					shownDup++
				}
			}
			rest := keys - 1 - shownDup + shape.after
			want := fmt.Sprintf("and %d more problems in dup.yaml (%d errors, 0 warnings) not shown", rest, rest)
			if last := diags[len(diags)-1].Summary; !strings.HasPrefix(last, want) {
				t.Errorf("last diagnostic %q, want %q", last, want)
			}
			var b bytes.Buffer
			if err := plan.WriteText(&b, diags, map[string][]byte{"dup.yaml": shape.data}); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(b.String(), `duplicate key "a"`); n != shownDup {
				t.Errorf("%d duplicate-key lines written, want %d", n, shownDup)
			}
		})
	}
}
