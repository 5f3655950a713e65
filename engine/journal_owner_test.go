package engine_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// ownerPlan is a plan with one certain $10 bet on r.
func ownerPlan(t *testing.T, name string, r sim.RaceInfo) *plan.Plan {
	t.Helper()
	p, diags := plan.Parse(name+".yaml", []byte(fmt.Sprintf(`version: 1
name: %s
limits: {period: day, max_stake_per_bet: 10, max_total_stake: 20, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: box
    race: %s
    selection: %q
    stake: 10
`, name, raceYAML(r), r.Runners[0])))
	require.False(t, diags.HasErrors(), "%v", diags)
	return p
}

// TestJournalOfAnotherAccountIsRefused: a plan's journal belongs to the
// account on the service its token names. A run as another account is
// refused before any create (its bets are not that account's to adopt);
// a token that names no account is not held to it.
func TestJournalOfAnotherAccountIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := ownerPlan(t, "card", w.race("Greyhounds", 0))
	run := func(account string) (*engine.Result, error) {
		opts := w.options(w.client())
		opts.PlanFile = p.Filename
		opts.NoWait = true
		opts.ServiceAccount = account
		return engine.Run(context.Background(), p, opts)
	}
	_, err := run("alice@example.com")
	require.NoError(t, err)
	require.Equal(t, 1, w.svc.NotificationCount())

	res, err := run("bob@example.com")
	require.Error(t, err)
	assert.Nil(t, res, "another account's bets are not reported")
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "belongs to account alice@example.com on ")
	assert.Contains(t, err.Error(), ", but this run is account bob@example.com (BETPLAN_TOKEN, or BETPLAN_EMAIL): run the plan as alice@example.com, or give bob@example.com a state dir of its own (--state-dir)")
	assert.Equal(t, 1, w.svc.NotificationCount())

	// A journal begun before journals named their account keeps its key
	// alone: it is still refused, as another account's.
	path := w.options(w.client()).State.JournalPath("card", w.options(w.client()).BaseURL)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	unnamed := regexp.MustCompile(`,"account_name":"[^"]*"`).ReplaceAllString(string(b), "")
	require.NotEqual(t, string(b), unnamed)
	require.NoError(t, os.WriteFile(path, []byte(unnamed), 0o644))
	_, err = run("bob@example.com")
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "belongs to another account on ")
	assert.Contains(t, err.Error(), "run the plan as the account that ran it, or give bob@example.com a state dir of its own")

	res, err = run("")
	require.NoError(t, err)
	assert.Equal(t, 1, w.svc.NotificationCount())
	require.Len(t, res.Bets, 1)
	assert.NotZero(t, res.Bets[0].NotificationID)
}

// TestAccountLimitsCountOnlyThisAccountsJournals: the account file's
// limits count the plans of the state dir kept for this run's account:
// another account's stakes are not this one's bankroll.
func TestAccountLimitsCountOnlyThisAccountsJournals(t *testing.T) {
	t.Parallel()
	account, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {period: day, max_total_stake: 15}\n"))
	require.False(t, diags.HasErrors(), "%v", diags)
	w := newWorld(t)
	r := w.race("Greyhounds", 0)
	run := func(name, who string) *engine.Result {
		p := ownerPlan(t, name, r)
		opts := w.options(w.client())
		opts.PlanFile = p.Filename
		opts.NoWait = true
		opts.Account = account
		opts.ServiceAccount = who
		res, _ := engine.Run(context.Background(), p, opts)
		require.NotNil(t, res)
		require.Len(t, res.Bets, 1)
		return res
	}
	assert.NotZero(t, run("card-a", "alice@example.com").Bets[0].NotificationID)
	assert.NotZero(t, run("card-b", "bob@example.com").Bets[0].NotificationID, "alice's $10 is not bob's")
	res := run("card-c", "alice@example.com")
	assert.Zero(t, res.Bets[0].NotificationID, "alice's $10 and $10 pass her $15")
	assert.True(t, strings.Contains(res.Bets[0].Reason, "account max_total_stake $15.00") || strings.Contains(res.Error, "account max_total_stake $15.00"), "%s / %s", res.Bets[0].Reason, res.Error)
}

// TestLegacyTakeOverResumesAfterACrash: a run that moved only part of a
// journal an earlier betplan kept per plan (a crash mid-copy) leaves a
// journal of the legacy's lineage that names no service; the next run
// copies the rest before anything else, so nothing the old journal knew
// is lost, then names the service and retires the old file.
func TestLegacyTakeOverResumesAfterACrash(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := ownerPlan(t, "card", w.race("Greyhounds", 0))
	opts := w.options(w.client())
	opts.Simulated = false // a real service's journal: the legacy one is looked at
	opts.PlanFile = p.Filename
	opts.NoWait = true
	var log strings.Builder
	opts.Log = &log
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, 1, w.svc.NotificationCount())

	// The journal as an earlier betplan kept it: no service named.
	path := opts.State.JournalPath("card", opts.BaseURL)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	legacy := regexp.MustCompile(`,"service":"[^"]*"`).ReplaceAllString(string(b), "")
	lines := strings.SplitAfter(strings.TrimSpace(legacy), "\n")
	require.GreaterOrEqual(t, len(lines), 3, "init, creating, created: %s", legacy)
	require.NoError(t, os.WriteFile(opts.State.LegacyJournalPath("card"), []byte(legacy), 0o644))
	// The crash: only the first record was copied.
	require.NoError(t, os.WriteFile(path, []byte(lines[0]), 0o644))

	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Contains(t, log.String(), "resuming its move")
	assert.Equal(t, 1, w.svc.NotificationCount())
	require.Len(t, res.Bets, 1)
	assert.NotZero(t, res.Bets[0].NotificationID)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(lines)+1, strings.Count(string(after), "\n"), "every old record, then the service's: %s", after)
	assert.Contains(t, string(after), `"op":"service"`)
	_, err = os.Stat(opts.State.LegacyJournalPath("card"))
	assert.ErrorIs(t, err, os.ErrNotExist, "retired once moved")
}
