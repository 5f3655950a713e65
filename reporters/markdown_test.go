package reporters_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

func TestMarkdownStaysUnderGitHubLimit(t *testing.T) {
	const limit = 1 << 20
	r := bigResult(20000)
	out := string(render(t, reporters.FormatMarkdown, r, reporters.TextOptions{}))
	if len(out) >= limit {
		t.Fatalf("Markdown for 20,000 bets is %d bytes, want under %d", len(out), limit)
	}
	if !strings.Contains(out, "more bets, see report.json") {
		t.Error("a cut Markdown table does not say how many bets it left out")
	}
	// The rows kept are those needing attention: no settled and final bet
	// may come before a failed one.
	_, bets, _ := strings.Cut(out, "### Bets")
	firstSettled := strings.Index(bets, "| ✅ won |")
	if i := strings.Index(bets, "| lost |"); i >= 0 && (firstSettled < 0 || i < firstSettled) {
		firstSettled = i
	}
	lastFailed := strings.LastIndex(bets, "| not placed |")
	if lastFailed < 0 || (firstSettled >= 0 && firstSettled < lastFailed) {
		t.Error("Markdown lists settled bets before failed ones")
	}
	// Totals are over every bet, not the rows shown.
	if !strings.Contains(out, fmt.Sprintf("**%d bets**", len(r.Bets))) {
		t.Error("Markdown headline does not count every bet")
	}
}

func TestMarkdownEscapesCells(t *testing.T) {
	out := string(render(t, reporters.FormatMarkdown, runResult(), reporters.TextOptions{}))
	for _, bad := range []string{"<script>", "<b>", `"odds | changed"`, "*bold*", "[link]"} {
		if strings.Contains(out, bad) {
			t.Errorf("Markdown holds %q unescaped", bad)
		}
	}
	for _, want := range []string{`&lt;script&gt;`, `odds \| changed`, `\*bold\*`, `\[link\]`} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks the escaped %q", want)
		}
	}
	// Every table row has as many cells as its header.
	var cols int
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") - 1
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("table row has %d cells, its header %d: %s", n, cols, line)
		}
	}
}

// Status is said in words; ✅ marks winners only, never a loser or the
// run itself.
func TestMarkdownMarksOnlyWinners(t *testing.T) {
	r := runResult()
	out := string(render(t, reporters.FormatMarkdown, r, reporters.TextOptions{}))
	won := 0
	for _, b := range r.Bets {
		if b.Status == engine.StatusSettled && b.Profit > 0 {
			won++
		}
	}
	if won == 0 {
		t.Fatal("the fixture has no winner")
	}
	if got := strings.Count(out, "✅"); got != won {
		t.Errorf("%d ✅ in the Markdown, want %d, one per winner:\n%s", got, won, out)
	}
	for _, w := range []string{"| lost |", "| not placed |", "### By venue", "AEDT"} {
		if !strings.Contains(out, w) {
			t.Errorf("Markdown lacks %q", w)
		}
	}
}
