package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/local"
)

func TestIntentFile(t *testing.T) {
	dir := t.TempDir()
	layout := local.Layout{Dir: filepath.Join(dir, "state"), LockDir: filepath.Join(dir, "locks")}
	path := layout.IntentPath("card", "http://127.0.0.1:8080")
	assert.Equal(t, layout.IntentPath("card", "http://localhost:8080/"), path, "every spelling of one service notes in one file")
	assert.NotEqual(t, layout.IntentPath("other", "http://127.0.0.1:8080"), path)
	assert.Equal(t, filepath.Join(dir, "locks"), filepath.Dir(path), "beside the lock, not in the state dir")

	f := local.NewIntentFile(path)
	notes, err := f.Notes()
	require.NoError(t, err)
	assert.Empty(t, notes)
	require.NoError(t, f.Note("a", []byte(`{"op":"creating","label":"a"}`)))
	require.NoError(t, f.Note("b", []byte(`{"op":"creating","label":"b"}`)))
	notes, err = local.NewIntentFile(path).Notes()
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"a": []byte(`{"op":"creating","label":"a"}`), "b": []byte(`{"op":"creating","label":"b"}`)}, notes)
	require.NoError(t, f.Clear("a"))
	require.NoError(t, f.Clear("a"))
	notes, err = f.Notes()
	require.NoError(t, err)
	assert.Len(t, notes, 1)
	require.NoError(t, f.Clear("b"))
	_, err = os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "no note left, no file")

	require.NoError(t, os.WriteFile(path, []byte("{torn"), 0o600))
	_, err = f.Notes()
	assert.ErrorContains(t, err, "does not read")
}
