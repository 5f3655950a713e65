package cli

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dropper is a loopback receiver that reads each request whole (the
// message is delivered) and then closes the connection without answering.
type dropper struct {
	l      net.Listener
	mu     sync.Mutex
	bodies []string
}

func newDropper(t *testing.T) *dropper {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	d := &dropper{l: l}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				b, err := io.ReadAll(req.Body)
				if err != nil {
					return
				}
				d.mu.Lock()
				d.bodies = append(d.bodies, string(b))
				d.mu.Unlock()
			}()
		}
	}()
	return d
}

func (d *dropper) delivered() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.bodies...)
}

// TestAlertsGenericTargetThatDropsTheAnswer: a generic:// target that read
// the message and dropped the connection has it once, across three runs:
// the outcome is unknown, so neither the run nor a later one sends it
// again.
func TestAlertsGenericTargetThatDropsTheAnswer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	d := newDropper(t)
	w := newCrashWorld(t, 1)
	w.notifyHook("summary, run_failed")
	env := "HOOK=generic://" + d.l.Addr().String() + secretPath + "?disabletls=yes"
	var out string
	for run := range 3 {
		cmd := w.betplan("")
		cmd.Env = append(cmd.Env, env)
		b, err := cmd.CombinedOutput()
		out += string(b)
		require.NoError(t, err, "run %d: %s", run, b)
		if run == 0 {
			rep := readReport(t, filepath.Join(w.dir, "report"))
			require.Len(t, rep.Undelivered, 1, "%+v", rep.Undelivered)
			assert.Equal(t, "outcome unknown", rep.Undelivered[0].Outcome)
			assert.Equal(t, "generic://…", rep.Undelivered[0].Target)
		}
	}
	got := d.delivered()
	require.Len(t, got, 1, "the summary reached the target once: %q", got)
	assert.Contains(t, got[0], "betplan crash-card")
	assert.Contains(t, out, "it may have arrived, so it is not sent again")
	assert.NotContains(t, out, "s3cr3t")
	assert.NotContains(t, strings.ToLower(out), strings.ToLower(d.l.Addr().String()), "a service URL is shown by its scheme only")
	assertNoSecret(t, "s3cr3t", nil, w.dir)
}
