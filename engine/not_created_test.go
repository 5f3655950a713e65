package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// notCreatedEntries are the not_created entries of a plan's journal file.
func notCreatedEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e))
		if e["op"] == "not_created" {
			out = append(out, e)
		}
	}
	return out
}

// TestNotCreatedKeptOncePerDecision: a run journals why each bet it
// decided not to create was not created, once: a limit's refusal with the
// sums the limit saw, a condition never true with its reason, and neither
// again on the run's later ticks nor on the next run.
func TestNotCreatedKeptOncePerDecision(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: told
limits: {period: day, max_total_stake: 12}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", when: race.minutes_to_start <= 10}
bets:
  - {id: first, race: %[1]s, selection: %[2]q, stake: 5}
  - {id: capped, race: %[1]s, selection: %[2]q, market: Fixed Place, stake: 8}
  - {id: never, race: %[1]s, selection: %[2]q, market: Tote Win, stake: 1, when: race.minutes_to_start < -100}
`, raceYAML(a), a.Runners[0]))
	opts := w.options(w.client())
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, opts) // ticks until every bet is final, past the race's start
	require.NoError(t, err)
	require.Equal(t, engine.EndRefused, res.EndReason, "a cap held a bet back for the first time")
	path := opts.State.WithDefaults(opts.PlanFile).JournalPath("told", opts.BaseURL)

	check := func() {
		t.Helper()
		got := notCreatedEntries(t, path)
		require.Len(t, got, 2, "one not_created entry per bet decided not created: %v", got)
		byBet := map[string]map[string]any{}
		for _, e := range got {
			byBet[e["bet"].(string)] = e
		}
		c := byBet["capped"]
		require.NotNil(t, c, "the limit's refusal of capped is kept")
		assert.Equal(t, "failed", c["status"])
		assert.Equal(t, "limit", c["code"])
		assert.Equal(t, "max_total_stake", c["limit"])
		assert.Equal(t, "plan", c["scope"])
		assert.Equal(t, a.Start.Format("2006-01-02"), c["period"])
		assert.Contains(t, c["error"], "max_total_stake $12.00")
		assert.EqualValues(t, 8, c["at_risk"])
		assert.Equal(t, map[string]any{"staked": 5.0, "open_stake": 5.0, "profit": 0.0, "worst_case": -5.0, "lowest_profit": 0.0,
			"highest_profit": 0.0, "bets": 1.0, "race_stake": 5.0, "race_bets": 1.0}, c["sums"], "the sums the limit saw before capped")
		n := byBet["never"]
		require.NotNil(t, n, "a condition never true before the race is kept")
		assert.Equal(t, "skipped", n["status"])
		assert.Equal(t, "condition_false", n["code"])
		assert.Nil(t, n["sums"])
	}
	check()

	// A cron run of the same day decides nothing new: nothing more kept.
	opts.NoWait = true
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	check()
}

// TestNotCreatedCertainRefusal: bets certain to be created that break a
// limit together are refused before any create, and each is kept with
// the limit that refused them and the sums it saw at the bet where it
// did.
func TestNotCreatedCertainRefusal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: certain
limits: {period: day, max_stake_per_race: 9}
defaults: {market: Fixed Win, type: Fixed Wager, stake: 3}
bets:
  - {id: one, race: %[1]s, selection: %[2]q}
  - {id: two, race: %[1]s, selection: %[2]q, market: Fixed Place}
`, raceYAML(a), a.Runners[0]))
	opts := w.options(w.client())
	opts.NoWait = true
	_, err := engine.Run(context.Background(), p, opts)
	var refused *engine.RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Zero(t, w.svc.NotificationCount())
	got := notCreatedEntries(t, opts.State.WithDefaults(opts.PlanFile).JournalPath("certain", opts.BaseURL))
	require.Len(t, got, 2, "each certain bet refused is kept: %v", got)
	oneRisk, _ := got[0]["at_risk"].(float64)
	require.Greater(t, oneRisk, 3.0, "a $3 stake placed by each of the running sessions")
	for _, e := range got {
		assert.Equal(t, "limit", e["code"], e["bet"])
		assert.Equal(t, "max_stake_per_race", e["limit"], e["bet"])
		assert.Equal(t, a.Start.Format("2006-01-02"), e["period"], e["bet"])
		assert.Contains(t, e["error"], "the run refused before any create", e["bet"])
		// At bet two, the certain bet before it was on the race.
		sums := e["sums"].(map[string]any)
		assert.Equal(t, oneRisk, sums["race_stake"], e["bet"])
		assert.EqualValues(t, 1, sums["race_bets"], e["bet"])
	}
}
