package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// A journal line longer than any record betplan writes (state.MaxRecord)
// is refused like a damaged line, wherever it is: exit 3, the line named
// with what to do, nothing sent. Read whole, a 300 MB line took a gigabyte.
func TestJournalLineOverTheBoundRefuses(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 2)
	w.finish()
	b, err := os.ReadFile(w.journalPath())
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	long := `{"serial":3,"op":"note","error":"` + strings.Repeat("x", state.MaxRecord) + `"}` + "\n"
	sent := len(w.createsSeen())
	for _, at := range []int{2, len(lines) - 1} {
		damaged := strings.Join(lines[:at], "") + long + strings.Join(lines[at:], "")
		require.NoError(t, os.WriteFile(w.journalPath(), []byte(damaged), 0o644))
		out, err := w.betplan("").CombinedOutput()
		assert.Equal(t, 3, processExit(t, err), "%s", out)
		assert.Contains(t, string(out), w.journalPath()+":"+itoa(at+1)+": the line is longer than")
		assert.Contains(t, string(out), "move it aside")
	}
	assert.Len(t, w.createsSeen(), sent, "nothing created")
}
