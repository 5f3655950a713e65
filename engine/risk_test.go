package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// TestFixedProfitRiskIsItsStakeAtTheOddsFloor: a Fixed Profit bet puts
// target_profit / (odds - 1) at risk on each session where check_odds
// sets an odds floor, the figure validate counts (plan.RiskOf): $15 of
// profit at odds of at least 2.5 is $10 a session, at least 2 is $15.
// On two running sessions the first fits max_stake_per_bet $25, the
// second ($30) does not, and the run refuses before any create.
func TestFixedProfitRiskIsItsStakeAtTheOddsFloor(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.raceAt("Flemington", 6)
	p := w.plan(fmt.Sprintf(`version: 1
name: profit
poll: {interval: 30s, timeout: 2h}
limits: {max_total_stake: 100, max_stake_per_bet: 25}
defaults: {market: Fixed Win, type: Fixed Profit, target_profit: 15, race: %s}
bets:
  - {id: a, selection: "1", options: {check_odds: true, odds: 2.5}}
  - {id: b, selection: "2", options: {check_odds: true, odds: 2}}
`, raceYAML(a)))
	w.clock.Set(a.Start.Add(-30 * time.Minute))

	prev, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, prev.Bets, 2)
	assert.Equal(t, 20.0, prev.Bets[0].AtRisk, prev.Bets[0].AtRiskBasis)
	assert.Contains(t, prev.Bets[0].AtRiskBasis, "$10.00 a session at most ($15.00 profit at odds of at least 2.5) × 2")
	assert.Equal(t, 30.0, prev.Bets[1].AtRisk, prev.Bets[1].AtRiskBasis)

	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "at bet b, max_stake_per_bet $25.00: this bet puts $30.00 at risk ($15.00 a session at most ($15.00 profit at odds of at least 2) × 2")
	assert.Equal(t, engine.EndRefused, res.EndReason)
	assert.Zero(t, w.svc.NotificationCount())
}
