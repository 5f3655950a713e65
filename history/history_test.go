package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	betpkg "github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

var simStart = time.Date(2026, 11, 21, 11, 0, 0, 0, time.FixedZone("AEDT", 11*3600))

// card is a simulated service and the runs a test made against it, each
// plan's journal in one store.
type card struct {
	t     *testing.T
	svc   *sim.Service
	clock *sim.ManualClock
	srv   *httptest.Server
	dir   string
	store state.Store
	// profit is the sum of the service's profits of every bet the runs
	// made, in cents, read from the service's notifications.
	bets []engine.BetResult
}

func newCard(t *testing.T, store func(dir string) state.Store) *card {
	clock := sim.NewManualClock(simStart)
	svc := sim.New(sim.Options{Seed: 7, Clock: clock})
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	return &card{t: t, svc: svc, clock: clock, srv: srv, dir: dir, store: store(dir)}
}

func localStore(dir string) state.Store {
	return local.Store{Layout: local.Layout{Dir: filepath.Join(dir, "state"), LockDir: filepath.Join(dir, "locks")}}
}

func (c *card) client() *apiclient.Client {
	cl, err := apiclient.New(c.srv.URL, apiclient.WithToken(c.svc.Token()), apiclient.WithRateLimit(0, 1),
		apiclient.WithTimeout(2*time.Second), apiclient.WithTokenCache(""), apiclient.WithNow(c.clock.Now))
	require.NoError(c.t, err)
	return cl
}

// race is the n-th race of code still to come.
func (c *card) race(code string, n int) sim.RaceInfo {
	var got []sim.RaceInfo
	for _, r := range c.svc.Races() {
		if r.Code == code && r.Start.After(c.clock.Now().Add(10*time.Minute)) {
			got = append(got, r)
		}
	}
	require.Greater(c.t, len(got), n)
	return got[n]
}

// run runs the plan whose bets are given (YAML list items) to the end.
func (c *card) run(name, bets string) *engine.Result { return c.runWith(name, bets, false) }

// runWith is run, returning once what is ready was created when noWait.
func (c *card) runWith(name, bets string, noWait bool) *engine.Result {
	path := filepath.Join(c.dir, name+".yaml")
	src := fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: %s
limits: {max_stake_per_bet: 50, max_total_stake: 500, max_bets: 20}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
%s`, name, bets)
	require.NoError(c.t, os.WriteFile(path, []byte(src), 0o644))
	p, diags := plan.Load(path)
	require.False(c.t, diags.HasErrors(), "%v\n%s", diags, src)
	var st local.Layout
	if l, ok := c.store.(local.Store); ok {
		st = l.Layout
	}
	res, err := engine.Run(context.Background(), p, engine.Options{
		Backend: c.client(), Clock: c.clock, BaseURL: c.srv.URL, PlanFile: path, State: st, Store: c.store,
		AmbiguousGrace: 30 * time.Second, LookupInterval: 5 * time.Second, Simulated: true, NoWait: noWait,
	})
	if err != nil && res != nil {
		for _, b := range res.Bets {
			c.t.Logf("%s %s %s %s", b.ID, b.Race.Start, b.Status, b.Reason)
		}
	}
	require.NoError(c.t, err)
	if !noWait {
	next:
		for _, b := range res.Bets {
			for i := range c.bets {
				if c.bets[i].Label == b.Label {
					c.bets[i] = b // a later run of the plan reports its earlier bets too
					continue next
				}
			}
			c.bets = append(c.bets, b)
		}
	}
	return res
}

func bet(id string, r sim.RaceInfo, runner int, extra string) string {
	return fmt.Sprintf("  - {id: %s, race: {venue: %q, code: %s, event_number: %d}, selection: %q, when: race.minutes_to_start <= 10, %s}\n",
		id, r.Venue, r.Code, r.EventNumber, r.Runners[runner], extra)
}

// play runs three plans over two meeting days: two sessions on one bet,
// a Fixed Profit bet, a refusal (a stake under the bookmaker's minimum), a
// void (its runner scratched).
func (c *card) play() {
	a, b := c.race("Galloping", 0), c.race("Greyhounds", 1)
	c.run("alpha", bet("both", a, 0, "stake: 10")+ // no target: both running sessions place it
		bet("profit", b, 1, "type: Fixed Profit, target_profit: 8, target_session: \"4417\"")+
		bet("tiny", b, 2, "stake: 0.5, target_session: \"4417\""))
	v, o := c.race("Galloping", 0), c.race("Greyhounds", 0)
	beta := bet("scratched", v, 0, "stake: 4, target_session: \"4418\"") + bet("other", o, 1, "stake: 6, target_session: \"4418\"")
	c.clock.Set(v.Start.Add(-9 * time.Minute))
	c.runWith("beta", beta, true)
	c.clock.Advance(time.Minute) // the bot places it
	require.True(c.t, c.svc.Scratch(v, v.Runners[0]))
	c.run("beta", beta)
	c.clock.Set(simStart.Add(24 * time.Hour))
	d := c.race("Galloping", 0)
	c.run("alpha", bet("both", d, 0, "stake: 10")+bet("profit", c.race("Greyhounds", 0), 1, "type: Fixed Profit, target_profit: 8, target_session: \"4417\""))
	c.run("gamma", bet("g1", c.race("Galloping", 0), 1, "stake: 3, target_session: \"4417\"")+bet("g2", c.race("Harness", 0), 0, "stake: 7, target_session: \"4418\""))
}

// serviceProfit sums the service's own profits of the card's bets.
func (c *card) serviceProfit(plans ...string) int64 {
	var sum int64
	cl := c.client()
	for _, b := range c.bets {
		if b.NotificationID == 0 {
			continue
		}
		ns, err := cl.NotificationsByLabel(context.Background(), b.Label)
		require.NoError(c.t, err)
		require.Len(c.t, ns, 1)
		sum += ns[0].Profit.Cents()
	}
	return sum
}

func cents(t *testing.T, dollars float64) int64 {
	t.Helper()
	c, err := betpkg.Cents(dollars)
	require.NoError(t, err)
	return c
}

func summarise(t *testing.T, store state.Store, q history.Query) history.Summary {
	t.Helper()
	bets, skipped, err := history.ReadBets(context.Background(), store.(state.EveryReader))
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.NoError(t, q.Validate())
	return history.Summarise(bets, q)
}

// Every total is the sum of the service's profits to the cent, whatever
// the grouping; the rows of a grouping add up to the total.
// From PostgreSQL, history reads outcomes from the columns the schema
// keeps beside the journal, not the entries: the same sums.
func TestHistoryTotalsAreTheServicesProfits(t *testing.T) {
	for _, st := range []string{"local", "postgres"} {
		t.Run(st, func(t *testing.T) {
			store := localStore
			if st == "postgres" {
				stateURL, _ := pgtest.Schema(t)
				cfg, err := postgres.ParseURL(stateURL, "", false)
				require.NoError(t, err)
				store = func(string) state.Store { return postgres.New(cfg) }
			}
			c := newCard(t, store)
			c.play()
			checkTotals(t, c)
		})
	}
}

func checkTotals(t *testing.T, c *card) {
	want := c.serviceProfit()
	require.NotZero(t, want)
	var won, lost, void, refused int
	for _, b := range c.bets {
		switch {
		case b.Status != engine.StatusSettled:
			refused++
		case b.Profit > 0:
			won++
		case b.Profit < 0:
			lost++
		default:
			void++
		}
	}
	two := false
	for _, b := range c.bets {
		two = two || len(b.Records) == 2 && b.Records[0].Amount > 0 && b.Records[1].Amount > 0
	}
	require.True(t, two, "a bet two sessions placed")
	require.GreaterOrEqual(t, void, 1, "the scratched runner's bet")
	require.GreaterOrEqual(t, refused, 1, "the stake under the minimum")
	for _, by := range [][]string{{"plan"}, {"day"}, {"week"}, {"month"}, {"venue"}, {"code"}, {"market"}, {"type"}, {"plan", "day"}} {
		s := summarise(t, c.store, history.Query{By: by, Sim: true})
		assert.Equal(t, want, s.Total.Profit, "by %v", by)
		var rows int64
		bets := 0
		for _, r := range s.Rows {
			rows += r.Profit
			bets += r.Bets
		}
		assert.Equal(t, want, rows, "by %v: the rows' sum", by)
		assert.Equal(t, len(c.bets), bets, "by %v", by)
		assert.Equal(t, []int{won, lost, void, refused}, []int{s.Total.Won, s.Total.Lost, s.Total.Void, s.Total.Refused}, "by %v", by)
		assert.Equal(t, s.Total.Won+s.Total.Lost+s.Total.Void, s.Total.Settled)
	}
	s := summarise(t, c.store, history.Query{By: []string{"plan"}, Sim: true})
	require.Len(t, s.Rows, 3)
	assert.Equal(t, []string{"alpha", "beta", "gamma"}, []string{s.Rows[0].Keys["plan"], s.Rows[1].Keys["plan"], s.Rows[2].Keys["plan"]})
	days := summarise(t, c.store, history.Query{By: []string{"day"}, Sim: true})
	require.Len(t, days.Rows, 2, "two meeting days")
	assert.Less(t, days.Rows[0].Keys["day"], days.Rows[1].Keys["day"])
	one := summarise(t, c.store, history.Query{By: []string{"day"}, Sim: true, Since: days.Rows[1].Keys["day"], Until: days.Rows[1].Keys["day"]})
	require.Len(t, one.Rows, 1)
	assert.Equal(t, days.Rows[1].Profit, one.Total.Profit)

	// By session, each bet splits by its records: the sessions' own sums.
	var sessions int64
	sessionBets := 0
	for _, b := range c.bets {
		for _, r := range b.Records {
			sessions += cents(t, r.Profit)
			sessionBets++
		}
	}
	ss := summarise(t, c.store, history.Query{By: []string{"session"}, Sim: true})
	assert.Equal(t, sessions, ss.Total.Profit)
	assert.GreaterOrEqual(t, len(ss.Rows), 2, "two sessions placed bets")

	types := summarise(t, c.store, history.Query{By: []string{"type"}, Sim: true})
	var fixedProfit bool
	for _, r := range types.Rows {
		fixedProfit = fixedProfit || r.Keys["type"] == "Fixed Profit" && r.Settled >= 1
	}
	assert.True(t, fixedProfit, "the Fixed Profit bets are a row: %+v", types.Rows)

	// Rehearsals are left out unless asked for.
	none := summarise(t, c.store, history.Query{})
	assert.Zero(t, none.Total.Bets)

	var out bytes.Buffer
	require.NoError(t, history.WriteJSON(&out, &s))
	var doc struct {
		Total struct {
			Profit float64 `json:"profit"`
		} `json:"total"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	assert.Equal(t, want, cents(t, doc.Total.Profit))
}
