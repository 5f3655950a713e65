package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// benchVenues are the venues the scale figures were first measured on:
// the benchmarks spread their bets over these only, so a venue added to
// the simulated world (more races for the same bets) does not move
// figures that compare the engine with itself.
var benchVenues = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range sim.DefaultVenues[:7] {
		m[v.Names[0]] = true
	}
	return m
}()

// bigPlan spreads n bets over the upcoming races of benchVenues, each
// ready at once with a static stake.
func (w *world) bigPlan(n int) string {
	var races []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if benchVenues[r.Venue] {
			races = append(races, r)
		}
	}
	return spreadPlan(fmt.Sprintf("big-%d", n), n, races)
}

// spreadPlan is a plan of n $1 bets dealt over races in turn, each ready
// at once, polled every 30s.
func spreadPlan(name string, n int, races []sim.RaceInfo) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: %s\nlimits: {max_stake_per_bet: 5, max_total_stake: %d, max_bets: %d}\n", name, n*5, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager}\nbets:\n")
	for i := range n {
		r := races[i%len(races)]
		// Runners 1 to 6 run in every race of the simulated world.
		fmt.Fprintf(&sb, "  - id: b%05d\n    race: %s\n    selection: \"%d\"\n    stake: 1\n", i, raceYAML(r), 1+i%6)
	}
	return sb.String()
}

// runOpenBets runs a plan of n bets over the four hours of a seven-venue
// card at a 30s interval, every bet created on the first tick, and holds
// its polls to the rule: each tick reads at most the list pages holding
// open bets (100 a page), no two ticks closer than the interval, and every
// result is seen within an interval of the service showing it (the world
// results a race two minutes after its start).
func runOpenBets(t testing.TB, n, races int) (readFigures, *readsByReason, float64) {
	w := newWorld(t)
	p := w.plan(w.bigPlan(n))
	if races > 0 {
		// The card's next races only: a shorter run.
		var next []sim.RaceInfo
		for _, r := range w.svc.Races() {
			if benchVenues[r.Venue] && r.Start.After(w.clock.Now().Add(10*time.Minute)) {
				next = append(next, r)
			}
		}
		sort.SliceStable(next, func(i, j int) bool { return next[i].Start.Before(next[j].Start) })
		p = w.plan(spreadPlan(fmt.Sprintf("next-%d", n), n, next[:races]))
	}
	c := &readsByReason{Backend: w.client(), clock: w.clock}
	opts := w.options(nil)
	opts.Backend = c
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, n)
	for _, b := range res.Bets {
		require.True(t, b.Final, "bet %s: %s %s", b.ID, b.Status, b.Reason)
	}
	assert.Equal(t, n, w.svc.NotificationCount())
	resultAt := map[string]time.Time{}
	for _, r := range w.svc.Races() {
		// The first meeting's race: the plan's (a later round reuses the number).
		if k := fmt.Sprintf("%s|%d", r.Venue, r.EventNumber); resultAt[k].IsZero() {
			resultAt[k] = r.Start.Add(2 * time.Minute)
		}
	}
	f, worst := assertPollRule(t, c.timeline(), 30*time.Second, func(k string) time.Time { return resultAt[k] })
	t.Logf("%d bets: %d list reads over %d ticks, at most %d a tick; latest result seen %s after the service; %d label checks; %v",
		n, f.reads, f.ticks, f.maxPerTick, worst, f.labelChecks, c.n)
	return f, c, float64(len(w.svc.Requests())) / float64(n)
}

// 150 open bets over the next 10 races lie on two pages: a tick reads
// those two at most. BenchmarkRunPerBet/1000 holds 1,000 open bets over
// the whole card to the same rule (ten pages a tick at most).
func TestOpenBetsReadByPage(t *testing.T) {
	t.Parallel()
	f, _, _ := runOpenBets(t, 150, 10)
	assert.LessOrEqual(t, f.maxPerTick, 2)
}

// BenchmarkRunPerBet measures the engine's overhead per bet (decide,
// journal, create, poll bookkeeping) against the in-process simulated
// service with zero latency, and the list reads a tick: the most, and on
// average over the ticks with open bets (the pages holding them). It
// fails when a tick reads more pages than hold open bets (plus creates).
func BenchmarkRunPerBet(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkRun(b, n) })
	}
}

func benchmarkRun(b *testing.B, n int) {
	b.ReportAllocs()
	var calls int
	var f readFigures
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(w.bigPlan(n))
		c := &readsByReason{Backend: w.client(), clock: w.clock}
		opts := w.options(nil)
		opts.Backend = c
		w.moveState(&opts, fmt.Sprint(i))
		b.StartTimer()
		if _, err := engine.Run(context.Background(), p, opts); err != nil {
			b.Fatal(err)
		}
		calls = len(w.svc.Requests())
		f = c.timeline().figures()
		if len(f.overBound) > 0 {
			b.Fatalf("polls over the rule: %v", f.overBound)
		}
	}
	b.ReportMetric(float64(calls)/float64(n), "calls/bet")
	b.ReportMetric(float64(f.maxPerTick), "max-reads/tick")
	b.ReportMetric(float64(f.reads)/float64(max(f.ticks, 1)), "reads/tick")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/bet")
}

// BenchmarkPollTick measures one full read of the outcomes of 100 and
// 1,000 open notifications (betplan status): API calls and allocations per
// tick.
func BenchmarkPollTick(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			w := newWorld(b)
			p := w.plan(w.bigPlan(n))
			opts := w.options(w.client())
			opts.NoWait = true
			if _, err := engine.Run(context.Background(), p, opts); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			before := len(w.svc.Requests())
			for b.Loop() {
				if _, err := engine.ReadStatus(context.Background(), p, opts); err != nil {
					b.Fatal(err)
				}
			}
			// Each status reads races and sessions once (2 calls) before polling.
			calls := float64(len(w.svc.Requests())-before)/float64(b.N) - 2
			b.ReportMetric(calls, "poll-calls/tick")
		})
	}
}

// BenchmarkPlanMemory10000 measures the engine's memory for a 10,000-bet
// plan: resolving every bet, deciding it and building the result (betplan
// plan), against the in-process simulated service.
func BenchmarkPlanMemory10000(b *testing.B) {
	w := newWorld(b)
	p := w.plan(w.bigPlan(10000))
	opts := w.options(w.client())
	b.ReportAllocs()
	for b.Loop() {
		res, _, err := engine.Preview(context.Background(), p, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Bets) != 10000 {
			b.Fatalf("%d bets", len(res.Bets))
		}
	}
}

// BenchmarkBurst measures bets ready on one tick (when:
// race.minutes_to_start <= 1 on one race): the calls from the tick to the
// last create, and what they take at the CLI's default 4 requests a
// second (the bound is N / rate + 1 s).
func BenchmarkBurst(b *testing.B) {
	const rate = 4
	for _, n := range []int{50, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var calls int
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				w := newWorld(b)
				r := w.raceAfter(30 * time.Minute)
				p := w.plan(burstPlan(r, n))
				opts := w.options(w.client())
				w.moveState(&opts, fmt.Sprint(i))
				b.StartTimer()
				if _, err := engine.Run(context.Background(), p, opts); err != nil {
					b.Fatal(err)
				}
				var creates int
				calls, creates = tickToLastCreate(w.svc.Requests())
				if creates != n {
					b.Fatalf("%d creates on the tick, want %d", creates, n)
				}
			}
			b.ReportMetric(float64(calls), "calls-to-last-create")
			b.ReportMetric(float64(calls)/rate, "s-to-last-create@4/s")
			b.ReportMetric(float64(n)/rate+1, "bound-s")
		})
	}
}

// BenchmarkFastResults runs 20 bets over 4 races whose bots answer within
// a second and whose results show 2 s after the creates (the races ran
// early): calls per bet, and how long after the results appeared the run
// saw them and ended, in poll intervals.
func BenchmarkFastResults(b *testing.B) {
	const n, interval = 20, 30 * time.Second
	var calls int
	var late time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := newWorldWith(b, sim.Options{TakeUpDelay: 500 * time.Millisecond, ResultDelay: time.Second})
		var races []sim.RaceInfo
		for _, r := range w.svc.Races() {
			if r.Start.After(simStart.Add(time.Hour)) && len(races) < 4 {
				races = append(races, r)
			}
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "version: 1\npoll: {interval: %s, timeout: 12h}\nname: fast\nlimits: {max_stake_per_bet: 5, max_total_stake: 100, max_bets: %d}\n", interval, n)
		sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n")
		for j := range n {
			r := races[j%len(races)]
			fmt.Fprintf(&sb, "  - id: b%02d\n    race: %s\n    selection: %q\n    stake: 1\n", j, raceYAML(r), r.Runners[j/len(races)])
		}
		p := w.plan(sb.String())
		for _, r := range races {
			w.svc.RunAt(r, simStart.Add(time.Second)) // resulted a second later
		}
		opts := w.options(w.client())
		w.moveState(&opts, fmt.Sprint(i))
		b.StartTimer()
		res, err := engine.Run(context.Background(), p, opts)
		if err != nil {
			b.Fatal(err)
		}
		for _, bet := range res.Bets {
			if !bet.Final { // settled, or refused by the session (the world refuses a few)
				b.Fatalf("bet %s: %s %s", bet.ID, bet.Status, bet.Reason)
			}
		}
		calls = len(w.svc.Requests())
		late = res.FinishedAt.Sub(simStart.Add(2 * time.Second))
	}
	b.ReportMetric(float64(calls)/n, "calls/bet")
	b.ReportMetric(float64(late)/float64(interval), "intervals-result-to-seen")
}
