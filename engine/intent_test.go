package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/local"
)

// A journal put back from a copy taken before four sends (a create, a
// tip's publish, a pre-alert, an alert's attempt) learns each of them
// again from the intent file: the create announced again, to be looked
// up; the publish and the pre-alert sent with their outcome unknown; the
// attempt in flight, to be reported outcome unknown. None is sent again.
func TestIntentsOfEverySend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "p.journal.jsonl")
	intents := local.NewIntentFile(filepath.Join(dir, "locks", "p.intents"))
	j, err := OpenJournal(path)
	require.NoError(t, err)
	j.useIntents(intents)
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "bp:p:a:1", BetID: "a", Amount: 2}))
	require.NoError(t, j.Record(journalEntry{Op: opCreated, Label: "bp:p:a:1", NotificationID: 7}))
	lineage := j.Lineage()
	backup, err := os.ReadFile(path)
	require.NoError(t, err)

	create := journalEntry{Op: opCreating, Label: "bp:p:b:2", BetID: "b", Amount: 2}
	tip := journalEntry{Op: opPublishing, Tips: []journalTip{{Key: "tip:p:only:3", TipID: "only", Odds: 3, Units: 1}}}
	pre := journalEntry{Op: opPrealerting, Tips: []journalTip{{Key: "prealert:p:4"}}}
	queued := journalEntry{Op: opAlertQueued, Alert: &journalAlert{Key: "placed:bp:p:a:1", Target: "t1", Where: "https://hooks.example", Event: "placed", Body: json.RawMessage(`{"instance":"a"}`)}}
	attempt := journalEntry{Op: opAlertSending, Alert: &journalAlert{Key: "placed:bp:p:a:1", Target: "t1", Attempt: 1}}
	require.NoError(t, j.Record(queued))
	for _, e := range []journalEntry{create, tip, pre, attempt} {
		require.NoError(t, j.Record(e))
		require.NoError(t, j.noteInFlight(e))
	}
	notes, err := intents.Notes()
	require.NoError(t, err)
	assert.Len(t, notes, 4)
	// The publish's outcome clears its note; the others stay in flight.
	require.NoError(t, j.Record(journalEntry{Op: opPublished, Tips: tip.Tips}))
	notes, err = intents.Notes()
	require.NoError(t, err)
	assert.NotContains(t, notes, "publish tip:p:only:3")
	require.NoError(t, j.Close())
	// The published tip was seen by the service, but its record is lost
	// with the rest: note it again, as if the kill came before its answer.
	b, err := json.Marshal(journalEntry{Op: opPublishing, Tips: tip.Tips, Serial: 5, Lineage: lineage})
	require.NoError(t, err)
	require.NoError(t, intents.Note("publish tip:p:only:3", b))

	// The restore.
	require.NoError(t, os.WriteFile(path, backup, 0o644))
	j, err = OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	j.useIntents(intents)
	lines, err := j.reconcileIntents()
	require.NoError(t, err)
	assert.Len(t, lines, 4, "%q", lines)
	assert.True(t, j.State("bp:p:b:2").Pending, "the create is to be looked up")
	for _, key := range []string{"tip:p:only:3", "prealert:p:4"} {
		s := j.Pub(key)
		require.NotNil(t, s, key)
		assert.True(t, s.Pending, "%s: may have gone out", key)
		assert.Equal(t, lostPublish, s.Unknown, key)
	}
	a := j.Alert("placed:bp:p:a:1", "t1")
	require.NotNil(t, a)
	assert.True(t, a.InFlight)
	assert.Equal(t, lostAlert, a.Err)
	assert.Equal(t, "placed", a.Event)
	assert.JSONEq(t, `{"instance":"a"}`, string(a.Body))
	notes, err = intents.Notes()
	require.NoError(t, err)
	assert.Len(t, notes, 2, "the publishes' outcome is in the journal; the create and the attempt await theirs")

	// A second look finds the journal knows them all.
	j.useIntents(intents)
	lines, err = j.reconcileIntents()
	require.NoError(t, err)
	assert.Empty(t, lines)
	require.NoError(t, j.Record(journalEntry{Op: opAlertUnknown, Alert: &journalAlert{Key: "placed:bp:p:a:1", Target: "t1"}, Error: a.Err}))
	notes, err = intents.Notes()
	require.NoError(t, err)
	assert.Len(t, notes, 1, "the attempt's outcome clears its note")
}

// A note written by the betplan that noted creates only (the label for
// key, the creating entry for record) reads as it did; a note whose key
// does not say what its record does is refused.
func TestIntentNotesOfEarlierRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	intents := local.NewIntentFile(filepath.Join(dir, "p.intents"))
	j, err := OpenJournal(filepath.Join(dir, "p.journal.jsonl"))
	require.NoError(t, err)
	defer j.Close()
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "bp:p:a:1", BetID: "a"}))
	old := fmt.Sprintf(`{"serial":1,"lineage":%q,"time":"2026-11-27T10:00:00Z","op":"creating","label":"bp:p:a:1","bet_id":"a"}`, j.Lineage())
	require.NoError(t, intents.Note("bp:p:a:1", []byte(old)))
	lost := `{"serial":9,"lineage":"other","op":"creating","label":"bp:p:b:2","bet_id":"b"}`
	require.NoError(t, intents.Note("bp:p:b:2", []byte(lost)))
	j.useIntents(intents)
	lines, err := j.reconcileIntents()
	require.NoError(t, err)
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "label bp:p:b:2: this host's intent file shows its create in flight")
	assert.True(t, j.State("bp:p:b:2").Pending)

	require.NoError(t, intents.Note("publish tip:p:x:1", []byte(lost)))
	_, err = j.reconcileIntents()
	assert.ErrorContains(t, err, "note of a send in flight (publish tip:p:x:1) does not read")
}
