package local

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// One service spelled two ways is one plan's lock and stop mark; a mark an
// earlier betplan set beside a lock keyed by the spelling still stops, and
// resume clears it.
func TestStopMarkOfEverySpelling(t *testing.T) {
	t.Parallel()
	layout := Layout{Dir: t.TempDir(), LockDir: t.TempDir()}
	store := Store{Layout: layout}
	ctx := context.Background()
	assert.Equal(t, layout.LockPath("card", "http://localhost:8080"), layout.LockPath("card", "http://127.0.0.1:8080"))
	mark := &state.StopMark{At: time.Now().UTC(), By: state.LockOwner{Command: "betplan stop"}}
	require.NoError(t, store.SetStop(ctx, state.PlanKey{Name: "card", BaseURL: "http://LOCALHOST:8080"}, mark))
	got, err := store.ReadStop(ctx, state.PlanKey{Name: "card", BaseURL: "http://[::1]:8080"})
	require.NoError(t, err)
	require.NotNil(t, got, "the mark is the service's, however spelled")
	require.NoError(t, store.SetStop(ctx, state.PlanKey{Name: "card", BaseURL: "http://127.0.0.1:8080"}, nil))

	legacy := stopBeside(layout.legacyLockPath("card", "http://localhost:8080"))
	require.NotEqual(t, legacy, layout.StopPath("card", "http://localhost:8080"))
	require.NoError(t, os.WriteFile(legacy, []byte(`{"by":{"command":"betplan stop"}}`), 0o644))
	key := state.PlanKey{Name: "card", BaseURL: "http://localhost:8080"}
	got, err = store.ReadStop(ctx, key)
	require.NoError(t, err)
	assert.NotNil(t, got, "a mark set before the upgrade still stops")
	lease, err := store.Lock(ctx, state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	got, err = lease.Stopped()
	require.NoError(t, err)
	assert.NotNil(t, got, "and a run holding the lock sees it")
	require.NoError(t, lease.Release())
	require.NoError(t, store.SetStop(ctx, key, nil))
	assert.NoFileExists(t, legacy, "resume clears it")
}

// Through the store: a torn last write is cut off (and kept) under the
// next lock, before its first append; damage mid-file refuses the lock
// and the read alike, naming the line.
func TestTornTailAndDamageThroughTheStore(t *testing.T) {
	ctx := context.Background()
	layout := Layout{Dir: t.TempDir(), LockDir: t.TempDir()}
	s := Store{Layout: layout}
	key := state.PlanKey{Name: "card", BaseURL: "https://betting.example.com"}
	l, err := s.Lock(ctx, state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	require.NoError(t, l.Append(1, []byte(`{"serial":1,"op":"init"}`)))
	require.NoError(t, l.Release())
	path := layout.JournalPath("card", key.BaseURL)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"serial":2,"op":"crea` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	records, err := s.ReadLog(ctx, key)
	require.NoError(t, err)
	assert.Len(t, records, 1, "a reader skips the torn write")
	l, err = s.Lock(ctx, state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	assert.Len(t, l.Records(), 1)
	assert.Contains(t, l.Repaired(), "torn last write")
	require.NoError(t, l.Append(2, []byte(`{"serial":2,"op":"creating","label":"a"}`)))
	require.NoError(t, l.Release())
	records, err = s.ReadLog(ctx, key)
	require.NoError(t, err)
	assert.Len(t, records, 2, "read whole after the repair")

	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append([]byte("{\"serial\":1,\"op\":\"init\"}\nnot json\n"), b[len(`{"serial":1,"op":"init"}`)+1:]...), 0o644))
	var bad *state.BadJournalError
	_, err = s.Lock(ctx, state.LockRequest{PlanKey: key})
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, 2, bad.Line)
	_, err = s.ReadLog(ctx, key)
	require.ErrorAs(t, err, &bad)
	_, err = s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: state.LockOwner{PID: 1}})
	require.ErrorAs(t, err, &bad, "not LockedError: the refused run gave its lock back")
}
