package local

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine/state"
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
