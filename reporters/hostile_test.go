package reporters_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// hostileText is what a journal written by another tool, an older
// betplan or a hand edit may hold in any of its texts: a terminal title
// (OSC ... BEL), a screen clear, a line break that forges a row of a
// Markdown table, a carriage return, an 8-bit CSI, a bidi override and a
// byte that is not UTF-8.
const hostileText = "\x1b]0;pwned\x07\x1b[2J\n| forged | row | 1 | 2 |\r\u009b31m\u202e\xff"

// spoil appends hostileText to every text (every field of type string)
// of the value v points to, whatever it is nested in.
func spoil(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			spoil(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				spoil(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			spoil(v.Index(i))
		}
	case reflect.String:
		if v.Type() == reflect.TypeFor[string]() && v.CanSet() {
			v.SetString(v.String() + hostileText)
		}
	}
}

// ourColours are the SGR codes the terminal report writes itself.
var ourColours = regexp.MustCompile("\x1b\\[[0-9;]*m")

// inert requires out to be UTF-8 with no control character but line
// ends (after the report's own colours), and to show the hostile text
// escaped somewhere, so the test reached it.
func inert(t *testing.T, name string, out []byte, shown string) {
	t.Helper()
	s := ourColours.ReplaceAllString(string(out), "")
	if !utf8.ValidString(s) {
		i := 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		t.Fatalf("%s: not UTF-8 at byte %d: %q", name, i, s[max(0, i-40):min(len(s), i+40)])
	}
	for i, r := range s {
		if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r == 0x202e {
			t.Fatalf("%s: %U at byte %d: %q", name, r, i, s[max(0, i-40):min(len(s), i+40)])
		}
	}
	assert.Contains(t, s, shown, "%s: the hostile text is shown", name)
}

// tablesHold requires every Markdown table in out to have its header's
// cells on every row, split as GitHub splits them (at a pipe no
// backslash escapes), and no row to be one the text forged.
func tablesHold(t *testing.T, name string, out []byte) {
	t.Helper()
	cells := func(line string) int {
		n := 0
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '|':
				n++
			}
		}
		return n
	}
	want := -1
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		assert.False(t, strings.HasPrefix(line, "| forged"), "%s: a forged row: %q", name, line)
		if want < 0 {
			want = cells(line)
			continue
		}
		assert.Equal(t, want, cells(line), "%s: a row of another width: %q", name, line)
	}
}

// Every text of a result (a journal's, the database's or the service's)
// with control characters, a forged row and bytes that are not UTF-8 in
// it comes out of every human format shown, never run: the terminal
// report plain and in colour, report.md and the step summary, and the
// summary of several plans in text and Markdown.
func TestHumanFormatsShowHostileTextInert(t *testing.T) {
	for name, result := range map[string]func() *engine.Result{
		"run": runResult, "plan": planResult, "tips": tipsResult, "tips plan": tipsPlanResult,
	} {
		t.Run(name, func(t *testing.T) {
			r := result()
			spoil(reflect.ValueOf(r))
			var text, colour, md, sumText, sumMD bytes.Buffer
			require.NoError(t, reporters.WriteText(&text, r, reporters.TextOptions{}))
			require.NoError(t, reporters.WriteText(&colour, r, reporters.TextOptions{Color: true, Width: 100}))
			require.NoError(t, reporters.WriteMarkdown(&md, r))
			s := reporters.NewSummary([]*engine.Result{r, result()})
			require.NoError(t, reporters.WriteSummaryText(&sumText, s))
			require.NoError(t, reporters.WriteSummaryMarkdown(&sumMD, s))
			step := filepath.Join(t.TempDir(), "step.md")
			require.NoError(t, reporters.AppendStepSummary(step, r))
			stepMD, err := os.ReadFile(step)
			require.NoError(t, err)

			inert(t, "text", text.Bytes(), `pwned\x07`)
			inert(t, "colour", colour.Bytes(), `pwned\x07`)
			inert(t, "markdown", md.Bytes(), `pwned\\x07`)
			inert(t, "summary text", sumText.Bytes(), `pwned\x07`)
			inert(t, "summary markdown", sumMD.Bytes(), `pwned\\x07`)
			inert(t, "step summary", stepMD, `pwned\\x07`)
			tablesHold(t, "markdown", md.Bytes())
			tablesHold(t, "summary markdown", sumMD.Bytes())
			tablesHold(t, "step summary", stepMD)
		})
	}
}
