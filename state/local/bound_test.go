package local_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// A record over state.MaxRecord is never written, and a line over it is
// refused, naming the line, wherever it is in the file.
func TestJournalRecordBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "card.journal.jsonl")
	l, err := local.OpenLog(path)
	require.NoError(t, err)
	require.NoError(t, l.Append(1, []byte(`{"serial":1,"op":"init"}`)))
	var tooLong *state.RecordTooLongError
	require.ErrorAs(t, l.Append(2, []byte(`{"e":"`+strings.Repeat("x", state.MaxRecord)+`"}`)), &tooLong)
	require.NoError(t, l.Close())
	records, err := local.ReadLog(path)
	require.NoError(t, err)
	assert.Len(t, records, 1, "nothing of the long record was written")

	atMost := `{"e":"` + strings.Repeat("x", state.MaxRecord-8) + `"}`
	require.Len(t, atMost, state.MaxRecord)
	over := `{"e":"` + strings.Repeat("x", state.MaxRecord) + `"}`
	for name, tt := range map[string]struct {
		text string
		line int
	}{
		"middle":       {`{"serial":1}` + "\n" + over + "\n" + `{"serial":2}` + "\n", 2},
		"last":         {`{"serial":1}` + "\n" + over + "\n", 2},
		"no newline":   {`{"serial":1}` + "\n" + over, 2},
		"within bound": {atMost + "\n" + `{"serial":2}` + "\n", 0},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, []byte(tt.text), 0o644))
			records, err := local.ReadLog(path)
			if tt.line == 0 {
				require.NoError(t, err)
				assert.Len(t, records, 2)
				return
			}
			var bad *state.BadJournalError
			require.ErrorAs(t, err, &bad)
			assert.Equal(t, tt.line, bad.Line)
			_, err = local.OpenLog(path)
			require.ErrorAs(t, err, &bad, "a run refuses it too: it is not a torn write to cut off")
		})
	}
}
