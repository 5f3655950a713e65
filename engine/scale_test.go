package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// bigPlan spreads n bets over the world's upcoming races, each ready at
// once with a static stake.
func (w *world) bigPlan(n int) string {
	races := w.svc.Races()
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: big-%d\nlimits: {max_stake_per_bet: 5, max_total_stake: %d, max_bets: %d}\n", n, n*5, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager}\nbets:\n")
	for i := range n {
		r := races[i%len(races)]
		// Runners 1 to 6 run in every race of the simulated world.
		fmt.Fprintf(&sb, "  - id: b%05d\n    race: %s\n    selection: \"%d\"\n    stake: 1\n", i, raceYAML(r), 1+i%6)
	}
	return sb.String()
}

// maxCallsPerBet is the stated bound on API calls per bet for a full run:
// one label look-up, one create and one read of the bet records (3), and
// polling shared across bets (one probe per running race, list pages of
// 100) within 1.5 more.
const maxCallsPerBet = 4.5

func TestThousandBetPlanCallsPerBet(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,000-bet run")
	}
	w := newWorld(t)
	p := w.plan(w.bigPlan(1000))
	c := w.client()
	res, err := engine.Run(context.Background(), p, w.options(c))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1000)
	for _, b := range res.Bets {
		require.True(t, b.Final, "bet %s: %s %s", b.ID, b.Status, b.Reason)
	}
	assert.Equal(t, 1000, w.svc.NotificationCount())
	calls := len(w.svc.Requests())
	perBet := float64(calls) / 1000
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
	t.Logf("1,000 bets: %d API calls, %.2f per bet: %v", calls, perBet, byPath)
	assert.LessOrEqual(t, perBet, maxCallsPerBet)
	assert.Equal(t, int64(calls), c.Requests(), "the client counts every call the service saw")
}

// BenchmarkRunPerBet measures the engine's overhead per bet (decide,
// journal, create, poll bookkeeping) against the in-process simulated
// service with zero latency, and API calls per bet.
func BenchmarkRunPerBet(b *testing.B) {
	const n = 200
	b.ReportAllocs()
	var calls int
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(w.bigPlan(n))
		opts := w.options(w.client())
		opts.StateDir = filepath.Join(w.dir, fmt.Sprint(i))
		b.StartTimer()
		if _, err := engine.Run(context.Background(), p, opts); err != nil {
			b.Fatal(err)
		}
		calls = len(w.svc.Requests())
	}
	b.ReportMetric(float64(calls)/n, "calls/bet")
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
				if _, err := engine.Outcomes(context.Background(), p, opts); err != nil {
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
