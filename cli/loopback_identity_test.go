package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/local"
)

// The unspecified addresses reach this machine too: a run against
// http://0.0.0.0:P (or [::]) meets a run against 127.0.0.1:P at one lock,
// and they keep one journal.
func TestLockUnspecifiedAddressIsLoopback(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 2)
	port := w.url[strings.LastIndex(w.url, ":")+1:]
	first := w.onMachineAt("host", "http://0.0.0.0:"+port, "", "run", w.plan, "--no-wait", "--insecure").pauseAt("announce").start()
	first.waitPaused()
	for _, spelling := range []string{"http://127.0.0.1:%s", "http://[::]:%s", "http://0.0.0.0:%s/"} {
		second := w.onMachineAt("host", fmt.Sprintf(spelling, port), "", "run", w.plan, "--no-wait", "--insecure")
		require.Equal(t, 3, second.run(), "%s: the lock is the service's, however spelled:\n%s", fmt.Sprintf(spelling, port), second.output())
		assert.Contains(t, second.stderr.String(), "another run of this plan holds the lock")
		assert.Empty(t, w.createsSeen(), "%s sent a create while another run held the lock", spelling)
	}
	first.resume()
	require.Equal(t, 0, first.wait(), "%s", first.output())
	first.assertEachOnce()

	// A journal an earlier betplan kept under the spelled 0.0.0.0 key is
	// carried over: the next run knows its bets (nothing adopted, nothing
	// created) and keeps one journal.
	dir := filepath.Join(w.dir, "host", "state")
	layout := local.Layout{Dir: dir}
	now := layout.JournalPath("crash-card", w.url)
	b, err := os.ReadFile(now)
	require.NoError(t, err)
	spelled := "http://0.0.0.0:" + port
	h := sha256.Sum256([]byte(spelled))
	old := filepath.Join(dir, "crash-card."+hex.EncodeToString(h[:])[:12]+".journal.jsonl")
	require.NotEqual(t, now, old)
	kept := strings.ReplaceAll(string(b), `"service":"http://127.0.0.1:`+port+`"`, `"service":"`+spelled+`"`)
	require.NotEqual(t, string(b), kept, "the journal names its service")
	require.NoError(t, os.WriteFile(old, []byte(kept), 0o644))
	require.NoError(t, os.Remove(now))

	again := w.onMachineAt("host", "http://127.0.0.1:"+port, "", "run", w.plan, "--no-wait")
	require.Equal(t, 0, again.run(), "%s", again.output())
	assert.NotContains(t, again.stderr.String(), "adopted")
	assert.NotContains(t, again.stderr.String(), "created bet-")
	assert.Contains(t, again.stderr.String(), "moved into")
	assert.NoFileExists(t, old)
	assert.FileExists(t, now)
	again.assertEachOnce()
}
