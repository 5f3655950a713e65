package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// A box plan over a greyhound card where some races have no box 8 is a
// normal day: those bets are skipped with the reason, nothing is created
// for them, and the run has not failed.
func TestVacantBoxIsSkipped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var full, vacant int
	for _, r := range w.svc.Races() {
		if r.Code != "Greyhounds" || !r.Start.After(w.clock.Now()) || r.Start.After(w.clock.Now().Add(3*time.Hour)) {
			continue
		}
		if len(r.Runners) < 8 {
			vacant++
		} else {
			full++
		}
	}
	require.NotZero(t, vacant, "the simulated card has no race without box 8")
	require.NotZero(t, full, "the simulated card has no race with box 8")
	p := w.plan(`version: 1
name: box8
poll: {interval: 30s, timeout: 3h}
limits: {max_total_stake: 500}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: box8
    for_each_race: race.code == "Greyhounds"
    selection: "8"
    stake: 1
    when: race.minutes_to_start <= 5
`)
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	assert.False(t, res.Failed(), "a vacant box fails the run")
	var skipped int
	for _, b := range res.Bets {
		if b.Status != engine.StatusSkipped {
			continue
		}
		skipped++
		assert.Zero(t, b.NotificationID, b.InstanceID)
		assert.Regexp(t, `^box 8 is vacant in [A-Za-z ]+ R\d+: [67] runners: not created$`, b.Reason)
	}
	assert.Equal(t, vacant, skipped)
	assert.Equal(t, full, w.svc.NotificationCount())
}

// A runner scratched before its bet falls due: the bet is skipped, not
// created, and plan says so beforehand.
func TestScratchedRunnerIsSkipped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: scratched
poll: {interval: 30s, timeout: 3h}
limits: {max_total_stake: 50}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: fav
    race: %s
    selection: %q
    stake: 5
    when: race.minutes_to_start <= 5
`, raceYAML(a), a.Runners[2]))
	require.True(t, w.svc.Scratch(sim.RaceInfo{Venue: a.Venue, EventNumber: a.EventNumber, Start: a.Start}, a.Runners[2]))

	prev, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, prev.Bets, 1)
	assert.Equal(t, engine.ActionSkip, prev.Bets[0].Action)
	assert.Contains(t, prev.Bets[0].Reason, "runner "+a.Runners[2]+" is not in the field of "+a.Venue)

	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	b := res.Bets[0]
	assert.Equal(t, engine.StatusSkipped, b.Status, b.Reason)
	assert.True(t, strings.HasPrefix(b.Reason, "runner "+a.Runners[2]+" is not in the field of "+a.Venue), b.Reason)
	assert.False(t, res.Failed())
	assert.Zero(t, w.svc.NotificationCount())
}
