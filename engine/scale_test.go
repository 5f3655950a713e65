package engine_test

import (
	"context"
	"fmt"
	"os"
	"slices"
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
// the simulated world (more races for the same bets, each probed while it
// runs) does not move figures that compare the engine with itself.
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

// maxCallsPerBet is the stated bound on API calls per bet for a full run
// of 1,000 bets over the four hours of a seven-venue card, at a 30s
// interval: one create each (1), and what is shared across bets. Measured
// 1.524: 1,000 creates, 485 list pages, 20 bet history pages, 17 records
// of bets every session refused, races and sessions. The pages are about
// 30 for the first two minutes after the burst (3 ticks of 10), about 190
// while races run (one page a tick from a race's start plus an interval
// until its result), and about 260 for the five-minute polls between
// answer and start, each the fewest pages that hold the bets still open.
// Those three are what the polling rules ask for, so 1.5 is out of reach
// without polling less than they say.
const maxCallsPerBet = 1.55

// maxCallsPerBetSmall is the bound for the run make test makes: 100
// bets over the card's next 10 races, the same code on an hour of the
// card. Measured 1.51 (100 creates, 45 list pages, 4 bet history pages).
const maxCallsPerBetSmall = 1.55

// fullScale says whether the scale tests run at the size their figures
// were measured at (BETPLAN_FULL_SCALE=1, `make scale`): make test runs
// the same code at a small size.
func fullScale() bool { return os.Getenv("BETPLAN_FULL_SCALE") == "1" }

func TestThousandBetPlanCallsPerBet(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,000-bet run")
	}
	t.Parallel()
	w := newWorld(t)
	n, bound, yaml := 100, maxCallsPerBetSmall, ""
	if fullScale() {
		n, bound, yaml = 1000, maxCallsPerBet, w.bigPlan(1000)
	} else {
		// The same spread over the card's next races: an hour of it,
		// not four.
		var races []sim.RaceInfo
		for _, r := range w.svc.Races() {
			if benchVenues[r.Venue] {
				races = append(races, r)
			}
		}
		slices.SortStableFunc(races, func(a, b sim.RaceInfo) int { return a.Start.Compare(b.Start) })
		yaml = spreadPlan("big-100", n, races[:10])
	}
	p := w.plan(yaml)
	c := w.client()
	res, err := engine.Run(context.Background(), p, w.options(c))
	require.NoError(t, err)
	require.Len(t, res.Bets, n)
	for _, b := range res.Bets {
		require.True(t, b.Final, "bet %s: %s %s", b.ID, b.Status, b.Reason)
	}
	assert.Equal(t, n, w.svc.NotificationCount())
	calls := len(w.svc.Requests())
	perBet := float64(calls) / float64(n)
	byPath := w.callsByPath()
	t.Logf("%d bets: %d API calls, %.3f per bet: %v", n, calls, perBet, byPath)
	assert.LessOrEqual(t, perBet, bound)
	assert.Equal(t, int64(calls), c.Requests(), "the client counts every call the service saw")
}

// BenchmarkRunPerBet measures the engine's overhead per bet (decide,
// journal, create, poll bookkeeping) against the in-process simulated
// service with zero latency, and API calls per bet.
func BenchmarkRunPerBet(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkRun(b, n) })
	}
}

func benchmarkRun(b *testing.B, n int) {
	b.ReportAllocs()
	var calls int
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(w.bigPlan(n))
		opts := w.options(w.client())
		w.moveState(&opts, fmt.Sprint(i))
		b.StartTimer()
		if _, err := engine.Run(context.Background(), p, opts); err != nil {
			b.Fatal(err)
		}
		calls = len(w.svc.Requests())
	}
	b.ReportMetric(float64(calls)/float64(n), "calls/bet")
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
