package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// gatedClock is the world's manual clock, except that the first Sleep
// after the service holds a notification waits for the test: a run caught
// between two creates.
type gatedClock struct {
	*sim.ManualClock
	svc    *sim.Service
	once   sync.Once
	paused chan struct{}
	resume chan struct{}
}

func (c *gatedClock) Sleep(ctx context.Context, d time.Duration) error {
	if c.svc.NotificationCount() > 0 {
		gate := false
		c.once.Do(func() { gate = true })
		if gate {
			close(c.paused)
			select {
			case <-c.resume:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return c.ManualClock.Sleep(ctx, d)
}

// A plan of two bets an hour apart: the run creates the first, then waits
// for the second one's race.
// The bots are off (and allowed off) so nothing is placed before the
// cancel: a placed bet stays placed whatever is cancelled.
func (w *world) spacedPlan() (*engine.Options, func() *engine.Options, string, time.Time) {
	a := w.race("Galloping", 0)
	var b sim.RaceInfo
	for _, r := range w.svc.Races() {
		if r.Start.After(a.Start.Add(time.Hour)) {
			b = r
			break
		}
	}
	require.NotEmpty(w.t, b.Venue, "no race an hour after the first")
	yaml := fmt.Sprintf(`version: 1
name: stop-card
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: early
    race: %s
    selection: %q
    stake: 10
    when: race.minutes_to_start <= 10
  - id: late
    race: %s
    selection: %q
    stake: 5
    when: race.minutes_to_start <= 10
`, raceYAML(a), a.Runners[0], raceYAML(b), b.Runners[0])
	w.clock.Set(a.Start.Add(-9 * time.Minute)) // the early bet is ready now
	w.svc.SetBotRunning(4417, false)
	w.svc.SetBotRunning(4418, false)
	fresh := func() *engine.Options { o := w.options(w.client()); o.AllowNoBot = true; return &o }
	return fresh(), fresh, yaml, b.Start
}

// betplan stop during a running plan: the run sees the stop mark at its
// next tick and ends without creating the second bet; stop takes the lock
// once it is free and cancels the first. Later runs create nothing until
// the plan is resumed, and then only what was never created.
func TestStopDuringRun(t *testing.T) {
	t.Parallel()
	t.Run("local", func(t *testing.T) { testStopDuringRun(t, nil) })
	t.Run("postgres", func(t *testing.T) {
		url, _ := pgtest.Schema(t)
		cfg, err := postgres.ParseURL(url, "", false)
		require.NoError(t, err)
		s := postgres.New(cfg)
		s.Retry = 20 * time.Millisecond
		testStopDuringRun(t, s)
	})
}

// testStopDuringRun plays it on shared (nil: the world's local files),
// every command sharing it as machines sharing a database would.
func testStopDuringRun(t *testing.T, shared state.Store) {
	w := newWorld(t)
	runOpts, base, yaml, lateStart := w.spacedPlan()
	store := runOpts.Store
	if shared != nil {
		store = shared
	}
	fresh := func() *engine.Options {
		o := base()
		o.Store = store
		return o
	}
	runOpts.Store = store
	p := w.plan(yaml)
	gate := &gatedClock{ManualClock: w.clock, svc: w.svc, paused: make(chan struct{}), resume: make(chan struct{})}
	runOpts.Clock = gate

	type outcome struct {
		res *engine.Result
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		res, err := engine.Run(context.Background(), p, *runOpts)
		ran <- outcome{res, err}
	}()
	select {
	case <-gate.paused:
	case o := <-ran:
		t.Fatalf("the run ended before waiting for the second bet: %v, %+v", o.err, o.res)
	}
	require.Equal(t, 1, w.svc.NotificationCount(), "the run should have created the early bet only")

	stopOpts := fresh()
	stopOpts.LockTimeout = 20 * time.Second
	stopped := make(chan outcome, 1)
	go func() {
		res, err := engine.Stop(context.Background(), p, *stopOpts)
		stopped <- outcome{res, err}
	}()
	// Let the run go on only once the mark is there, as a run that ticks
	// after `stop` began would find it.
	key := state.PlanKey{Name: p.Name, BaseURL: stopOpts.BaseURL}
	require.Eventually(t, func() bool {
		m, err := store.ReadStop(context.Background(), key)
		return err == nil && m != nil
	}, 10*time.Second, 10*time.Millisecond)
	close(gate.resume)

	// A stopped plan's run is not a failure: it ends with what it placed
	// read and reported, and says who stopped it.
	run := <-ran
	require.NoError(t, run.err)
	assert.Equal(t, engine.EndStopped, run.res.EndReason)
	assert.Contains(t, run.res.Stopped, "stopped by betplan stop")
	assert.Empty(t, run.res.Error)

	st := <-stopped
	require.NoError(t, st.err)
	assert.Equal(t, 1, w.svc.NotificationCount(), "the late bet was created after the stop")
	byID := map[string]engine.BetResult{}
	for _, b := range st.res.Bets {
		byID[b.ID] = b
	}
	assert.Equal(t, engine.StatusCanceled, byID["early"].Status, byID["early"].Reason)
	assert.NotZero(t, byID["early"].NotificationID)
	assert.Zero(t, byID["late"].NotificationID)

	// The mark stays: a cron run at the late bet's time creates nothing.
	later := fresh()
	later.NoWait = true
	w.clock.Set(lateStart.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, *later)
	require.NoError(t, err, "run after stop")
	assert.Equal(t, engine.EndStopped, res.EndReason)
	assert.Equal(t, 1, w.svc.NotificationCount())

	// Resumed, a run creates again, never the cancelled bet a second time.
	had, err := engine.Resume(context.Background(), p, *fresh())
	require.NoError(t, err)
	assert.True(t, had)
	had, err = engine.Resume(context.Background(), p, *fresh())
	require.NoError(t, err)
	assert.False(t, had, "a second resume found a mark")
	res, err = engine.Run(context.Background(), p, *later)
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount(), "after resume: %+v", res.Bets)
	for _, b := range res.Bets {
		assert.LessOrEqual(t, w.svc.NotificationsWithLabel(b.Label), 1, "bet %s created twice", b.ID)
	}
}
