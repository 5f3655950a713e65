package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two runs of one plan on one host, the service spelled two ways: the
// second finds the first's lock, whatever the spelling, and creates
// nothing; the first then creates every bet once.
func TestLockOneServiceManySpellings(t *testing.T) {
	t.Parallel()
	for _, state := range []string{"local", "shared"} {
		t.Run(state, func(t *testing.T) {
			t.Parallel()
			stateURL := ""
			if state == "shared" {
				stateURL, _ = sharedState(t)
			}
			w := newCrashWorld(t, 2)
			port := w.url[strings.LastIndex(w.url, ":")+1:]
			first := w.onMachineAt("host", "http://127.0.0.1:"+port, stateURL, "run", w.plan, "--no-wait").pauseAt("announce").start()
			first.waitPaused()
			// (Spellings that reach the service: a run checks it answers
			// before it takes the lock. That 127.0.0.2, which reaches
			// nothing here, is the same service is apiclient's test.)
			for _, spelling := range []string{"http://localhost:%s", "http://LOCALHOST:%s/", "http://[::ffff:127.0.0.1]:%s"} {
				second := w.onMachineAt("host", fmt.Sprintf(spelling, port), stateURL, "run", w.plan, "--no-wait")
				require.Equal(t, 3, second.run(), "%s: the lock is the service's, however spelled:\n%s", fmt.Sprintf(spelling, port), second.output())
				assert.Contains(t, second.stderr.String(), "another run of this plan holds the lock")
				assert.Empty(t, w.createsSeen(), "%s sent a create while another run held the lock", spelling)
			}
			first.resume()
			require.Equal(t, 0, first.wait(), "%s", first.output())
			first.assertEachOnce()
		})
	}
}

// A run with --state and a run without it on one host meet at the host's
// lock file, whichever starts first.
func TestLockSharedAndLocalRunsOnOneHost(t *testing.T) {
	t.Parallel()
	stateURL, _ := sharedState(t)
	for _, order := range [][2]string{{stateURL, ""}, {"", stateURL}} {
		w := newCrashWorld(t, 2)
		first := w.onMachine("host", order[0], "run", w.plan, "--no-wait").pauseAt("announce").start()
		first.waitPaused()
		second := w.onMachine("host", order[1], "run", w.plan, "--no-wait")
		require.Equal(t, 3, second.run(), "first with --state %q, then %q:\n%s", order[0], order[1], second.output())
		assert.Contains(t, second.stderr.String(), "another run of this plan holds the lock")
		assert.Empty(t, w.createsSeen())
		first.resume()
		require.Equal(t, 0, first.wait(), "%s", first.output())
		w.assertOnePerLabel(first.report().labels())
	}
}
