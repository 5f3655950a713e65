package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/postgres/pgtest"
)

// Killed while a create is in flight, the journal then lost (the state
// dir deleted, or the shared schema dropped), and run again at once: the
// run finds no journal, but this host's lock file shows the plan ran here,
// so it looks the plan's labels up over the grace window before any create
// and adopts the create that lands late instead of creating it again.
func TestLostJournalWithACreateInFlight(t *testing.T) {
	t.Parallel()
	for _, state := range []string{"local", "shared"} {
		t.Run(state, func(t *testing.T) {
			t.Parallel()
			stateURL, schema := "", ""
			if state == "shared" {
				stateURL, schema = sharedState(t)
			}
			w := newCrashWorld(t, 2)
			w.mu.Lock()
			w.slowCreate, w.landed = 2*time.Second, make(chan struct{})
			w.mu.Unlock()
			first := w.onMachine("host", stateURL, "run", w.plan, "--no-wait").start()
			for len(w.createsSeen()) == 0 {
				time.Sleep(5 * time.Millisecond) // the first create is on its way to the service
			}
			require.NoError(t, first.cmd.Process.Signal(syscall.SIGKILL))
			first.cmd.Wait()
			if state == "local" {
				require.NoError(t, os.RemoveAll(filepath.Join(w.dir, "host", "state")))
			} else {
				dropSchema(t, schema)
			}

			again := w.onMachine("host", stateURL, "run", w.plan, "--no-wait", "--ambiguous-grace", "4s")
			require.Equal(t, 0, again.run(), "%s", again.output())
			<-w.landed
			assert.Contains(t, again.stderr.String(), "every bet is in doubt")
			again.assertEachOnce()
		})
	}
}

// dropSchema drops a shared state's schema, as an operator might.
func dropSchema(t *testing.T, schema string) {
	t.Helper()
	pgtest.Exec(t, pgtest.ServerURL(t), "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}
