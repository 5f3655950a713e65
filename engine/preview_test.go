package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

func TestPreviewAndSavedPlan(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	a := w.race("Galloping", 0)
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	opts := w.options(w.client())
	res, saved, err := engine.Preview(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Zero(t, w.svc.NotificationCount(), "plan creates nothing")
	acts := map[string]engine.Action{}
	for _, b := range res.Bets {
		acts[b.ID] = b.Action
	}
	assert.Equal(t, engine.ActionCreate, acts["first"])
	assert.Equal(t, engine.ActionWait, acts["second"])
	require.Len(t, saved.Creates, 1)
	assert.InDelta(t, 10, res.Limits.Planned, 0.001)

	// Applying the saved plan creates exactly its creates.
	opts.NoWait = true
	_, err = engine.ApplySaved(context.Background(), p, saved, opts)
	require.NoError(t, err)
	assert.Equal(t, 1, w.svc.NotificationCount())

	// The journal moved on: the same saved plan is refused.
	_, err = engine.ApplySaved(context.Background(), p, saved, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err))
	assert.Contains(t, err.Error(), "journal moved on")
}
