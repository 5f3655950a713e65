package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
)

// winnerOf is the runner that wins race r and its win odds.
func winnerOf(t *testing.T, svc *sim.Service, r sim.RaceInfo) (string, float64) {
	t.Helper()
	w := svc.Winner(r)
	for i, x := range r.Runners {
		if x == w {
			return x, r.Odds[i]
		}
	}
	t.Fatalf("race %s R%d has no winner", r.Venue, r.EventNumber)
	return "", 0
}

// TestLayTakenAboveItsMaxOddsIsAlerted: a lay's risk before placement is
// counted at its max_odds; a bookmaker that takes it above that price
// (the simulated bots told to ignore check_max_odds) leaves it able to
// lose more. The placed alert and the run's log say so at once, and the
// bet's at-risk is its liability at the odds taken.
func TestLayTakenAboveItsMaxOddsIsAlerted(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var placed []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m notify.Message
		if json.Unmarshal(body, &m) == nil && m.Event == plan.EventPlaced {
			mu.Lock()
			placed = append(placed, m.Message)
			mu.Unlock()
		}
	}))
	t.Cleanup(hook.Close)
	targets, err := notify.Targets("plan.yaml", []plan.NotifyTarget{{URL: hook.URL + "/hook", On: []string{plan.EventPlaced, plan.EventSummary}}}, func(string) string { return "" })
	require.NoError(t, err)

	w := newWorldWith(t, sim.Options{MaxOddsIgnored: true})
	a := w.race("Galloping", 0)
	runner, odds := winnerOf(t, w.svc, a)
	require.Greater(t, odds, 2.0, "the test lays a winner at odds above its cap of 2")
	p := w.plan(fmt.Sprintf(`version: 1
name: lay-cap
poll: {interval: 30s, timeout: 12h}
limits: {max_loss: 1000}
bets:
  - id: lay
    race: %s
    selection: %q
    type: Fixed Wager
    market: Lay Win
    stake: 10
    target_session: "4417"
    options: {check_max_odds: true, max_odds: 2}
`, raceYAML(a), runner))
	var log strings.Builder
	opts := w.options(w.client())
	opts.NoWait = true
	opts.Notify, opts.NotifyClient, opts.NotifyWithin = targets, hook.Client(), 5*time.Second
	opts.Log = logFunc(func(s string) { mu.Lock(); log.WriteString(s); mu.Unlock() })
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	assert.Equal(t, 10.0, res.Bets[0].AtRisk, "at odds up to 2 a $10 lay can lose $10: %s", res.Bets[0].AtRiskBasis)

	w.clock.Advance(time.Minute) // the bot places it, above the cap
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	liability := float64(int(10*(odds-1)*100+0.5)) / 100
	assert.Equal(t, engine.StatusPlaced, res.Bets[0].Status)
	assert.Equal(t, liability, res.Bets[0].AtRisk, res.Bets[0].AtRiskBasis)
	warning := fmt.Sprintf("warning: the lay was taken at odds %s, above its max_odds 2, the odds its risk was counted at before it was placed: it can lose $%.2f",
		fmt.Sprint(odds), liability)
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, log.String(), warning)
	require.Len(t, placed, 1)
	assert.Contains(t, placed[0], warning)
}

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
