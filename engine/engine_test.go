package engine_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

var simStart = time.Date(2026, 11, 21, 11, 0, 0, 0, time.FixedZone("AEDT", 11*3600))

// world is a simulated service over loopback HTTP, a client to it and the
// options a test run starts from.
type world struct {
	t     testing.TB
	svc   *sim.Service
	clock *sim.ManualClock
	srv   *httptest.Server
	dir   string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	clock := sim.NewManualClock(simStart)
	svc := sim.New(sim.Options{Seed: 7, Clock: clock})
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return &world{t: t, svc: svc, clock: clock, srv: srv, dir: t.TempDir()}
}

func (w *world) client(opts ...apiclient.Option) *apiclient.Client {
	w.t.Helper()
	base := []apiclient.Option{
		apiclient.WithToken(w.svc.Token()),
		apiclient.WithRateLimit(0, 1),
		apiclient.WithTimeout(2 * time.Second),
		apiclient.WithTokenCache(""),
		apiclient.WithNow(w.clock.Now),
	}
	c, err := apiclient.New(w.srv.URL, append(base, opts...)...)
	require.NoError(w.t, err)
	return c
}

func (w *world) options(c *apiclient.Client) engine.Options {
	return engine.Options{
		Service:        c,
		Clock:          w.clock,
		BaseURL:        w.srv.URL,
		PlanFile:       filepath.Join(w.dir, "plan.yaml"),
		StateDir:       filepath.Join(w.dir, "state"),
		LockDir:        filepath.Join(w.dir, "locks"),
		AmbiguousGrace: 30 * time.Second,
		LookupInterval: 5 * time.Second,
		Simulated:      true,
	}
}

// race returns the n-th upcoming race of the given code.
func (w *world) race(code string, n int) sim.RaceInfo {
	w.t.Helper()
	var got []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if r.Code == code && r.Start.After(w.clock.Now().Add(10*time.Minute)) {
			got = append(got, r)
		}
	}
	require.Greater(w.t, len(got), n, "the simulated world has too few %s races", code)
	return got[n]
}

func (w *world) plan(yaml string) *plan.Plan {
	w.t.Helper()
	path := filepath.Join(w.dir, "plan.yaml")
	require.NoError(w.t, os.WriteFile(path, []byte(yaml), 0o644))
	p, diags := plan.Load(path)
	require.False(w.t, diags.HasErrors(), "plan invalid: %v\n%s", diags, yaml)
	return p
}

func raceYAML(r sim.RaceInfo) string {
	return fmt.Sprintf("{venue: %q, code: %s, event_number: %d}", r.Venue, r.Code, r.EventNumber)
}

// twoBetPlan bets on two races, each 10 minutes before the start.
func (w *world) twoBetPlan(extra string) *plan.Plan {
	a, b := w.race("Galloping", 0), w.race("Greyhounds", 1)
	return w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: test-card
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
%s
bets:
  - id: first
    race: %s
    selection: %q
    stake: 10
    when: race.minutes_to_start <= 10
  - id: second
    race: %s
    selection: %q
    stake: 5
    when: race.minutes_to_start <= 10
`, extra, raceYAML(a), a.Runners[0], raceYAML(b), b.Runners[1]))
}

func assertOnePerLabel(t *testing.T, svc *sim.Service, res *engine.Result) {
	t.Helper()
	for _, b := range res.Bets {
		if b.Label == "" {
			continue
		}
		assert.LessOrEqual(t, svc.NotificationsWithLabel(b.Label), 1, "bet %s label %s created more than once", b.ID, b.Label)
		if b.NotificationID != 0 {
			assert.Equal(t, 1, svc.NotificationsWithLabel(b.Label), "bet %s: label %s", b.ID, b.Label)
		}
	}
}

func TestRunSettlesEveryBet(t *testing.T) {
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
	assert.Equal(t, "completed", res.EndReason)
	assert.False(t, res.Failed())
	assertOnePerLabel(t, w.svc, res)
	assert.Equal(t, 2, w.svc.NotificationCount())
}

func TestRerunNeverCreatesTwice(t *testing.T) {
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	// Again with the journal, and again with the state dir lost.
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	opts.StateDir = filepath.Join(w.dir, "lost")
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount())
	assertOnePerLabel(t, w.svc, res)
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, b.ID)
	}
}

func TestCreateFaultMatrix(t *testing.T) {
	tests := []struct {
		name  string
		fault sim.Fault
	}{
		{"commit then 500", sim.Fault{Kind: sim.CommitThenStatus, Status: 500}},
		{"commit then 502", sim.Fault{Kind: sim.CommitThenStatus, Status: 502}},
		{"commit then timeout", sim.Fault{Kind: sim.CommitThenTimeout, Latency: 5 * time.Second}},
		{"commit then connection drop", sim.Fault{Kind: sim.CommitThenDrop}},
		{"500 before commit", sim.Fault{Kind: sim.StatusFault, Status: 500}},
		{"connection drop before commit", sim.Fault{Kind: sim.Drop}},
		{"429", sim.Fault{Kind: sim.RateLimit, RetryAfter: time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.twoBetPlan("")
			f := tt.fault
			f.Method, f.Path, f.Times = "POST", "/notification/create/", 1
			w.svc.InjectFault(f)
			c := w.client(apiclient.WithTimeout(300 * time.Millisecond))
			res, err := engine.Run(context.Background(), p, w.options(c))
			require.NoError(t, err)
			assert.Equal(t, 2, w.svc.NotificationCount(), "exactly one notification per label")
			assertOnePerLabel(t, w.svc, res)
			for _, b := range res.Bets {
				assert.Equal(t, engine.StatusSettled, b.Status, "bet %s: %s %s", b.ID, b.Reason, b.Error)
			}
			creates := 0
			for _, r := range w.svc.Requests() {
				if r.Method == "POST" && r.Path == "/notification/create/" {
					creates++
				}
			}
			if strings.HasPrefix(tt.name, "commit") {
				assert.Equal(t, 2, creates, "a create that landed is never sent again")
			} else {
				assert.Equal(t, 3, creates, "a create that did not land is sent once more")
			}
		})
	}
}

func TestPendingJournalEntryIsLookedUpFirst(t *testing.T) {
	w := newWorld(t)
	p := w.twoBetPlan("")
	// A crash between the POST and the journal write: the create landed,
	// the journal says only `creating`.
	w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenStatus, Status: 500, Times: 1})
	ctx, cancel := context.WithCancel(context.Background())
	opts := w.options(w.client())
	opts.AmbiguousGrace = time.Hour // the first run is cancelled inside its grace window
	opts.LookupInterval = time.Hour
	opts.Log = cancelOnWrite{cancel, "looking the label up"}
	_, err := engine.Run(ctx, p, opts)
	require.ErrorIs(t, err, context.Canceled)

	opts = w.options(w.client())
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount())
	assertOnePerLabel(t, w.svc, res)
}

// cancelOnWrite cancels a context when a log line contains a phrase.
type cancelOnWrite struct {
	cancel context.CancelFunc
	phrase string
}

func (c cancelOnWrite) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.phrase) {
		c.cancel()
	}
	return len(b), nil
}

func TestConcurrentRunsCreateOnce(t *testing.T) {
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
			opts.StateDir = filepath.Join(w.dir, fmt.Sprintf("state-%d", i)) // different state dirs, one lock
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
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	lock, err := engine.AcquireLock(context.Background(), engine.LockPath(opts.LockDir, p.Name, opts.BaseURL), engine.LockOwner{PID: 4242, Host: "elsewhere", Command: "betplan run"}, 0)
	require.NoError(t, err)
	defer lock.Release()
	opts.LockTimeout = 200 * time.Millisecond
	res, err := engine.Run(context.Background(), p, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err))
	assert.Contains(t, err.Error(), "pid 4242 on elsewhere")
	assert.Equal(t, "refused", res.EndReason)
	assert.Zero(t, w.svc.NotificationCount())
	require.Len(t, res.Bets, 2, "the report lists the plan's bets even when the run never began")
	assert.Contains(t, res.Bets[0].Reason, "another run of this plan holds the lock")
}

func TestNoRunningBotRefuses(t *testing.T) {
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
	assert.Equal(t, "refused", res.EndReason)
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

func TestUnresolvedRace(t *testing.T) {
	w := newWorld(t)
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: unresolved
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: nowhere
    race: {venue: %q, code: Galloping, event_number: 99}
    selection: "1"
    stake: 5
`, a.Venue))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	assert.Equal(t, engine.StatusUnresolved, res.Bets[0].Status)
	assert.Contains(t, res.Bets[0].Reason, "upcoming at "+a.Venue)
	assert.True(t, res.Failed())
	assert.Zero(t, w.svc.NotificationCount())
}

func TestConditionNeverTrueIsSkipped(t *testing.T) {
	w := newWorld(t)
	a := w.race("Harness", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: never
defaults: {market: Fixed Win, type: Fixed Wager}
vars: {min_runners: 40}
bets:
  - id: big-field
    race: %s
    selection: "1"
    stake: 5
    when: len(race.runners) >= vars.min_runners
`, raceYAML(a)))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	b := res.Bets[0]
	assert.Equal(t, engine.StatusSkipped, b.Status)
	assert.Contains(t, b.Reason, "race started before")
	assert.Contains(t, b.Reason, "vars.min_runners")
	assert.False(t, res.Failed(), "a bet skipped by its own condition is not a failure")
	assert.Zero(t, w.svc.NotificationCount())
}

func TestLimitAtRunTimeRefuses(t *testing.T) {
	w := newWorld(t)
	a, b := w.race("Galloping", 0), w.race("Galloping", 1)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: limited
vars: {unit: 30}
limits: {max_stake_per_bet: 20, max_total_stake: 25}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: too-big
    race: %s
    selection: "1"
    stake: vars.unit * 1
  - id: fits
    race: %s
    selection: "1"
    stake: 20
  - id: over-total
    race: %s
    selection: "2"
    stake: 10
`, raceYAML(a), raceYAML(b), raceYAML(b)))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	assert.Equal(t, "refused", res.EndReason)
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
	w := newWorld(t)
	p := w.twoBetPlan("")
	c := w.client(apiclient.WithCredentials("punter@example.com", "sim-password"))
	// After the first create, every token expires.
	w.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bet/notification/*", Kind: sim.ExpireTokens, Times: 1})
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
	assert.Equal(t, "no-wait", res.EndReason)
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

func TestStatusWithoutJournalFindsBetsByLabel(t *testing.T) {
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	ran, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	opts.StateDir = filepath.Join(w.dir, "gone")
	res, err := engine.Outcomes(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 2)
	for i, b := range res.Bets {
		assert.Equal(t, ran.Bets[i].NotificationID, b.NotificationID)
		assert.Equal(t, engine.StatusSettled, b.Status)
		assert.InDelta(t, ran.Bets[i].Profit, b.Profit, 0.001)
	}
}

func TestCancel(t *testing.T) {
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
	res, err := engine.Cancel(context.Background(), p, []string{"first"}, w.options(w.client()))
	require.NoError(t, err)
	for _, b := range res.Bets {
		if b.ID == "first" {
			assert.Equal(t, engine.StatusCanceled, b.Status, b.Reason)
		}
	}
	_, err = engine.Cancel(context.Background(), p, []string{"nosuch"}, w.options(w.client()))
	assert.ErrorContains(t, err, `no bet "nosuch"`)
}

func TestPreviewAndSavedPlan(t *testing.T) {
	w := newWorld(t)
	p := w.twoBetPlan("")
	a := w.race("Galloping", 0)
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	opts := w.options(w.client())
	res, saved, err := engine.Preview(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Zero(t, w.svc.NotificationCount(), "plan creates nothing")
	acts := map[string]engine.Action{}
	for _, b := range res.Bets {
		acts[b.ID] = b.Action
	}
	assert.Equal(t, engine.ActionCreate, acts["first"])
	assert.Equal(t, engine.ActionWait, acts["second"])
	require.Len(t, saved.Creates, 1)
	assert.InDelta(t, 10, res.Limits.Planned, 0.001)

	// Applying the saved plan creates exactly its creates.
	opts.NoWait = true
	_, err = engine.ApplySaved(context.Background(), p, saved, opts)
	require.NoError(t, err)
	assert.Equal(t, 1, w.svc.NotificationCount())

	// The journal moved on: the same saved plan is refused.
	_, err = engine.ApplySaved(context.Background(), p, saved, opts)
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err))
	assert.Contains(t, err.Error(), "journal moved on")
}

func TestLabelIsDeterministicAndBounded(t *testing.T) {
	start := time.Date(2026, 11, 21, 14, 5, 0, 0, time.FixedZone("", 11*3600))
	r := engine.RaceInfo{Venue: "Flemington", Code: "Galloping", EventNumber: 4, Start: start}
	l1 := engine.Label("saturday-flemington", "flem4-no3", r)
	assert.Equal(t, l1, engine.Label("saturday-flemington", "flem4-no3", r))
	r2 := r
	r2.Venue = "FLEMINGTON "
	assert.Equal(t, l1, engine.Label("saturday-flemington", "flem4-no3", r2), "venue spelling does not change the label")
	r3 := r
	r3.EventNumber = 5
	assert.NotEqual(t, l1, engine.Label("saturday-flemington", "flem4-no3", r3))
	long := engine.Label(strings.Repeat("a", 60), strings.Repeat("b", 80), r)
	assert.LessOrEqual(t, len(long), 64)
	assert.NotEqual(t, long, engine.Label(strings.Repeat("a", 60), strings.Repeat("b", 79)+"c", r))
	assert.True(t, strings.HasPrefix(l1, engine.LabelPrefix("saturday-flemington")))
}

func TestCheckOnline(t *testing.T) {
	w := newWorld(t)
	a := w.race("Galloping", 0)
	w.svc.SetBotRunning(4418, false)
	p := w.plan(fmt.Sprintf(`version: 1
name: online
defaults: {market: Fixed Win, type: Fixed Wager}
limits: {max_stake_per_bet: 10, max_total_stake: 50, max_bets: 5}
bets:
  - id: fine
    race: %[1]s
    selection: %[2]q
    stake: 5
  - id: no-such-runner
    race: %[1]s
    selection: "31"
    stake: 5
  - id: no-such-race
    race: {venue: %[3]q, code: Galloping, event_number: 77}
    selection: "1"
    stake: 5
  - id: stranger
    race: %[1]s
    selection: %[2]q
    stake: 5
    target_session: "999"
  - id: sleeping
    race: %[1]s
    selection: %[2]q
    stake: 5
    target_session: "4418"
`, raceYAML(a), a.Runners[0], a.Venue))
	before := len(w.svc.Requests())
	diags, err := engine.CheckOnline(context.Background(), p, w.client(), w.clock)
	require.NoError(t, err)
	assert.Equal(t, 2, len(w.svc.Requests())-before, "one races call, one sessions call")
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%s line %d: %s", d.Severity, d.Line, d.Summary))
	}
	text := strings.Join(got, "\n")
	assert.Contains(t, text, "bet no-such-runner: runner 31 is not in "+a.Venue)
	assert.Contains(t, text, "bet no-such-race: no upcoming race "+a.Venue+" Galloping R77; upcoming at "+a.Venue)
	assert.Contains(t, text, "error line 18: bet stranger: target_session 999 is not one of the account's sessions")
	assert.Contains(t, text, "warning line 23: bet sleeping: session 4418 has no running bot")
	assert.NotContains(t, text, "bet fine")
	assert.Len(t, diags, 4, text)
	assert.Zero(t, w.svc.NotificationCount())
}

func TestBotStoppedMidRunRefusesTheNextCreate(t *testing.T) {
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
	assert.Equal(t, "refused", res.EndReason)
	early, late := res.Bets[0], res.Bets[1]
	assert.True(t, early.Final, "the bet created before the refusal is followed to the end: %s %s", early.Status, early.Reason)
	assert.NotZero(t, early.NotificationID)
	assert.Equal(t, engine.StatusFailed, late.Status)
	assert.Contains(t, late.Reason, "not created: no targeted session has a running bot")
}

type logFunc func(string)

func (f logFunc) Write(b []byte) (int, error) { f(string(b)); return len(b), nil }

// okCreates answers every create with a bare 200 "OK" (one client version
// saw that body), after passing it to the service when store is set.
type okCreates struct {
	svc     http.Handler
	store   bool
	creates *atomic.Int64 // creates seen, stored or not
}

func (h okCreates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/notification/create/" {
		h.svc.ServeHTTP(w, r)
		return
	}
	h.creates.Add(1)
	if h.store {
		h.svc.ServeHTTP(httptest.NewRecorder(), r)
	}
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "OK")
}

func TestCreateAnsweredWithoutAnID(t *testing.T) {
	for _, store := range []bool{true, false} {
		t.Run(fmt.Sprintf("stored=%v", store), func(t *testing.T) {
			w := newWorld(t)
			creates := &atomic.Int64{}
			w.srv.Config.Handler = okCreates{svc: w.svc, store: store, creates: creates}
			p := w.twoBetPlan("")
			opts := w.options(w.client())
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			for _, b := range res.Bets {
				if store {
					assert.Equal(t, engine.StatusSettled, b.Status, "found by its label: %s", b.Reason)
					assert.NotZero(t, b.NotificationID)
				} else {
					assert.Equal(t, engine.StatusFailed, b.Status)
					assert.Contains(t, b.Error, "not created again")
				}
			}
			want := 0
			if store {
				want = 2
			}
			assert.Equal(t, want, w.svc.NotificationCount())
			assert.Equal(t, int64(2), creates.Load(), "one create per bet")
			// The service said yes: a re-run never sends those creates again.
			_, err = engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			assert.Equal(t, int64(2), creates.Load(), "no create is sent again")
		})
	}
}
