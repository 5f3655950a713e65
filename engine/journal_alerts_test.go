package engine

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The alert outbox replays from the journal: what was sent, what is still
// to send, and what was announced and never answered; alert entries leave
// the bets' states (and the limits' sums) alone.
func TestJournalAlertsReplay(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.journal.jsonl")
	j, err := OpenJournal(path)
	require.NoError(t, err)
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "a", BetID: "bet-a", Amount: 10}))
	require.NoError(t, j.Record(journalEntry{Op: opCreated, Label: "a", NotificationID: 7}))
	body := json.RawMessage(`{"event":"placed","instance":"bet-a"}`)
	for _, e := range []journalEntry{
		{Op: opAlertQueued, Alert: &journalAlert{Key: "a|placed", Target: "t1", Where: "https://hooks.example.com/…", Event: "placed", Body: body}},
		{Op: opAlertSending, Alert: &journalAlert{Key: "a|placed", Target: "t1", Attempt: 1}},
		{Op: opAlertFailed, Alert: &journalAlert{Key: "a|placed", Target: "t1", Attempt: 1}, Error: "answered 500 Internal Server Error"},
		{Op: opAlertSending, Alert: &journalAlert{Key: "a|placed", Target: "t1", Attempt: 2}},
		{Op: opAlertSent, Alert: &journalAlert{Key: "a|placed", Target: "t1", Attempt: 2}},
		{Op: opAlertQueued, Alert: &journalAlert{Key: "a|settled", Target: "t1", Event: "settled", Body: body}},
		{Op: opAlertSending, Alert: &journalAlert{Key: "a|settled", Target: "t1", Attempt: 1}},
		{Op: opAlertQueued, Alert: &journalAlert{Key: "run:3|summary", Target: "t1", Event: "summary", Body: body}},
		{Op: opAlertSkipped, Alert: &journalAlert{Key: "a|placed", Target: "t2", Event: "placed"}},
	} {
		require.NoError(t, j.Record(e))
	}
	require.NoError(t, j.Close())

	r, err := ReadJournal(path)
	require.NoError(t, err)
	amount, count := r.Committed()
	assert.Equal(t, 10.0, amount, "alert entries are not bets")
	assert.Equal(t, 1, count)
	assert.Equal(t, []string{"a"}, r.Labels())

	placed := r.Alert("a|placed", "t1")
	require.NotNil(t, placed)
	assert.True(t, placed.Sent)
	assert.True(t, placed.done())
	assert.Equal(t, 2, placed.Attempts)
	assert.JSONEq(t, string(body), string(placed.Body))
	assert.Equal(t, "https://hooks.example.com/…", placed.Where)

	settled := r.Alert("a|settled", "t1")
	require.NotNil(t, settled)
	assert.True(t, settled.InFlight, "announced and never answered: it may have arrived")
	assert.False(t, settled.done())

	summary := r.Alert("run:3|summary", "t1")
	require.NotNil(t, summary)
	assert.False(t, summary.InFlight || summary.done(), "queued, not tried: the next run sends it")

	assert.True(t, r.Alert("a|placed", "t2").done(), "skipped for a target added later")
	assert.Nil(t, r.Alert("a|settled", "t2"))
	assert.Len(t, r.Alerts(), 4)
	assert.Equal(t, map[string]bool{"t1": true, "t2": true}, r.alertTargets())
}
