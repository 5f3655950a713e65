package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

func TestCancel(t *testing.T) {
	w := newWorld(t)
	p := w.twoBetPlan("")
	a := w.race("Galloping", 0)
	w.svc.SetBotRunning(4417, false) // nothing gets placed, so it can be cancelled
	opts := w.options(w.client())
	opts.NoWait = true
	opts.AllowNoBot = true
	// Move to ten minutes before the first race so it is created now.
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, 1, w.svc.NotificationCount())
	res, err := engine.Cancel(context.Background(), p, []string{"first"}, w.options(w.client()))
	require.NoError(t, err)
	for _, b := range res.Bets {
		if b.ID == "first" {
			assert.Equal(t, engine.StatusCanceled, b.Status, b.Reason)
		}
	}
	_, err = engine.Cancel(context.Background(), p, []string{"nosuch"}, w.options(w.client()))
	assert.ErrorContains(t, err, `no bet "nosuch"`)
}
