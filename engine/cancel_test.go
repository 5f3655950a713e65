package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

func TestCancel(t *testing.T) {
	t.Parallel()
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
	// The question names each bet it cancels and what it has at risk.
	copts := w.options(w.client())
	var asked string
	copts.Confirm = func(q string) (bool, error) { asked = q; return true, nil }
	res, err := engine.Cancel(context.Background(), p, []string{"first"}, copts)
	require.NoError(t, err)
	assert.Regexp(t, `^Cancel 1 bet of plan "test-card" on http://127\.0\.0\.1:\d+, \$\d+\.\d\d at risk: first \(\w+ R\d+, \$\d+\.\d\d stake, \$\d+\.\d\d at risk\)\? What sessions placed already stays on\.$`, asked)
	for _, b := range res.Bets {
		if b.ID == "first" {
			assert.Equal(t, engine.StatusCanceled, b.Status, b.Reason)
		}
	}
	_, err = engine.Cancel(context.Background(), p, []string{"nosuch"}, w.options(w.client()))
	assert.ErrorContains(t, err, `no bet "nosuch"`)
}

// TestCancelOneInstanceOfAForEachRaceBet: each race's bet of a
// for_each_race bet has its own id, and cancel takes it.
func TestCancelOneInstanceOfAForEachRaceBet(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.race("Greyhounds", 0), w.race("Greyhounds", 1)
	require.Equal(t, "The Meadows", a.Venue)
	require.Equal(t, a.Venue, b.Venue)
	p := w.dogsPlan(fmt.Sprintf("race.event_number in [%d, %d]", a.EventNumber, b.EventNumber), "")
	w.svc.SetBotRunning(4417, false) // nothing gets placed, so both can be cancelled
	opts := w.options(w.client())
	opts.NoWait = true
	opts.AllowNoBot = true
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, 2, w.svc.NotificationCount())

	one := fmt.Sprintf("box1@the-meadows-r%d", a.EventNumber)
	other := fmt.Sprintf("box1@the-meadows-r%d", b.EventNumber)
	res, err := engine.Cancel(context.Background(), p, []string{one}, w.options(w.client()))
	require.NoError(t, err)
	st := map[string]engine.Status{}
	for _, b := range res.Bets {
		assert.Equal(t, "box1", b.ID, "id stays the plan's bet id")
		st[b.InstanceID] = b.Status
	}
	assert.Equal(t, map[string]engine.Status{one: engine.StatusCanceled, other: engine.StatusCreated}, st)

	_, err = engine.Cancel(context.Background(), p, []string{"box1@the-meadows-r99"}, w.options(w.client()))
	assert.ErrorContains(t, err, fmt.Sprintf(`no instance "box1@the-meadows-r99" of bet box1; its instances are: %s, %s`, min(one, other), max(one, other)))
}

// TestInstanceIDsOfTwoMeetings: the same race of a later meeting gets its
// meeting date after its id, and cancel takes either form.
func TestInstanceIDsOfTwoMeetings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	today := w.raceAt("Flemington", 1)
	p := w.plan(`version: 1
name: daily
poll: {interval: 30s, timeout: 2h}
limits: {period: day, max_bets: 1, max_total_stake: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", selection: "1", stake: 10}
bets:
  - id: box1
    for_each_race: race.venue == "Flemington" && race.event_number == 1
`)
	w.svc.SetBotRunning(4417, false)
	var res *engine.Result
	for day := 0; day < 2; day++ {
		w.clock.Set(today.Start.Add(time.Duration(day)*24*time.Hour - 40*time.Minute))
		opts := w.options(w.client())
		opts.NoWait, opts.AllowNoBot = true, true
		var err error
		res, err = engine.Run(context.Background(), p, opts)
		require.NoError(t, err)
	}
	tomorrow := today.Start.Add(24 * time.Hour).Format("20060102")
	var ids []string
	for _, b := range res.Bets {
		ids = append(ids, b.InstanceID)
	}
	assert.Equal(t, []string{"box1@flemington-r1", "box1@flemington-r1-" + tomorrow}, ids)

	res, err := engine.Cancel(context.Background(), p, []string{"box1@flemington-r1-" + tomorrow}, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	assert.Equal(t, engine.StatusCanceled, res.Bets[1].Status, res.Bets[1].Reason)
}

// TestCancelAfterPlacementKeepsWhatWasPlaced: the session placed $10
// before the cancel; the service keeps it and settles it. The bet says
// so, keeps $10 at risk in the limits, and its result is the service's,
// in the bet and in the totals.
func TestCancelAfterPlacementKeepsWhatWasPlaced(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, a := w.firstBetPlaced()

	var log strings.Builder
	opts := w.options(w.client())
	opts.Log = &log
	res, err := engine.Cancel(context.Background(), p, []string{"first"}, opts)
	require.NoError(t, err)
	b := byID(res)["first"]
	assert.True(t, b.Canceled)
	assert.Equal(t, engine.StatusCanceled, b.Status, b.Reason)
	assert.Equal(t, 10.0, b.AmountAccepted)
	assert.Equal(t, 10.0, b.AtRisk, b.AtRiskBasis)
	assert.Contains(t, log.String(), "cancelled first after it was placed: $10.00 already placed by Main Sportsbet stays on; nothing more will be placed")
	require.Len(t, res.Limits.Periods, 1)
	assert.Equal(t, 10.0, res.Limits.Periods[0].Staked)
	assert.Equal(t, 1, res.Limits.Periods[0].Bets)

	// Past the result, status shows the service's profit, and the limits
	// still count the $10.
	w.clock.Set(a.Start.Add(time.Hour))
	res, err = engine.ReadStatus(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	b = byID(res)["first"]
	require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
	assert.True(t, b.Canceled)
	assert.NotZero(t, b.Profit)
	assert.Equal(t, 10.0, res.Limits.Periods[0].Staked)
	assert.Equal(t, b.Profit, res.Limits.Periods[0].Profit)
}
