package local_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// A journal an earlier betplan kept for http://0.0.0.0:8080 under that
// spelling's key is the service's at 127.0.0.1:8080: the account counts
// it until its plan's next run moves it under the key of now.
func TestJournalKeptUnderAnEarlierSpellingIsCarriedOver(t *testing.T) {
	dir := t.TempDir()
	layout := local.Layout{Dir: filepath.Join(dir, "state"), LockDir: filepath.Join(dir, "locks")}
	store := local.Store{Layout: layout}
	ctx := context.Background()
	spelled := "http://0.0.0.0:8080"
	old := filepath.Join(layout.Dir, "other.0123456789ab.journal.jsonl")
	require.NoError(t, os.MkdirAll(layout.Dir, 0o755))
	record := `{"serial":1,"lineage":"ab","op":"init","service":"` + spelled + `"}`
	require.NoError(t, os.WriteFile(old, []byte(record+"\n"), 0o644))
	// Another service's journal, under another key, stays out.
	require.NoError(t, os.WriteFile(filepath.Join(layout.Dir, "third.ba9876543210.journal.jsonl"),
		[]byte(`{"serial":1,"lineage":"cd","op":"init","service":"https://api.example.com"}`+"\n"), 0o644))

	service := state.ServiceIdentity("http://127.0.0.1:8080")
	logs, err := store.ReadAccount(ctx, service)
	require.NoError(t, err)
	require.Len(t, logs, 1, "counted for the account before any run moved it")
	assert.Equal(t, "other", logs[0].Name)

	lease, err := store.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: "other", BaseURL: "http://localhost:8080"}})
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte(record)}, lease.Records(), "the plan's journal is the one kept under the earlier key")
	assert.Contains(t, lease.Repaired(), "moved into")
	require.NoError(t, lease.Release())
	assert.NoFileExists(t, old)
	assert.FileExists(t, layout.JournalPath("other", spelled))
	logs, err = store.ReadAccount(ctx, service)
	require.NoError(t, err)
	assert.Len(t, logs, 1, "counted once")
}
