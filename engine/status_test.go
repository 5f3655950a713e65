package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

func TestStatusWithoutJournalFindsBetsByLabel(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	ran, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	w.moveState(&opts, "gone")
	res, err := engine.ReadStatus(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	for i, b := range res.Bets {
		assert.Equal(t, ran.Bets[i].NotificationID, b.NotificationID)
		assert.Equal(t, engine.StatusSettled, b.Status)
		assert.InDelta(t, ran.Bets[i].Profit, b.Profit, 0.001)
	}
}
