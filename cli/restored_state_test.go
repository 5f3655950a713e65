package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/postgres/pgtest"
)

// A state put back from an older copy while a create was in flight (a
// backup restore of the state dir or of the shared database, a CI cache
// restore, `git checkout .betplan`): the copy knows bet a but carries
// nothing of the killed run's create of bet b. This host's intent file,
// beside the plan's lock in the user's cache dir, still shows that
// create, so the next run looks b's label up over the grace window and
// adopts the create that lands late instead of creating b a second time.
func TestRestoredStateWithACreateInFlight(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"local", "shared"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			stateURL, schema := "", ""
			if kind == "shared" {
				stateURL, schema = sharedState(t)
			}
			w := newCrashWorld(t, 2)
			full, err := os.ReadFile(w.plan)
			require.NoError(t, err)
			cut := strings.Index(string(full), "  - id: bet-1")
			require.Positive(t, cut)
			require.NoError(t, os.WriteFile(w.plan, full[:cut], 0o644))

			first := w.onMachine("host", stateURL, "run", w.plan, "--no-wait")
			require.Equal(t, 0, first.run(), "%s", first.output())
			require.Equal(t, 1, w.svc.NotificationCount())
			assert.Empty(t, w.intentFiles("host"), "a create whose outcome is in the journal is no longer noted")
			// The backup.
			stateDir := filepath.Join(w.dir, "host", "state")
			backup := filepath.Join(w.dir, "backup")
			var records int
			if kind == "shared" {
				pgtest.Query(t, pgtest.ServerURL(t), fmt.Sprintf("SELECT count(*) FROM %s.journal", schema), nil, &records)
			} else {
				require.NoError(t, os.CopyFS(backup, os.DirFS(stateDir)))
			}

			require.NoError(t, os.WriteFile(w.plan, full, 0o644))
			w.mu.Lock()
			w.slowCreate, w.landed = 2*time.Second, make(chan struct{})
			w.mu.Unlock()
			killed := w.onMachine("host", stateURL, "run", w.plan, "--no-wait").start()
			for len(w.createsSeen()) < 2 {
				time.Sleep(5 * time.Millisecond) // bet b's create is on its way to the service
			}
			require.NoError(t, killed.cmd.Process.Signal(syscall.SIGKILL))
			killed.cmd.Wait()
			require.Len(t, w.intentFiles("host"), 1, "the create in flight is noted beside the lock")
			// The restore.
			if kind == "shared" {
				pgtest.Exec(t, pgtest.ServerURL(t), fmt.Sprintf("DELETE FROM %s.journal WHERE serial > %d", schema, records))
			} else {
				require.NoError(t, os.RemoveAll(stateDir))
				require.NoError(t, os.CopyFS(stateDir, os.DirFS(backup)))
			}

			again := w.onMachine("host", stateURL, "run", w.plan, "--no-wait", "--ambiguous-grace", "4s")
			require.Equal(t, 0, again.run(), "%s", again.output())
			<-w.landed
			assert.Contains(t, again.stderr.String(), "intent file shows its create in flight")
			again.assertEachOnce()
			assert.Empty(t, w.intentFiles("host"))
		})
	}
}

// intentFiles are the intent files in machine's cache dir.
func (w *crashWorld) intentFiles(machine string) []string {
	w.t.Helper()
	paths, err := filepath.Glob(filepath.Join(w.dir, machine, "cache", "betplan", "locks", "*.intents"))
	require.NoError(w.t, err)
	return paths
}
