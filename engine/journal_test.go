package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

func TestJournalReplay(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.journal.jsonl")
	lines := []string{
		`{"serial":1,"lineage":"x","op":"init"}`,
		`not json`,
		`{"serial":3,"lineage":"x","op":"creating","label":"a"}`,
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	_, err := OpenJournal(path)
	var bad *state.BadJournalError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, 2, bad.Line)
	assert.Contains(t, err.Error(), path+":2")
	assert.True(t, IsRefused(err), "exit 3")
	_, err = ReadJournal(path)
	require.ErrorAs(t, err, &bad)
}

// A torn last write, with or without its newline, is cut off before the
// next record is appended, and kept beside the journal: the journal then
// reads whole, run after run.
func TestJournalTornTailIsRepairedOnce(t *testing.T) {
	t.Parallel()
	for name, tail := range map[string]string{
		"no newline":   `{"serial":3,"lineage":"x","op":"crea`,
		"newline":      `{"serial":3,"lineage":"x","op":"crea` + "\n",
		"garbage":      "\x00\x00\x00\n\n",
		"whole record": `{"serial":3,"lineage":"x","op":"creating","label":"b"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "p.journal.jsonl")
			head := `{"serial":1,"lineage":"x","op":"init"}` + "\n" + `{"serial":2,"lineage":"x","op":"creating","label":"a"}` + "\n"
			require.NoError(t, os.WriteFile(path, []byte(head+tail), 0o644))
			j, err := OpenJournal(path)
			require.NoError(t, err)
			assert.Contains(t, j.Repaired(), "torn last write")
			assert.Nil(t, j.State("b"), "a record without its newline was never acknowledged")
			require.NoError(t, j.Record(journalEntry{Op: opCreated, Label: "a", NotificationID: 7}))
			require.NoError(t, j.Close())
			kept, err := filepath.Glob(path + ".torn-*")
			require.NoError(t, err)
			require.Len(t, kept, 1)
			b, err := os.ReadFile(kept[0])
			require.NoError(t, err)
			assert.Equal(t, tail, string(b), "the torn bytes are kept")
			for range 2 {
				j, err = OpenJournal(path)
				require.NoError(t, err, "every later run reads the journal")
				assert.Empty(t, j.Repaired())
				assert.Equal(t, int64(7), j.State("a").NotificationID)
				assert.Equal(t, int64(3), j.Serial())
				require.NoError(t, j.Close())
			}
		})
	}
}

// A journal that is a symbolic link is refused, not followed.
func TestJournalSymlinkIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere.jsonl")
	require.NoError(t, os.WriteFile(target, []byte(`{"serial":1,"lineage":"x","op":"init"}`+"\n"), 0o644))
	path := filepath.Join(dir, "p.journal.jsonl")
	require.NoError(t, os.Symlink(target, path))
	for _, open := range []func(string) (*Journal, error){OpenJournal, ReadJournal} {
		_, err := open(path)
		var bad *state.BadJournalError
		require.ErrorAs(t, err, &bad)
		assert.Contains(t, err.Error(), "symbolic link")
	}
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, `{"serial":1,"lineage":"x","op":"init"}`+"\n", string(b), "nothing written through the link")
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
		path := filepath.Join(t.TempDir(), "p.journal.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := ReadJournal(path)
		if err != nil {
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
