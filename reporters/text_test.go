package reporters_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// On a terminal, tables fit its width by dropping and narrowing the less
// important columns, but a bet id, what cancel takes, is never cut; piped
// (width 0), nothing is cut at all.
func TestTextFitsTheWidth(t *testing.T) {
	results := map[string]*engine.Result{"run": runResult(), "plan": planResult(), "big": bigResult(200), "empty": emptyResult()}
	for name, r := range results {
		for _, width := range []int{100, 80, 60} {
			out := string(render(t, reporters.FormatText, r, reporters.TextOptions{Width: width}))
			ids := map[string]bool{}
			for _, b := range r.Bets {
				ids[shownID(b)] = true
			}
			for i, line := range strings.Split(out, "\n") {
				// An id wider than the terminal goes whole on its own line.
				if n := utf8.RuneCountInString(line); n > width && !ids[line] {
					t.Errorf("%s at width %d: line %d has %d columns:\n%s", name, width, i+1, n, line)
				}
			}
			for _, b := range r.Bets {
				if id := shownID(b); !strings.Contains(out, "\n"+id+" ") && !strings.Contains(out, "\n"+id+"\n") {
					t.Errorf("%s at width %d: bet id %s is not shown whole", name, width, id)
				}
			}
		}
		piped := string(render(t, reporters.FormatText, r, reporters.TextOptions{}))
		for _, b := range r.Bets {
			if b.Reason != "" && !strings.Contains(piped, strings.Join(strings.Fields(b.Reason), " ")) {
				t.Errorf("%s piped: the reason of %s is cut: %q", name, b.ID, b.Reason)
			}
		}
	}
}

// shownID is the id a bet's row must show: its instance id, if it has one.
func shownID(b engine.BetResult) string {
	if b.InstanceID != "" {
		return b.InstanceID
	}
	return b.ID
}

func TestTextColour(t *testing.T) {
	plain := string(render(t, reporters.FormatText, runResult(), reporters.TextOptions{}))
	if strings.Contains(plain, "\x1b") {
		t.Error("text without Color holds ANSI escape codes")
	}
	colour := string(render(t, reporters.FormatText, runResult(), reporters.TextOptions{Color: true}))
	for _, want := range []string{
		"\x1b[32mwon", // a winner is green, and says so in words
		"\x1b[31mlost",
		"\x1b[31mnot placed",
		"\x1b[32mprofit +$30.25",
		"\x1b[33mwaiting",
	} {
		if !strings.Contains(colour, want) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	// Colour changes nothing but the escapes.
	stripped := colour
	for _, code := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m"} {
		stripped = strings.ReplaceAll(stripped, code, "")
	}
	if stripped != plain {
		t.Error("coloured text differs from plain text beyond its escape codes")
	}
}

func TestTextShowsEveryBetAndTotals(t *testing.T) {
	r := runResult()
	out := string(render(t, reporters.FormatText, r, reporters.TextOptions{Width: 400}))
	for _, b := range r.Bets {
		if !strings.Contains(out, "\n"+shownID(b)+" ") {
			t.Errorf("text has no row for %s", shownID(b))
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "profit +$30.25  return +30.1%") {
		t.Errorf("last line = %q, want the totals with profit +$30.25", last)
	}
}
