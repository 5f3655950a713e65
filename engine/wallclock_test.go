package engine_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// A wait for the plan's lock is on the wall clock, whatever the service's
// clock: its line is stamped by the wall clock (Options.WallStamp), as a
// rehearsal's log says "real time" of it beside its simulated lines.
func TestLockWaitIsSaidOnTheWallClock(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	var log bytes.Buffer
	opts.Log = &log
	opts.Stamp = func(time.Time) string { return "SIM" }
	opts.WallStamp = func(time.Time) string { return "WALL" }
	lock, err := local.AcquireLock(context.Background(), opts.State.LockPath(p.Name, opts.BaseURL), state.LockOwner{PID: 4242, Host: "elsewhere", Command: "betplan run"}, 0)
	require.NoError(t, err)
	defer lock.Release()
	opts.LockTimeout = 200 * time.Millisecond
	_, err = engine.Run(context.Background(), p, opts)
	require.Error(t, err)
	assert.Contains(t, log.String(), "WALL waiting up to 200ms for the plan's lock, held by pid 4242 on elsewhere")
	assert.NotContains(t, log.String(), "SIM waiting")
}
