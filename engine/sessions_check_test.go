package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// Before its first create, a run says of each session its bets reach
// what will stop it betting them: a bot not logged in (since when, and
// the service's words), a stake above the bookmaker's maximum (how much,
// on how many races), or that nothing it can see will (a market refusal
// shows only in the bet's records). It refuses none of it: every bet is
// created.
func TestRunNamesSessionsBeforeAnyCreate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, id := range []int{4417, 4418, 4419} {
		w.svc.SetBotRunning(id, true)
	}
	w.svc.SetLoginError(4417, "invalid password")
	w.svc.SetStakeBounds(4418, 1, 50)
	w.svc.SetRefusedMarkets(4419, "Fixed Win")
	r := w.race("Galloping", 0)
	p := w.plan(reasonsPlan(w, r))
	var log strings.Builder
	opts := w.options(w.client())
	opts.Log = &log
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	for _, b := range res.Bets {
		assert.NotZero(t, b.NotificationID, "%s created: warned, not refused", b.ID)
	}
	out := log.String()
	firstCreate := strings.Index(out, " created ")
	require.Positive(t, firstCreate, out)
	for _, want := range []string{
		"session 4417 Main Sportsbet: logged out since 2026-11-21T00:00:00Z: 'invalid password' (bet out)",
		"session 4418 Ladbrokes 2: max stake $50, plan bets $80 on 1 race (bets big, fine)",
		"session 4419 TAB spare: nothing betplan can see stops it betting (bet nomarket; bot running, logged in, stakes $1 to $1000)",
	} {
		at := strings.Index(out, want)
		assert.True(t, at >= 0 && at < firstCreate, "%q before the first create in:\n%s", want, out)
	}
}
