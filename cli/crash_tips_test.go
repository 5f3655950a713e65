package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
)

// TestCrashDuringPublish kills the real binary at each point of a publish
// (before its announcement, after it, after the POST, after the record)
// and runs it again: a tip is never sent twice, and one whose call was
// announced and may have gone out is reported unknown, never re-sent.
func TestCrashDuringPublish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	for _, tt := range []struct {
		at     string
		sent   int    // tips the service took, after the crash and a re-run
		status string // the tip's status after the re-run
		killed bool
	}{
		{"announce-publish", 1, "published", true}, // nothing was journalled: the re-run publishes it
		{"publishing", 0, "unknown", true},         // announced, never sent: at most once means unknown
		{"posted-publish", 1, "unknown", true},     // sent, never recorded
		{"published", 1, "published", true},        // recorded
	} {
		t.Run(tt.at, func(t *testing.T) {
			w := newCrashWorld(t, 1)
			r := w.svc.Races()[len(w.svc.Races())-1]
			yaml := "version: 1\nname: crash-tips\ntips:\n  - {id: only, race: {venue: \"" + r.Venue + "\", code: " + r.Code +
				", event_number: " + strconv.Itoa(r.EventNumber) + "}, market: Fixed Win, selection: \"" + r.Runners[0] + "\", amount_units: 1, odds: 3, max_odds: 60, bookies: \"41\"}\n"
			require.NoError(t, os.WriteFile(w.plan, []byte(yaml), 0o644))
			run := func(at string) ([]byte, error) {
				cmd := w.betplan(at)
				cmd.Env = append(cmd.Env, tipsterKeyEnv+"="+sim.DefaultTipsterAPIKey)
				return cmd.CombinedOutput()
			}
			out, err := run(tt.at + ":1")
			assert.True(t, killedBySIGKILL(err), "killed at %s: %v\n%s", tt.at, err, out)
			out, _ = run("")
			assert.Len(t, w.svc.PublishedTips(), tt.sent, "tips the service took:\n%s", out)
			var rep struct {
				Tips []struct {
					Status string `json:"status"`
				} `json:"tips"`
			}
			b, err := os.ReadFile(filepath.Join(w.dir, "report", "report.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rep))
			require.Len(t, rep.Tips, 1)
			assert.Equal(t, tt.status, rep.Tips[0].Status)
			// And a third run changes nothing.
			run("")
			assert.Len(t, w.svc.PublishedTips(), tt.sent, "a third run sent it again")
		})
	}
}
