package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// onTimeWorld is a world whose bots place a bet half a second after its
// create, with n races starting at least 70 minutes from now, each on its
// own: the service results them early (ResultAt) while listing their start.
func onTimeWorld(t *testing.T, n int) (*world, []sim.RaceInfo) {
	w := newWorldWith(t, sim.Options{TakeUpDelay: 500 * time.Millisecond})
	seen := map[string]bool{}
	var races []sim.RaceInfo
	for _, r := range w.svc.Races() {
		k := fmt.Sprintf("%s|%d", r.Venue, r.EventNumber)
		if r.Code == "Galloping" && r.Start.After(w.clock.Now().Add(70*time.Minute)) && !seen[k] && len(races) < n {
			seen[k] = true
			races = append(races, r)
		}
	}
	require.Len(t, races, n)
	return w, races
}

// resultedBy maps each race's "venue|number" to when the service results it.
func resultedBy(races []sim.RaceInfo, at []time.Time) func(string) time.Time {
	m := map[string]time.Time{}
	for i, r := range races {
		m[fmt.Sprintf("%s|%d", r.Venue, r.EventNumber)] = at[i]
	}
	return func(k string) time.Time { return m[k] }
}

// A result that lands 3 s after the create while the service lists the
// start 70 minutes away (a scratching, an abandoned race, a start in the
// wrong time zone) is seen at the next tick, and the run ends there: it
// used to wait for a 5-minute poll, past a short poll.timeout.
func TestEarlyResultSeenAtTheNextTick(t *testing.T) {
	t.Parallel()
	const interval = 2 * time.Second
	w, races := onTimeWorld(t, 1)
	r := races[0]
	p := w.plan(fmt.Sprintf(`version: 1
name: early
poll: {interval: 2s, timeout: 12h}
limits: {max_stake_per_bet: 20, max_total_stake: 20, max_bets: 1}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: one, race: %s, selection: %q, stake: 10}
`, raceYAML(r), r.Runners[0]))
	resulted := w.clock.Now().Add(3 * time.Second)
	require.True(t, w.svc.ResultAt(r, resulted))
	c := &readsByReason{Backend: w.client(), clock: w.clock}
	opts := w.options(nil)
	opts.Backend = c
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	b := res.Bets[0]
	require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
	f, worst := assertPollRule(t, c.timeline(), interval, resultedBy(races, []time.Time{resulted}))
	t.Logf("result seen %s after the service showed it; %d polls, at most %d pages a tick", worst, f.ticks, f.maxPerTick)
	assert.LessOrEqual(t, res.FinishedAt.Sub(resulted), interval, "the run ends at the tick that sees the result")
}

// Twelve results landing one by one over 18 s at poll.interval 2s: each
// is seen within an interval of the service showing it, one page a tick
// reads them all, and the run ends an interval after the last.
func TestResultsOneByOneEachSeenWithinAnInterval(t *testing.T) {
	t.Parallel()
	const n, interval = 12, 2 * time.Second
	w, races := onTimeWorld(t, n)
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\nname: onebyone\npoll: {interval: 2s, timeout: 12h}\nlimits: {max_stake_per_bet: 5, max_total_stake: 100, max_bets: %d}\n", n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n")
	at := make([]time.Time, n)
	for i, r := range races {
		fmt.Fprintf(&sb, "  - {id: b%02d, race: %s, selection: %q, stake: 1}\n", i, raceYAML(r), r.Runners[0])
		at[i] = w.clock.Now().Add(3*time.Second + time.Duration(i)*1500*time.Millisecond)
		require.True(t, w.svc.ResultAt(r, at[i]))
	}
	p := w.plan(sb.String())
	c := &readsByReason{Backend: w.client(), clock: w.clock}
	opts := w.options(nil)
	opts.Backend = c
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	for _, b := range res.Bets {
		require.True(t, b.Final, "bet %s: %s %s", b.ID, b.Status, b.Reason)
	}
	f, worst := assertPollRule(t, c.timeline(), interval, resultedBy(races, at))
	assert.Equal(t, 1, f.maxPerTick, "one page holds the 12 bets")
	assert.Len(t, c.timeline().resultedAt, n, "every result was seen by a page")
	t.Logf("latest result seen %s after the service; %d polls; run ended %s after the last result", worst, f.ticks, res.FinishedAt.Sub(at[n-1]))
	assert.LessOrEqual(t, res.FinishedAt.Sub(at[n-1]), interval, "the run ends at the tick that sees the last result")
}

// An outcome-aware plan whose trigger lands early: r3's race is resulted
// 3 s after the create, 70 minutes before its listed start, and r3 lost;
// after3 (when: bets.r3.lost) is created on the tick after the one that
// saw it. It used to wait for r3's 5-minute poll, or never come within a
// short poll.timeout.
func TestOutcomeTriggerThatLandsEarly(t *testing.T) {
	t.Parallel()
	const interval = 2 * time.Second
	w, races := onTimeWorld(t, 2)
	a, b := races[0], races[1]
	var loser string
	for _, x := range a.Runners {
		if x != w.svc.Winner(a) {
			loser = x
			break
		}
	}
	p := w.plan(fmt.Sprintf(`version: 1
name: trigger
poll: {interval: 2s, timeout: 12h}
limits: {max_stake_per_bet: 20, max_total_stake: 40, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: r3, race: %s, selection: %q, stake: 10}
  - {id: after3, race: %s, selection: %q, stake: 10, when: bets.r3.lost}
`, raceYAML(a), loser, raceYAML(b), b.Runners[0]))
	resulted := w.clock.Now().Add(3 * time.Second)
	require.True(t, w.svc.ResultAt(a, resulted))
	// after3's race is resulted early too, so the run ends in seconds.
	require.True(t, w.svc.ResultAt(b, w.clock.Now().Add(20*time.Second)))
	c := &readsByReason{Backend: w.client(), clock: w.clock}
	opts := w.options(nil)
	opts.Backend = c
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	byID := map[string]engine.BetResult{}
	for _, x := range res.Bets {
		byID[x.ID] = x
	}
	require.Equal(t, engine.StatusSettled, byID["r3"].Status, byID["r3"].Reason)
	require.Contains(t, byID["r3"].Reason, "lost")
	after := byID["after3"]
	require.NotZero(t, after.NotificationID, "after3 created: %s %s", after.Status, after.Reason)
	t.Logf("r3 resulted at +3s; after3 created %s after it", after.CreatedAt.Sub(resulted))
	assert.LessOrEqual(t, after.CreatedAt.Sub(resulted), 2*interval, "the trigger is acted on at the tick after the one that saw it")
	assertPollRule(t, c.timeline(), interval, resultedBy(races, []time.Time{resulted, w.start.Add(20 * time.Second)}))
}

// Plans of one run with different intervals read a page holding open bets
// at the smallest of them, no more often: the slower plan ticks on the
// faster one's grid (with its own grid, a 45s plan read again 15s after a
// 30s one), and every result is seen within the smallest interval.
func TestPlansOfDifferentIntervalsReadAtTheSmallest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	var races []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if benchVenues[r.Venue] && r.Start.After(w.clock.Now().Add(10*time.Minute)) {
			races = append(races, r)
		}
	}
	sort.SliceStable(races, func(i, j int) bool { return races[i].Start.Before(races[j].Start) })
	races = races[:4]
	clock := sim.NewGroupClock(w.clock, 2)
	c := &readsByReason{Backend: w.client(), clock: clock}
	account := engine.NewAccount(c, clock, 0)
	var ps []*plan.Plan
	var optss []engine.Options
	for _, interval := range []string{"30s", "45s"} {
		src := strings.Replace(spreadPlan(fmt.Sprintf("every-%s", interval), 4, races), "interval: 30s", "interval: "+interval, 1)
		opts := w.options(nil)
		opts.Backend = account.Plan()
		opts.Clock = clock
		w.moveState(&opts, interval)
		ps, optss = append(ps, w.plan(src)), append(optss, opts)
	}
	runOnOneClock(t, clock, ps, optss)
	resultAt := map[string]time.Time{}
	for _, r := range races {
		resultAt[fmt.Sprintf("%s|%d", r.Venue, r.EventNumber)] = r.Start.Add(2 * time.Minute)
	}
	f, worst := assertPollRule(t, c.timeline(), 30*time.Second, func(k string) time.Time { return resultAt[k] })
	t.Logf("%d list reads over %d ticks, at most %d a tick, closest %s apart; latest result seen %s after the service", f.reads, f.ticks, f.maxPerTick, f.minGap, worst)
}

// runOnOneClock runs the plans at once, each with its options, on clock
// (a group clock of one member a plan), and requires every run to end
// without error with each of its bets final.
func runOnOneClock(t testing.TB, clock *sim.GroupClock, plans []*plan.Plan, opts []engine.Options) []*engine.Result {
	t.Helper()
	results := make([]*engine.Result, len(plans))
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer clock.Leave()
			results[i], errs[i] = engine.Run(context.Background(), p, opts[i])
		}()
	}
	wg.Wait()
	for i := range plans {
		require.NoError(t, errs[i], "plan %d", i)
		for _, b := range results[i].Bets {
			require.True(t, b.Final, "plan %d bet %s: %s %s", i, b.ID, b.Status, b.Reason)
		}
	}
	return results
}
