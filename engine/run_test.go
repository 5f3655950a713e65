package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

func TestRunSettlesEveryBet(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	var sum float64
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, "bet %s: %s", b.ID, b.Reason)
		assert.True(t, b.Final)
		assert.NotZero(t, b.NotificationID)
		require.NotEmpty(t, b.Records, "bet %s has no session records", b.ID)
		var recProfit float64
		for _, r := range b.Records {
			recProfit += r.Profit
		}
		assert.InDelta(t, recProfit, b.Profit, 0.011, "bet %s: profit is the sum of the records", b.ID)
		sum += b.Profit
	}
	assert.InDelta(t, sum, res.Totals.Profit, 0.011)
	assert.Equal(t, engine.EndCompleted, res.EndReason)
	assert.False(t, res.Failed())
	assertOnePerLabel(t, w.svc, res)
	assert.Equal(t, 2, w.svc.NotificationCount())
}

func TestRerunNeverCreatesTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	// Again with the journal, and again with the state dir lost.
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	w.moveState(&opts, "lost")
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount())
	assertOnePerLabel(t, w.svc, res)
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, b.ID)
	}
}

func TestConcurrentRunsCreateOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	var wg sync.WaitGroup
	results := make([]*engine.Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := w.options(w.client())
			w.moveState(&opts, fmt.Sprintf("state-%d", i)) // different state dirs, one lock
			opts.LockTimeout = 30 * time.Second
			results[i], errs[i] = engine.Run(context.Background(), p, opts)
		}()
	}
	wg.Wait()
	for i := range 2 {
		require.NoError(t, errs[i])
		assertOnePerLabel(t, w.svc, results[i])
	}
	assert.Equal(t, 2, w.svc.NotificationCount())
}

func TestLockHeldRefuses(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	lock, err := local.AcquireLock(context.Background(), opts.State.LockPath(p.Name, opts.BaseURL), state.LockOwner{PID: 4242, Host: "elsewhere", Command: "betplan run"}, 0)
	require.NoError(t, err)
	defer lock.Release()
	opts.LockTimeout = 200 * time.Millisecond
	res, err := engine.Run(context.Background(), p, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err))
	assert.Contains(t, err.Error(), "pid 4242 on elsewhere")
	assert.Equal(t, engine.EndRefused, res.EndReason)
	assert.Zero(t, w.svc.NotificationCount())
	require.Len(t, res.Bets, 2, "the report lists the plan's bets even when the run never began")
	assert.Contains(t, res.Bets[0].Reason, "another run of this plan holds the lock")
}

func TestNoRunningBotRefuses(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	for _, s := range w.svc.Sessions() {
		w.svc.SetBotRunning(s.ID, false)
	}
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err))
	assert.Contains(t, err.Error(), "no targeted session has a running bot")
	assert.Zero(t, w.svc.NotificationCount())
	require.Len(t, res.Bets, 2, "the report is complete")
	assert.Equal(t, engine.EndRefused, res.EndReason)
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusFailed, b.Status)
		assert.Contains(t, b.Reason, "not created: no targeted session has a running bot")
	}

	// --allow-no-bot creates anyway; the service accepts and nothing is placed.
	opts := w.options(w.client())
	opts.AllowNoBot = true
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusNotTaken, b.Status, b.ID)
	}
	assert.True(t, res.Failed())
}

// TestBetNeverCreated: a bet whose race does not resolve fails the run; one
// whose own condition never held is skipped, which is no failure. Neither
// sends a create.
func TestBetNeverCreated(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		code    string                      // of the race the plan is written about
		bets    func(a sim.RaceInfo) string // the plan after its defaults
		status  engine.Status
		reasons func(a sim.RaceInfo) []string
		failed  bool
	}{
		{"unresolved race", "Galloping", func(a sim.RaceInfo) string {
			return fmt.Sprintf(`bets:
  - id: nowhere
    race: {venue: %q, code: Galloping, event_number: 99}
    selection: "1"
    stake: 5
`, a.Venue)
		}, engine.StatusUnresolved, func(a sim.RaceInfo) []string { return []string{"upcoming at " + a.Venue} }, true},
		{"condition never true", "Harness", func(a sim.RaceInfo) string {
			return fmt.Sprintf(`vars: {min_runners: 40}
bets:
  - id: big-field
    race: %s
    selection: "1"
    stake: 5
    when: len(race.runners) >= vars.min_runners
`, raceYAML(a))
		}, engine.StatusSkipped, func(sim.RaceInfo) []string { return []string{"race started before", "vars.min_runners"} }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.race(tt.code, 0)
			p := w.plan("version: 1\npoll: {interval: 30s, timeout: 12h}\nname: never\ndefaults: {market: Fixed Win, type: Fixed Wager}\n" + tt.bets(a))
			res, err := engine.Run(context.Background(), p, w.options(w.client()))
			require.NoError(t, err)
			require.Len(t, res.Bets, 1)
			b := res.Bets[0]
			assert.Equal(t, tt.status, b.Status)
			for _, want := range tt.reasons(a) {
				assert.Contains(t, b.Reason, want)
			}
			assert.Equal(t, tt.failed, res.Failed(), "only a bet the run could not resolve is a failure")
			assert.Zero(t, w.svc.NotificationCount())
		})
	}
}

func TestLimitAtRunTimeRefuses(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.race("Galloping", 0), w.race("Galloping", 1)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: limited
vars: {unit: 30}
limits: {max_stake_per_bet: 20, max_total_stake: 25}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: too-big
    race: %s
    selection: "1"
    stake: vars.unit + 0 * plan.bets # reads the run: only the run can hold it to the limits
  - id: fits
    race: %s
    selection: "1"
    stake: 20
  - id: over-total
    race: %s
    selection: "2"
    stake: 10 + 0 * plan.bets # reads the run: not certain, so validate lets the plan through
`, raceYAML(a), raceYAML(b), raceYAML(b)))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	assert.Equal(t, engine.EndRefused, res.EndReason)
	byID := map[string]engine.BetResult{}
	for _, b := range res.Bets {
		byID[b.ID] = b
	}
	assert.Equal(t, engine.StatusFailed, byID["too-big"].Status)
	assert.Contains(t, byID["too-big"].Reason, "max_stake_per_bet")
	assert.Equal(t, engine.StatusSettled, byID["fits"].Status)
	assert.Equal(t, engine.StatusFailed, byID["over-total"].Status)
	assert.Contains(t, byID["over-total"].Reason, "max_total_stake")
	assert.Equal(t, 1, w.svc.NotificationCount())
}

func TestTokenExpiredMidRunLogsInAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	c := w.client(apiclient.WithCredentials("punter@example.com", "sim-password"))
	// Mid-run, at the read of the bet records, every token expires.
	w.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bet/", Kind: sim.ExpireTokens, Times: 1})
	res, err := engine.Run(context.Background(), p, w.options(c))
	require.NoError(t, err)
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, "bet %s: %s %s", b.ID, b.Reason, b.Error)
	}
	logins := 0
	for _, r := range w.svc.Requests() {
		if r.Path == "/account/login/" {
			logins++
		}
	}
	assert.Equal(t, 1, logins)
}

func TestNoWaitCreatesWhatIsReadyAndReturns(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	later := w.race("Galloping", 3)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: cron
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: now
    race: %s
    selection: "1"
    stake: 5
  - id: later
    race: %s
    selection: "1"
    stake: 5
    when: race.minutes_to_start <= 10
`, raceYAML(a), raceYAML(later)))
	opts := w.options(w.client())
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, engine.EndNoWait, res.EndReason)
	assert.Equal(t, 1, w.svc.NotificationCount())
	assert.False(t, res.Failed())
	st := map[string]engine.Status{}
	for _, b := range res.Bets {
		st[b.ID] = b.Status
	}
	assert.Equal(t, engine.StatusWaiting, st["later"])
	assert.Contains(t, []engine.Status{engine.StatusCreated, engine.StatusPlaced}, st["now"])
}

func TestForEachRaceExpands(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Greyhounds", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: dogs
defaults: {market: Fixed Win, type: Fixed Wager}
limits: {max_bets: 100, max_total_stake: 1000}
bets:
  - id: box1
    for_each_race: race.code == "Greyhounds" && race.venue == %q
    selection: "1"
    stake: 2
    when: race.minutes_to_start <= 5
`, a.Venue))
	// A run follows the races listed when it starts; later meetings are
	// the next run's.
	listed, err := w.client().ListRaces(context.Background())
	require.NoError(t, err)
	// The label covers the meeting date, not the start time (a delayed
	// race keeps its label), so a venue's second meeting on one day is
	// the same bet as its first: count race numbers.
	numbers := map[int]bool{}
	for _, r := range listed {
		if r.Venue() == a.Venue && r.Code == "Greyhounds" {
			numbers[int(r.EventNumber)] = true
		}
	}
	n := len(numbers)
	require.Greater(t, n, 1)
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	assert.Len(t, res.Bets, n)
	labels := map[string]bool{}
	for _, b := range res.Bets {
		assert.False(t, labels[b.Label], "labels differ per race")
		labels[b.Label] = true
	}
	assertOnePerLabel(t, w.svc, res)
}

func TestBotStoppedMidRunRefusesTheNextCreate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.race("Galloping", 0), w.race("Galloping", 2)
	require.True(t, b.Start.Sub(a.Start) > 10*time.Minute, "the second race starts later")
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: bot-stops
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: early
    race: %s
    selection: "1"
    stake: 5
    when: race.minutes_to_start <= 5
  - id: late
    race: %s
    selection: "1"
    stake: 5
    when: race.minutes_to_start <= 5
`, raceYAML(a), raceYAML(b)))
	opts := w.options(w.client())
	opts.RefreshEvery = 24 * time.Hour // only the guard's own check can see the bot stop
	stopped := false
	opts.Log = logFunc(func(line string) {
		if !stopped && strings.Contains(line, "created early") {
			stopped = true
			w.svc.SetBotRunning(4417, false) // the bot stops after the first create
		}
	})
	res, err := engine.Run(context.Background(), p, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Equal(t, 1, w.svc.NotificationCount(), "no create once the bot stopped")
	require.Len(t, res.Bets, 2)
	assert.Equal(t, engine.EndRefused, res.EndReason)
	early, late := res.Bets[0], res.Bets[1]
	assert.True(t, early.Final, "the bet created before the refusal is followed to the end: %s %s", early.Status, early.Reason)
	assert.NotZero(t, early.NotificationID)
	assert.Equal(t, engine.StatusFailed, late.Status)
	assert.Contains(t, late.Reason, "not created: no targeted session has a running bot")
}

// A bet on a named race is made once per meeting day: a re-run the same
// day follows today's bet (TestRerunNeverCreatesTwice), and a run the next
// day bets the next day's meeting of the race, as a plan run from cron
// expects, each once.
func TestNamedRaceBetsEachMeetingDay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	day1, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, 2, w.svc.NotificationCount())

	w.clock.Set(simStart.Add(24 * time.Hour))
	day2, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 4, w.svc.NotificationCount(), "one bet per race per meeting day")
	assertOnePerLabel(t, w.svc, day2)
	labels := map[string]bool{}
	for _, b := range day1.Bets {
		labels[b.Label] = true
	}
	fresh := 0
	for _, b := range day2.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, b.ID)
		if !labels[b.Label] {
			fresh++
			assert.Equal(t, simStart.Add(24*time.Hour).Format("2006-01-02"), b.Race.Start.Format("2006-01-02"), "bet %s is on the next day's meeting", b.ID)
		}
	}
	assert.Equal(t, 2, fresh, "the second day's run made its own two bets")
}

// losingStore is the local store whose lease is lost on demand; once lost,
// reading the stop mark fails as it does through a dead connection.
type losingStore struct {
	local.Store
	lease *losingLease
}

type losingLease struct {
	state.Lease
	lost chan struct{}
	once sync.Once
}

func (s *losingStore) Lock(ctx context.Context, req state.LockRequest) (state.Lease, error) {
	l, err := s.Store.Lock(ctx, req)
	if err != nil {
		return nil, err
	}
	s.lease = &losingLease{Lease: l, lost: make(chan struct{})}
	return s.lease, nil
}

func (l *losingLease) lose()                 { l.once.Do(func() { close(l.lost) }) }
func (l *losingLease) Lost() <-chan struct{} { return l.lost }
func (l *losingLease) Err() error {
	select {
	case <-l.lost:
		return &state.LockLostError{Reason: "the connection that holds it failed"}
	default:
		return nil
	}
}
func (l *losingLease) Stopped() (*state.StopMark, error) {
	if err := l.Err(); err != nil {
		return nil, err
	}
	return l.Lease.Stopped()
}

// A run that loses its lock after a create creates nothing more, but
// keeps following what it created to the end, then exits refused.
func TestLostLockKeepsFollowing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	store := &losingStore{Store: local.Store{Layout: opts.State}}
	opts.Store = store
	opts.Checkpoint = func(point string) {
		if point == "created" {
			store.lease.lose()
		}
	}
	res, err := engine.Run(context.Background(), p, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "exit 3: %v", err)
	assert.Equal(t, 1, w.svc.NotificationCount(), "nothing created after the lock was lost")
	var followed int
	for _, b := range res.Bets {
		if b.NotificationID != 0 {
			followed++
			assert.Equal(t, engine.StatusSettled, b.Status, "bet %s is followed to its end: %s", b.ID, b.Reason)
			assert.True(t, b.Final)
		}
	}
	assert.Equal(t, 1, followed)
}
