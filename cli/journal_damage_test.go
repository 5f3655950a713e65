package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/local"
)

func processExit(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

func (w *crashWorld) journalPath() string {
	return local.Layout{Dir: filepath.Join(w.dir, "state")}.JournalPath("crash-card", w.url)
}

// A line that does not read in the middle of the journal: the run refuses
// with exit 3, names the line and what to do, sends nothing and leaves the
// reports as they were (they list the bets the journal knows as created).
func TestJournalDamageMidFileRefuses(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 2)
	w.finish()
	report := filepath.Join(w.dir, "report", "report.json")
	before, err := os.ReadFile(report)
	require.NoError(t, err)
	b, err := os.ReadFile(w.journalPath())
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	damaged := strings.Join(lines[:2], "") + "{\"serial\": garbage\n" + strings.Join(lines[2:], "")
	require.NoError(t, os.WriteFile(w.journalPath(), []byte(damaged), 0o644))
	sent := len(w.createsSeen())

	out, err := w.betplan("").CombinedOutput()
	assert.Equal(t, 3, processExit(t, err), "%s", out)
	assert.Contains(t, string(out), w.journalPath()+":3")
	assert.Contains(t, string(out), "move it aside")
	assert.NotContains(t, string(out), "reports written")
	after, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the reports are left alone")
	assert.Len(t, w.createsSeen(), sent, "nothing created")
	assert.Equal(t, w.bets, w.svc.NotificationCount())
}

// A torn last line that ends in a newline is cut off (kept beside the
// journal) before the next record, so every later run reads the journal.
func TestJournalTornTailRepairedOnTheBinary(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 2)
	require.NoError(t, os.MkdirAll(filepath.Dir(w.journalPath()), 0o755))
	require.NoError(t, os.WriteFile(w.journalPath(), []byte(`{"serial":1,"lineage":"ab12","op":"init"}`+"\n"+
		`{"serial":2,"lineage":"ab12","op":"crea`+"\n"), 0o644))
	for i := range 3 {
		out, err := w.betplan("").CombinedOutput()
		require.NoError(t, err, "run %d after the torn write:\n%s", i+1, out)
		if i == 0 {
			assert.Contains(t, string(out), "cut off a torn last write")
		}
	}
	kept, err := filepath.Glob(w.journalPath() + ".torn-*")
	require.NoError(t, err)
	assert.Len(t, kept, 1, "the torn bytes are kept beside the journal")
	w.finish()
}

// A journal that is a symbolic link is refused, not followed.
func TestJournalSymlinkRefusedOnTheBinary(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 1)
	w.finish()
	elsewhere := filepath.Join(w.dir, "elsewhere.jsonl")
	require.NoError(t, os.Rename(w.journalPath(), elsewhere))
	require.NoError(t, os.Symlink(elsewhere, w.journalPath()))
	out, err := w.betplan("").CombinedOutput()
	assert.Equal(t, 3, processExit(t, err), "%s", out)
	assert.Contains(t, string(out), "symbolic link")
	assert.Equal(t, 1, w.svc.NotificationCount())
}
