package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// TestAccountLimitsHoldAcrossConcurrentPlans: four plans sharing a state
// dir start together, each with one $10 bet its own limits allow; the
// account allows $25 a day. Whatever the interleaving, exactly two bets
// are created and the others are refused by the account's limit: reading
// the other plans' journals and announcing a create happen under the
// account's lock.
func TestAccountLimitsHoldAcrossConcurrentPlans(t *testing.T) {
	t.Parallel()
	forEachStore(t, testAccountLimitsHoldAcrossConcurrentPlans)
}

// forEachStore runs test with the local files (every plan in one state
// dir) and with a PostgreSQL state shared by plans whose local state dirs
// differ, as on machines of their own. store(opts) is the store a plan's
// run takes, i its machine.
func forEachStore(t *testing.T, test func(t *testing.T, store func(opts *engine.Options, i int))) {
	t.Run("local", func(t *testing.T) {
		test(t, func(*engine.Options, int) {})
	})
	t.Run("postgres", func(t *testing.T) {
		url, _ := pgtest.Schema(t)
		cfg, err := postgres.ParseURL(url, "", false)
		require.NoError(t, err)
		shared := postgres.New(cfg)
		test(t, func(opts *engine.Options, i int) {
			opts.State.Dir = filepath.Join(opts.State.Dir, fmt.Sprintf("machine-%d", i))
			opts.State.LockDir = filepath.Join(opts.State.LockDir, fmt.Sprintf("machine-%d", i))
			opts.Store = shared
		})
	})
}

func testAccountLimitsHoldAcrossConcurrentPlans(t *testing.T, store func(opts *engine.Options, i int)) {
	account, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {period: day, max_total_stake: 25}\n"))
	require.False(t, diags.HasErrors(), "%v", diags)
	for round := range 5 {
		w := newWorld(t)
		r := w.race("Greyhounds", 0)
		results := make([]*engine.Result, 4)
		var wg sync.WaitGroup
		for i := range results {
			p, diags := plan.Parse(fmt.Sprintf("card-%d.yaml", i), []byte(fmt.Sprintf(`version: 1
name: card-%d
limits: {period: day, max_stake_per_bet: 10, max_total_stake: 20, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: box
    race: %s
    selection: %q
    stake: 10
    when: race.minutes_to_start > 0 # not certain: each create is checked on its own
`, i, raceYAML(r), r.Runners[0])))
			require.False(t, diags.HasErrors(), "%v", diags)
			opts := w.options(w.client())
			opts.PlanFile = p.Filename
			opts.Account = account
			opts.NoWait = true
			store(&opts, i)
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _ = engine.Run(context.Background(), p, opts)
			}()
		}
		wg.Wait()
		created, refused := 0, 0
		for _, res := range results {
			require.NotNil(t, res)
			for _, b := range res.Bets {
				switch {
				case b.NotificationID != 0:
					created++
				case strings.Contains(b.Reason, "account max_total_stake $25.00 in day "):
					refused++
				default:
					t.Errorf("round %d: %s %s: %s (%s)", round, res.PlanName, b.ID, b.Status, b.Reason)
				}
			}
		}
		assert.Equal(t, 2, created, "round %d: bets created under the account's $25", round)
		assert.Equal(t, 2, refused, "round %d: bets refused by the account", round)
	}
}

// TestAccountStopLossCountsAnotherPlansLosses: one plan's bet loses $10;
// later another plan, from cron, would bet. The account's stop_loss of $5
// stops it: the other plan's outcome is read from the service before the
// limit is applied, not taken as open from its journal.
func TestAccountStopLossCountsAnotherPlansLosses(t *testing.T) {
	t.Parallel()
	forEachStore(t, testAccountStopLossCountsAnotherPlansLosses)
}

func testAccountStopLossCountsAnotherPlansLosses(t *testing.T, store func(opts *engine.Options, i int)) {
	account, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {period: day, stop_loss: 5}\n"))
	require.False(t, diags.HasErrors(), "%v", diags)
	w := newWorld(t)
	a, b := w.raceAt("Flemington", 2), w.raceAt("Flemington", 4)
	order := w.finishingOrder(a)
	card := func(name string, r sim.RaceInfo, sel string) *plan.Plan {
		p, diags := plan.Parse(name+".yaml", []byte(fmt.Sprintf(`version: 1
name: %s
limits: {period: day, max_stake_per_bet: 10, max_total_stake: 20, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: box, race: %s, selection: %q, stake: 10, when: "race.minutes_to_start <= 10"}
`, name, raceYAML(r), sel)))
		require.False(t, diags.HasErrors(), "%v", diags)
		return p
	}
	machine := 0
	run := func(p *plan.Plan, at time.Time) *engine.Result {
		w.clock.Set(at)
		opts := w.options(w.client())
		opts.PlanFile, opts.Account, opts.NoWait = p.Filename, account, true
		machine++
		store(&opts, machine)
		res, err := engine.Run(context.Background(), p, opts)
		require.NoError(t, err)
		return res
	}
	loser := run(card("loser", a, order[len(order)-1]), a.Start.Add(-9*time.Minute))
	require.NotZero(t, loser.Bets[0].NotificationID, "the first plan's bet is created: %s", loser.Bets[0].Reason)

	later := run(card("later", b, b.Runners[0]), b.Start.Add(-9*time.Minute))
	bet := later.Bets[0]
	assert.Zero(t, bet.NotificationID, "the account's stop-loss must stop the second plan")
	assert.Contains(t, bet.Reason, "account stop_loss $5.00: the settled profit in day "+a.Start.Format("2006-01-02")+" reached -$10.00")
	require.NotNil(t, later.Account)
	assert.Equal(t, -10.0, later.Account.Periods[0].Profit, "the report counts the other plan's loss")
}

// TestRunGroupHoldsCertainBetsTogether: three plans of one run share an
// account allowing $25 a day, each with one certain $10 bet. Each alone
// fits, together they do not: every plan is refused before any create,
// the plans and bets named. A fourth plan of the group whose lock another
// run holds never starts, and holds no one back.
func TestRunGroupHoldsCertainBetsTogether(t *testing.T) {
	t.Parallel()
	account, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {period: day, max_total_stake: 25}\n"))
	require.False(t, diags.HasErrors(), "%v", diags)
	w := newWorld(t)
	r := w.race("Greyhounds", 0)
	names := []string{"card-0", "card-1", "card-2", "locked"}
	group := engine.NewRunGroup(names)
	blocker := w.options(w.client())
	held, err := blocker.State.WithDefaults("").LockPath("locked", blocker.BaseURL), error(nil)
	require.NoError(t, err)
	lock, err := local.AcquireLock(context.Background(), held, state.LockOwner{PID: 1, Host: "elsewhere"}, 0)
	require.NoError(t, err)
	defer lock.Release()

	results := make([]*engine.Result, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		p, diags := plan.Parse(name+".yaml", []byte(fmt.Sprintf(`version: 1
name: %s
limits: {period: day, max_stake_per_bet: 10, max_total_stake: 20, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: box, race: %s, selection: %q, stake: 10}
`, name, raceYAML(r), r.Runners[0])))
		require.False(t, diags.HasErrors(), "%v", diags)
		opts := w.options(w.client())
		opts.PlanFile, opts.Account, opts.NoWait, opts.RunGroup = p.Filename, account, true, group
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = engine.Run(context.Background(), p, opts)
		}()
	}
	wg.Wait()
	for i := range names {
		if results[i] != nil && len(results[i].Bets) > 0 {
			t.Logf("%s: %v; %s %s", names[i], errs[i], results[i].Bets[0].Status, results[i].Bets[0].Reason)
		}
	}
	var locked *state.LockedError
	require.ErrorAs(t, errs[3], &locked, "the fourth plan's lock is held")
	for i := range 3 {
		var refused *engine.RefusedError
		require.ErrorAs(t, errs[i], &refused, "%s", names[i])
		assert.Contains(t, refused.Reason, "the bets certain to be created by the plans of this run (card-0: box; card-1: box; card-2: box; each a named race, no when, a static amount) break an account limit together")
		assert.Contains(t, refused.Reason, "account max_total_stake $25.00 in day ")
		assert.Contains(t, results[i].Bets[0].Reason, "not created: the run refused before any create")
	}
	assert.Zero(t, w.svc.NotificationCount(), "nothing created")
}
