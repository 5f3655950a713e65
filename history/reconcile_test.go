package history_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/state"
)

// --reconcile lists every difference between the journals and the
// service's bet records, and none when they agree.
func TestHistoryReconcile(t *testing.T) {
	c := newCard(t, localStore)
	c.play()
	bets, _, err := history.ReadBets(context.Background(), c.store.(state.EveryReader))
	require.NoError(t, err)
	diffs, _, err := history.Reconcile(context.Background(), bets, c.client(), "", history.DefaultReconcileLimits)
	require.NoError(t, err)
	assert.Empty(t, diffs, "the journals agree with the service")

	var kept []history.Bet
	var corrected, dropped string
	for _, b := range bets {
		switch {
		case b.Plan == "gamma" && b.Accepted > 0 && dropped == "":
			dropped = b.Label // as if no plan of this state made it
			continue
		case b.Result == "lost" && corrected == "":
			corrected = b.Label
			b.Profit -= 150
			b.Sessions = append([]history.Session(nil), b.Sessions...)
			b.Sessions[0].Profit -= 150
		}
		kept = append(kept, b)
	}
	require.NotEmpty(t, corrected)
	require.NotEmpty(t, dropped)
	diffs, _, err = history.Reconcile(context.Background(), kept, c.client(), "", history.DefaultReconcileLimits)
	require.NoError(t, err)
	kinds := map[string]string{}
	for _, d := range diffs {
		kinds[d.Label] = d.Kind
	}
	assert.Equal(t, map[string]string{corrected: "profit_corrected", dropped: "unknown"}, kinds, "%+v", diffs)
}
