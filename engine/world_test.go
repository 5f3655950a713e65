package engine_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state/local"
)

var simStart = time.Date(2026, 11, 21, 11, 0, 0, 0, time.FixedZone("AEDT", 11*3600))

// world is a simulated service over loopback HTTP, a client to it and the
// options a test run starts from.
type world struct {
	t     testing.TB
	start time.Time
	svc   *sim.Service
	clock *sim.ManualClock
	srv   *httptest.Server
	dir   string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	return newWorldWith(t, sim.Options{})
}

// newWorldWith is newWorld with a simulated service configured by opts
// (seed and clock are the world's own).
func newWorldWith(t testing.TB, opts sim.Options) *world {
	t.Helper()
	return newWorldFrom(t, simStart, opts)
}

// newWorldAt is newWorld whose clock, and first meeting, start at start.
func newWorldAt(t testing.TB, start time.Time) *world {
	t.Helper()
	return newWorldFrom(t, start, sim.Options{})
}

func newWorldFrom(t testing.TB, start time.Time, opts sim.Options) *world {
	t.Helper()
	clock := sim.NewManualClock(start)
	opts.Seed, opts.Clock = 7, clock
	svc := sim.New(opts)
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return &world{t: t, start: start, svc: svc, clock: clock, srv: srv, dir: t.TempDir()}
}

func (w *world) client(opts ...apiclient.Option) *apiclient.Client {
	w.t.Helper()
	base := []apiclient.Option{
		apiclient.WithToken(w.svc.Token()),
		apiclient.WithRateLimit(0, 1),
		// Long enough for a loaded machine (fifty plans' runs in one
		// test beside the others): a test of timeouts sets a short one.
		apiclient.WithTimeout(10 * time.Second),
		apiclient.WithTokenCache(""),
		apiclient.WithNow(w.clock.Now),
	}
	c, err := apiclient.New(w.srv.URL, append(base, opts...)...)
	require.NoError(w.t, err)
	return c
}

// options are a run's options against the world through c, its journal
// and lock in local files below the world's temporary directory (the
// engine never picks a store: every test names one, here).
func (w *world) options(c *apiclient.Client) engine.Options {
	state := local.Layout{Dir: filepath.Join(w.dir, "state"), LockDir: filepath.Join(w.dir, "locks")}
	return engine.Options{
		Backend:        c,
		Clock:          w.clock,
		BaseURL:        w.srv.URL,
		PlanFile:       filepath.Join(w.dir, "plan.yaml"),
		State:          state,
		Store:          local.Store{Layout: state},
		AmbiguousGrace: 30 * time.Second,
		LookupInterval: 5 * time.Second,
		Simulated:      true,
	}
}

// moveState gives o another state dir, dir below the world's, and keeps
// its journal there too: a state dir lost, or another machine's. The
// lock stays where it was.
func (w *world) moveState(o *engine.Options, dir string) {
	o.State.Dir = filepath.Join(w.dir, dir)
	o.Store = local.Store{Layout: o.State}
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
	return w.twoBetPlanOn("test-card", extra, w.race("Galloping", 0), w.race("Greyhounds", 1))
}

// twoBetPlanOn is the plan named name betting $10 on a's first runner and
// $5 on b's second, each 10 minutes before its start; extra goes at the
// top level.
func (w *world) twoBetPlanOn(name, extra string, a, b sim.RaceInfo) *plan.Plan {
	return w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: %s
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
`, name, extra, raceYAML(a), a.Runners[0], raceYAML(b), b.Runners[1]))
}

// dogsPlan bets box 1 ($2) on the Meadows' greyhound races that races,
// an expression, names (for_each_race), and more after it.
func (w *world) dogsPlan(races, more string) *plan.Plan {
	return w.plan(`version: 1
poll: {interval: 30s, timeout: 12h}
name: dogs
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
limits: {max_bets: 10, max_total_stake: 100}
bets:
  - id: box1
    for_each_race: race.code == "Greyhounds" && race.venue == "The Meadows" && ` + races + `
    selection: "1"
    stake: 2
` + more)
}

// firstBetPlaced is twoBetPlan after a run created its first bet, 9
// minutes before its race a, and the bot placed it a minute later.
func (w *world) firstBetPlaced() (p *plan.Plan, a sim.RaceInfo) {
	w.t.Helper()
	p, a = w.twoBetPlan(""), w.race("Galloping", 0)
	opts := w.options(w.client())
	opts.NoWait = true
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(w.t, err)
	w.clock.Advance(time.Minute) // the bot places it
	return p, a
}

// callsByPath counts the calls the service saw by method and path, a
// notification's id and a label look-up's query each as one.
func (w *world) callsByPath() map[string]int {
	byPath := map[string]int{}
	for _, r := range w.svc.Requests() {
		path := r.Path
		if strings.HasPrefix(path, "/bet/notification/") {
			path = "/bet/notification/{id}/"
		}
		if r.Path == "/notification/" && strings.Contains(r.Query, "label=") {
			path += "?label="
		}
		byPath[r.Method+" "+path]++
	}
	return byPath
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

type logFunc func(string)

func (f logFunc) Write(b []byte) (int, error) { f(string(b)); return len(b), nil }
