package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// servedPlan bets on a named race and, for_each_race, on the first race
// of the Meadows' every meeting, each 10 minutes before the start.
func (w *world) servedPlan() *plan.Plan {
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 2m, timeout: 1h}
name: served
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
limits: {max_stake_per_bet: 20, max_total_stake: 1000, max_bets: 100}
bets:
  - id: named
    race: %s
    selection: %q
    stake: 10
    when: race.minutes_to_start <= 10
  - id: dogs
    for_each_race: race.code == "Greyhounds" && race.venue == "The Meadows" && race.event_number == 1
    selection: "1"
    stake: 2
    when: race.minutes_to_start <= 10
`, raceYAML(a), a.Runners[0]))
	return p
}

// journalOps reads the plan's journal file: each entry's op, fence and
// plan hash.
func journalOps(t *testing.T, o engine.Options, name string) []map[string]any {
	t.Helper()
	f, err := os.Open(o.State.JournalPath(name, o.BaseURL))
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		out = append(out, e)
	}
	return out
}

// serveUntil runs p served until done says so of a published result,
// then lets it go; it returns the run's result and what it published.
func serveUntil(t *testing.T, p *plan.Plan, o engine.Options, done func(*engine.Result) bool) (*engine.Result, []*engine.Result, error) {
	t.Helper()
	yield := make(chan struct{})
	var mu sync.Mutex
	var seen []*engine.Result
	var once sync.Once
	o.Serve.Yield = yield
	o.Serve.Published = func(r *engine.Result) {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
		if done(r) {
			once.Do(func() { close(yield) })
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := engine.Run(ctx, p, o)
	mu.Lock()
	defer mu.Unlock()
	return res, seen, err
}

func settled(r *engine.Result, n int) bool {
	k := 0
	for _, b := range r.Bets {
		if b.Status == engine.StatusSettled {
			k++
		}
	}
	return k >= n
}

// A served run does not end with its first card: the named race's next
// meeting, once its day turns, and the for_each_race races listed later
// are its bets too, each created once; every create is announced with the
// leadership's fence, and the run's start is journalled with it.
func TestServedRunBetsEachMeetingDay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.servedPlan()
	o := w.options(w.client())
	// The run's lock is taken under the account's leadership.
	term, err := o.Store.(state.Leaders).Lead(context.Background(), state.LeadRequest{Account: "acct", Instance: "me", TTL: time.Hour})
	require.NoError(t, err)
	require.True(t, term.Leading)
	o.Serve = &engine.ServeMode{Fence: &state.LeaderFence{Account: "acct", Fence: term.Fence}, Why: "start", By: "pid 1 on test", Rollover: 72 * time.Hour}

	res, seen, err := serveUntil(t, p, o, func(r *engine.Result) bool { return settled(r, 4) })
	require.ErrorIs(t, err, context.Canceled, "let go")
	require.NotNil(t, res)
	assert.Equal(t, engine.EndInterrupted, res.EndReason)
	assert.Equal(t, 4, w.svc.NotificationCount(), "two bets a meeting day, two days")
	assertOnePerLabel(t, w.svc, res)
	days := map[string]int{}
	for _, b := range res.Bets {
		if b.NotificationID != 0 {
			days[b.Race.Start.Format("2006-01-02")]++
		}
	}
	assert.Equal(t, map[string]int{"2026-11-21": 2, "2026-11-22": 2}, days)
	require.NotEmpty(t, seen)
	last := seen[len(seen)-1]
	assert.Equal(t, 4, last.Totals.ByStatus[engine.StatusSettled], "the last snapshot is the run as it stood")
	assert.InDelta(t, res.Totals.Profit, last.Totals.Profit, 0.001)

	var creating, served int
	for _, e := range journalOps(t, o, "served") {
		switch e["op"] {
		case "creating":
			creating++
			assert.EqualValues(t, term.Fence, e["fence"], "announced with the fence")
		case "served":
			served++
			assert.EqualValues(t, term.Fence, e["fence"])
			assert.Equal(t, "start", e["why"])
			assert.Equal(t, "pid 1 on test", e["by"])
			assert.True(t, strings.HasPrefix(e["plan_hash"].(string), "sha256:"), "%v", e["plan_hash"])
		}
	}
	assert.Equal(t, 4, creating)
	assert.Equal(t, 1, served)
}

// A plan that left the served folder creates nothing more, and its run
// ends on its own once what it created is final.
func TestServedRunRetiredFollowsToTheEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.servedPlan()
	o := w.options(w.client())
	var mu sync.Mutex
	retired := false
	o.Serve = &engine.ServeMode{Retired: func() bool { mu.Lock(); defer mu.Unlock(); return retired }}
	o.Serve.Published = func(r *engine.Result) {
		for _, b := range r.Bets {
			if b.NotificationID != 0 {
				mu.Lock()
				retired = true
				mu.Unlock()
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := engine.Run(ctx, p, o)
	require.NoError(t, err, "it ended on its own")
	created := 0
	for _, b := range res.Bets {
		if b.NotificationID != 0 {
			created++
			assert.Equal(t, engine.StatusSettled, b.Status, "followed to the end: %s", b.ID)
		} else if b.Status == engine.StatusWaiting {
			assert.Contains(t, b.Reason, "left the served folder", b.ID)
		}
	}
	assert.Equal(t, created, w.svc.NotificationCount())
	assert.Less(t, created, 4, "nothing more was created once it left")
	var left int
	for _, e := range journalOps(t, o, "served") {
		if e["op"] == "served" && e["why"] == "removed from the folder" {
			left++
			assert.Equal(t, p.Hash, e["plan_hash"])
		}
	}
	assert.Equal(t, 1, left, "its leaving journalled once, with its hash")
}

// A serving process that lets the run go while a create is in flight
// lets that create finish and journal its answer; nothing new is
// announced after it.
func TestServedRunYieldLetsTheCreateInFlightFinish(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.servedPlan()
	o := w.options(w.client())
	yield := make(chan struct{})
	var once sync.Once
	o.Serve = &engine.ServeMode{Yield: yield}
	o.Checkpoint = func(at string) {
		if at == "creating" {
			once.Do(func() { close(yield) })
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := engine.Run(ctx, p, o)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, engine.EndInterrupted, res.EndReason)
	assert.Equal(t, 1, w.svc.NotificationCount(), "the create in flight landed, no other was sent")
	var ops []string
	for _, e := range journalOps(t, o, "served") {
		switch e["op"] {
		case "creating", "created", "adopted", "absent", "failed":
			ops = append(ops, e["op"].(string))
		}
	}
	assert.Equal(t, []string{"creating", "created"}, ops, "its answer was journalled; nothing announced after")
}

// A served run refused (here: no running bot) ends, as a cron run would,
// rather than holding its bets failed until it rolls over: the serving
// process starts the next one afresh.
func TestServedRunEndsWhenRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.servedPlan()
	w.svc.SetBotRunning(4417, false)
	o := w.options(w.client())
	o.Serve = &engine.ServeMode{Rollover: 72 * time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	began := w.clock.Now()
	res, err := engine.Run(ctx, p, o)
	assert.Less(t, w.clock.Now().Sub(began), time.Hour, "it ended once refused, not at its rollover")
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "no targeted session has a running bot")
	assert.Equal(t, engine.EndRefused, res.EndReason)
	assert.Zero(t, w.svc.NotificationCount())
}
