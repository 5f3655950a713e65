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
	"github.com/betplan/betplan/reason"
)

// missedPlan bets on race r once it is ten minutes from its start.
func missedPlan(w *world, r sim.RaceInfo) string {
	return fmt.Sprintf(`version: 1
name: cron
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 100, max_total_stake: 300}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: r2, race: %s, selection: %q, stake: 10, when: race.minutes_to_start <= 10}
`, raceYAML(r), r.Runners[0])
}

// ops counts the journal's entries by op.
func ops(t *testing.T, path string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range journalLines(t, path) {
		out[e["op"].(string)]++
	}
	return out
}

// Two runs of a day from cron: a --no-wait one before the bets' windows
// open, the next after the first bet's race started. The second says that
// bet was missed (skipped, reason missed, with when the window closed and
// when betplan last looked), fails for it once, creates nothing, and does
// not move it to the next meeting's race; the other bet, whose race it
// watches to the start with its condition never true, is skipped by its
// own condition, not missed. A third run that day shows the missed bet
// the same without failing again.
func TestMissedWindowBetweenTwoRuns(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	later := w.race("Galloping", 3)
	p := w.plan(missedPlan(w, r) + fmt.Sprintf("  - {id: never, race: %s, selection: %q, stake: 10, when: race.minutes_to_start < 0}\n", raceYAML(later), later.Runners[0]))
	opts := w.options(w.client())
	opts.NoWait = true
	journal := opts.State.JournalPath("cron", opts.BaseURL)

	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	assert.Equal(t, engine.StatusWaiting, byID(res)["r2"].Status)
	assert.False(t, res.Failed())
	assert.Equal(t, 2, ops(t, journal)["looked"], "the run kept that it looked")

	w.clock.Set(r.Start.Add(time.Minute))
	require.True(t, later.Start.After(w.clock.Now()))
	var log strings.Builder
	opts.Log = &log
	opts.NoWait = false // it watches the later race to its start
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 2, "not moved to the next meeting's race")
	never := byID(res)["never"]
	assert.Equal(t, engine.StatusSkipped, never.Status, never.Reason)
	assert.Equal(t, reason.ConditionFalse, never.Why.Code, "skipped by its own condition: %s", never.Reason)
	b := byID(res)["r2"]
	assert.Equal(t, engine.StatusSkipped, b.Status, b.Reason)
	assert.Equal(t, reason.Missed, b.Why.Code, b.Reason)
	assert.True(t, r.Start.Equal(b.Race.Start), "on the day's race: %s", b.Race.Start)
	assert.Contains(t, b.Reason, "missed: its window closed at ")
	assert.Contains(t, b.Reason, "betplan last looked at ")
	assert.True(t, res.Failed(), "counted like a bet not placed")
	assert.Contains(t, log.String(), "missed r2: ")
	assert.Zero(t, w.svc.NotificationCount(), "nothing created")
	assert.Equal(t, 1, ops(t, journal)["missed"])

	w.clock.Advance(time.Hour)
	opts.NoWait = true
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	assert.Equal(t, reason.Missed, byID(res)["r2"].Why.Code, byID(res)["r2"].Reason)
	assert.Equal(t, b.Reason, byID(res)["r2"].Reason, "said the same")
	assert.False(t, res.Failed(), "failed once, by the run that found it")
	assert.Equal(t, 1, ops(t, journal)["missed"], "journalled once")
	assert.Zero(t, w.svc.NotificationCount(), "nothing created")
}

// A plan's first run after the day's race takes the next meeting's race,
// and says so in one line; nothing is missed.
func TestFirstRunAfterTheRaceTakesTheNextMeeting(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.plan(missedPlan(w, r))
	w.clock.Set(r.Start.Add(20 * time.Minute))
	var log strings.Builder
	opts := w.options(w.client())
	opts.NoWait = true
	opts.Log = &log
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	b := res.Bets[0]
	assert.Equal(t, engine.StatusWaiting, b.Status, b.Reason)
	assert.Equal(t, r.Start.AddDate(0, 0, 1).Format("2006-01-02"), b.Race.Start.Format("2006-01-02"), "the next meeting's")
	assert.False(t, res.Failed())
	assert.Equal(t, 1, strings.Count(log.String(), "this plan's first run: bet r2 is on the next meeting's "), log.String())
}

// Looks are journalled sparingly: a cron run every five minutes over a
// waiting bet does not add an entry each run, only once a look is half an
// hour old.
func TestLooksAreJournalledSparingly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 3)
	p := w.plan(missedPlan(w, r))
	opts := w.options(w.client())
	opts.NoWait = true
	journal := opts.State.JournalPath("cron", opts.BaseURL)
	start := w.clock.Now()
	for i := range 12 { // an hour of five-minute cron runs
		w.clock.Set(start.Add(time.Duration(i) * 5 * time.Minute))
		_, err := engine.Run(context.Background(), p, opts)
		require.NoError(t, err)
	}
	assert.Equal(t, 2, ops(t, journal)["looked"], "one look journalled each half hour, not one a run")
}
