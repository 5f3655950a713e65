package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/notify"
)

// TestAlertTextFromAJournalIsInert: a queued alert is sent by the next
// run from its body as the journal keeps it, and another tool or a hand
// edit may have written that body. A chat target (generic://, which
// takes the alert's text) gets its plan and message shown, never run: no
// terminal title, no screen clear, no line break, nothing but UTF-8. An
// alert the journal says was being sent when a run stopped is reported
// as not delivered, with the target as the journal names it: the run's
// terminal report and report.md show that name inert too.
func TestAlertTextFromAJournalIsInert(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	hook := "generic://" + srv.Listener.Addr().String() + "/hook?disabletls=yes"

	w := newCrashWorld(t, 1)
	w.notifyHook("summary")
	run := func() string {
		cmd := w.betplan("")
		cmd.Env = append(cmd.Env, "HOOK="+hook)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	run()

	// Another tool queues an alert for the plan's target.
	journals, err := filepath.Glob(filepath.Join(w.dir, "state", "*.journal.jsonl"))
	require.NoError(t, err)
	require.Len(t, journals, 1)
	src, err := os.ReadFile(journals[0])
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	var first struct {
		Lineage string `json:"lineage"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	body, err := json.Marshal(notify.Message{ID: "hand-edit", Event: "summary", Plan: "crash-card\x1b]0;pwned\x07",
		Message: "hand edit \x1b[2J\n| forged |\u009b31m \u202eesrever \x7f", Time: time.Now().UTC().Format(time.RFC3339)})
	require.NoError(t, err)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	target := notify.Target{URL: hook}.ID()
	entries := fmt.Sprintf(`{"serial":%d,"lineage":%q,"time":%q,"op":"alert_queued","alert":{"key":"hand-edit","target":%q,"where":"generic://…","event":"summary","body":%s}}`+"\n"+
		`{"serial":%d,"lineage":%q,"time":%q,"op":"alert_queued","alert":{"key":"in-flight","target":%q,"where":"generic://\u001b]0;pwned\u0007\n| forged | row |","event":"summary","body":%s}}`+"\n"+
		`{"serial":%d,"lineage":%q,"time":%q,"op":"alert_sending","alert":{"key":"in-flight","target":%q,"attempt":1}}`+"\n",
		len(lines)+1, first.Lineage, now, target, body, len(lines)+2, first.Lineage, now, target, body, len(lines)+3, first.Lineage, now, target)
	require.NoError(t, os.WriteFile(journals[0], []byte(string(src)+entries), 0o644))
	out := run()
	md, err := os.ReadFile(filepath.Join(w.dir, "report", "report.md"))
	require.NoError(t, err)
	for name, text := range map[string]string{"the run's output": out, "report.md": string(md)} {
		assert.True(t, utf8.ValidString(text), name)
		for _, r := range text {
			require.False(t, r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f, "%s: %U in %q", name, r, text)
		}
		assert.NotContains(t, text, "\n| forged", name)
	}
	assert.Contains(t, out, `1 alert to generic://\x1b]0;pwned\x07\n| forged | row | not delivered`, "the log")
	assert.Contains(t, out, `- summary to generic://\x1b]0;pwned\x07 | forged | row |: outcome unknown`, "the report")
	assert.Contains(t, string(md), `- summary to generic://\\x1b\]0;pwned\\x07 \| forged \| row \|: outcome unknown`)

	mu.Lock()
	defer mu.Unlock()
	var edited string
	for _, b := range bodies {
		if strings.Contains(b, "hand edit") {
			edited = b
		}
	}
	require.NotEmpty(t, edited, "the queued alert was sent: %q", bodies)
	assert.Equal(t, `betplan crash-card\x1b]0;pwned\x07: hand edit \x1b[2J\n| forged |\u009b31m \u202eesrever \x7f`, edited)
	assert.True(t, utf8.ValidString(edited))
	for _, r := range edited {
		assert.False(t, r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x202e, "%U in %q", r, edited)
	}
}
