package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJournalReplay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "p.journal.jsonl")
	j, err := OpenJournal(path)
	require.NoError(t, err)
	assert.True(t, j.Fresh())
	race := &RaceInfo{Venue: "Flemington", Code: "Galloping", EventNumber: 4}
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "a", BetID: "bet-a", Amount: 10, Race: race}))
	require.NoError(t, j.Record(journalEntry{Op: opCreated, Label: "a", NotificationID: 501}))
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "b", BetID: "bet-b", Amount: 5}))
	require.NoError(t, j.Record(journalEntry{Op: opCreating, Label: "c", BetID: "bet-c", Amount: 7}))
	require.NoError(t, j.Record(journalEntry{Op: opAbsent, Label: "c"}))
	lineage, serial := j.Lineage(), j.Serial()
	require.NoError(t, j.Close())

	// A crash mid-write leaves a torn last line: it is ignored.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"serial":99,"op":"crea`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	j, err = OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	assert.False(t, j.Fresh())
	assert.Equal(t, lineage, j.Lineage(), "the lineage survives re-opening")
	assert.Equal(t, serial, j.Serial(), "the torn line does not count")
	a := j.State("a")
	require.NotNil(t, a)
	assert.Equal(t, int64(501), a.NotificationID)
	assert.False(t, a.Pending)
	assert.Equal(t, *race, a.Race)
	assert.True(t, j.State("b").Pending, "a creating with no outcome is an ambiguous create")
	assert.False(t, j.State("c").Pending, "absent settles an ambiguous create")
	amount, count := j.Committed()
	assert.Equal(t, 15.0, amount, "created and possibly created count for limits")
	assert.Equal(t, 2, count)
	assert.Equal(t, []string{"a", "b", "c"}, j.Labels())

	// Appending after the torn line keeps the journal readable.
	require.NoError(t, j.Record(journalEntry{Op: opCreated, Label: "b", NotificationID: 502}))
	require.NoError(t, j.Close())
	j, err = OpenJournal(path)
	require.NoError(t, err)
	assert.Equal(t, int64(502), j.State("b").NotificationID)
}

func TestJournalCorruptionIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.journal.jsonl")
	lines := []string{
		`{"serial":1,"lineage":"x","op":"init"}`,
		`not json`,
		`{"serial":3,"lineage":"x","op":"creating","label":"a"}`,
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	_, err := OpenJournal(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2")
}

// FuzzJournalReplay: whatever a crash or a disk leaves in the journal,
// replaying it gives a journal or an error, never a panic.
func FuzzJournalReplay(f *testing.F) {
	f.Add([]byte(`{"serial":1,"lineage":"x","op":"init"}` + "\n" + `{"serial":2,"lineage":"x","op":"creating","label":"a","amount":5}` + "\n"))
	f.Add([]byte(`{"serial":1,"op":"created","label":"a","id":9}` + "\n" + `{"serial":2,"op":"crea`))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"serial":1,"op":"publishing","tips":[{"key":"tip:p:a:1","tip":"a","odds":3,"units":1},{"key":"tip:p:b:2"}]}` + "\n" +
		`{"serial":2,"op":"published","tips":[{"key":"tip:p:a:1"}]}` + "\n" + `{"serial":3,"op":"prealert_unknown","tips":[{"key":"prealert:p:1","path":"/x/"}],"error":"e"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := newJournal(nil)
		if err := j.replay(data); err != nil {
			return
		}
		j.Committed()
		for _, l := range j.Labels() {
			if j.State(l) == nil {
				t.Fatalf("label %q listed but unknown", l)
			}
		}
		for _, k := range j.PubKeys() {
			if j.Pub(k) == nil {
				t.Fatalf("publication %q listed but unknown", k)
			}
		}
	})
}
