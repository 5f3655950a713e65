package engine_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// TestLayRefusedBySessionTakesOffItsLiability: a session that refuses a
// lay places nothing, so what it would have put at risk, its liability at
// the odds cap and not its stake, comes off the bet's risk. $600 laid on
// the favourite at odds up to a cap above its price, on two sessions,
// counts 2 × $600 × (cap − 1); Ladbrokes 2 ($500 in its account) refuses:
// Main Sportsbet's $600 × (cap − 1) is left, until the off.
func TestLayRefusedBySessionTakesOffItsLiability(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	fav := 0
	for i, o := range a.Odds {
		if o < a.Odds[fav] {
			fav = i
		}
	}
	maxOdds := math.Ceil(a.Odds[fav]) + 1
	p := w.plan(fmt.Sprintf(`version: 1
name: lay-split
poll: {interval: 30s, timeout: 12h}
limits: {max_loss: 50000}
bets:
  - id: lay
    race: %s
    selection: %q
    type: Fixed Wager
    market: Lay Win
    stake: 600
    options: {check_max_odds: true, max_odds: %v}
`, raceYAML(a), a.Runners[fav], maxOdds))
	opts := w.options(w.client())
	opts.NoWait = true
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	perSession := 600 * (maxOdds - 1)
	assert.Equal(t, 2*perSession, res.Bets[0].AtRisk, res.Bets[0].AtRiskBasis)

	w.clock.Advance(time.Minute)
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, engine.StatusPlaced, res.Bets[0].Status)
	assert.Equal(t, "Ladbrokes 2: Insufficient funds in your account.", strings.Join(res.Bets[0].RefusedBy, "; "))
	assert.Equal(t, perSession, res.Bets[0].AtRisk, res.Bets[0].AtRiskBasis)
}

// TestRecoveredLayCountsItsCap: a lay found on the service by its label
// (the state dir lost before its bots answer) counts its liability at
// the max_odds its notification shows, as when it was created, not its
// stake.
func TestRecoveredLayCountsItsCap(t *testing.T) {
	t.Parallel()
	w := newWorldWith(t, sim.Options{TakeUpDelay: time.Hour}) // the bots answer after the off
	a := w.race("Galloping", 0)
	fav := 0
	for i, o := range a.Odds {
		if o < a.Odds[fav] {
			fav = i
		}
	}
	require.LessOrEqual(t, a.Odds[fav], 8.0, "the favourite's price is within the lay's max_odds")
	p := w.plan(fmt.Sprintf(`version: 1
name: lay-found
poll: {interval: 30s, timeout: 12h}
limits: {max_loss: 500}
bets:
  - id: lay
    race: %s
    selection: %q
    type: Fixed Wager
    market: Lay Win
    stake: 20
    target_session: "4417"
    options: {check_max_odds: true, max_odds: 8}
`, raceYAML(a), a.Runners[fav]))
	opts := w.options(w.client())
	opts.NoWait = true
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	require.Equal(t, 140.0, res.Bets[0].AtRisk, res.Bets[0].AtRiskBasis)

	w.moveState(&opts, "lost")
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	assert.Equal(t, engine.StatusCreated, res.Bets[0].Status, "its bots have not answered yet")
	assert.Equal(t, 140.0, res.Bets[0].AtRisk, res.Bets[0].AtRiskBasis)
	assert.Equal(t, 1, w.svc.NotificationCount())
}
