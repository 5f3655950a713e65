package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// TestBetReadsWhatTheTickCreated: a bet whose condition reads another
// bet's outcome sees what an earlier decision of the same tick did: b is
// made once a is created, on the one tick of the run.
func TestBetReadsWhatTheTickCreated(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: same-tick
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 5, max_total_stake: 50, max_bets: 5}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: a, race: %s, selection: "1", stake: 1}
  - {id: b, race: %s, selection: "2", stake: 1, when: bets.a.status == "created"}
`, raceYAML(r), raceYAML(r)))
	opts := w.options(w.client())
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	got := byID(res)
	assert.Equal(t, engine.StatusCreated, got["a"].Status, got["a"].Reason)
	assert.Equal(t, engine.StatusCreated, got["b"].Status, got["b"].Reason)
	assert.Equal(t, 2, w.svc.NotificationCount())
}

// BenchmarkOutcomeTick measures one tick of a plan whose bets read the
// plan's totals and each other's outcomes (plan, bets): every bet is
// decided once and waits, its race still an hour off. Each decision
// reads what every bet did, so what a tick costs per bet should not grow
// with the number of bets. The clock-moving runs read a clock that moves
// a microsecond each time it is read, as the wall clock does within a
// tick, where the simulated one stands still.
func BenchmarkOutcomeTick(b *testing.B) {
	for _, moving := range []bool{false, true} {
		for _, n := range []int{200, 1000} {
			name := fmt.Sprint(n)
			if moving {
				name += "-clock-moving"
			}
			b.Run(name, func(b *testing.B) { benchmarkOutcomeTick(b, n, moving) })
		}
	}
}

func benchmarkOutcomeTick(b *testing.B, n int, moving bool) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(outcomePlan(n, w.racesAfter(time.Hour)))
		opts := w.options(w.client())
		opts.NoWait = true
		if moving {
			opts.Clock = &creepingClock{Clock: w.clock}
		}
		w.moveState(&opts, fmt.Sprint(i))
		b.StartTimer()
		res, err := engine.Run(context.Background(), p, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(res.Bets) != n || res.Bets[0].Status != engine.StatusWaiting {
			b.Fatalf("%d bets, the first %s", len(res.Bets), res.Bets[0].Status)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/bet")
}

// racesAfter are the races of benchVenues starting at least d from now.
func (w *world) racesAfter(d time.Duration) []sim.RaceInfo {
	var out []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if benchVenues[r.Venue] && !r.Start.Before(w.clock.Now().Add(d)) {
			out = append(out, r)
		}
	}
	return out
}

// outcomePlan is n $1 bets dealt over races in turn, each made five
// minutes out while the day has lost less than $100 and the bet before
// it did not fail: every condition reads plan and bets.
func outcomePlan(n int, races []sim.RaceInfo) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: outcomes-%d\nlimits: {period: day, max_stake_per_bet: 5, max_total_stake: %d, max_bets: %d}\n", n, n*5, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager}\nbets:\n")
	for i := range n {
		r := races[i%len(races)]
		prev := (i + n - 1) % n
		fmt.Fprintf(&sb, "  - id: b%05d\n    race: %s\n    selection: \"%d\"\n    stake: 1\n", i, raceYAML(r), 1+i%6)
		fmt.Fprintf(&sb, "    when: race.minutes_to_start <= 5 && plan.lowest_profit > -100 && bets.b%05d.status != \"failed\"\n", prev)
	}
	return sb.String()
}

// creepingClock is a clock a microsecond later each time it is read.
type creepingClock struct {
	engine.Clock
	reads atomic.Int64
}

func (c *creepingClock) Now() time.Time {
	return c.Clock.Now().Add(time.Duration(c.reads.Add(1)) * time.Microsecond)
}
