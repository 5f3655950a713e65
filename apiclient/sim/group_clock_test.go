package sim_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/apiclient/sim"
)

// Members of a group see one time: the clock moves to the soonest wake
// when every member sleeps, never by each member's sleep in turn.
func TestGroupClockMovesWhenEveryMemberSleeps(t *testing.T) {
	start := time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC)
	g := sim.NewGroupClock(sim.NewManualClock(start), 2)
	ctx := context.Background()
	var mu sync.Mutex
	var woke []string
	note := func(who string) {
		mu.Lock()
		woke = append(woke, who+" "+g.Now().Sub(start).String())
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // ticks every 10s, three times
		defer wg.Done()
		defer g.Leave()
		for range 3 {
			assert.NoError(t, g.Sleep(ctx, 10*time.Second))
			note("a")
		}
	}()
	go func() { // one long wait
		defer wg.Done()
		defer g.Leave()
		assert.NoError(t, g.Sleep(ctx, 25*time.Second))
		note("b")
	}()
	wg.Wait()
	assert.Equal(t, []string{"a 10s", "a 20s", "b 25s", "a 30s"}, woke)
	assert.Equal(t, start.Add(30*time.Second), g.Now(), "a's last wait runs on alone once b left")
}

// A sleep whose context ends returns at once with its error and no longer
// holds the clock.
func TestGroupClockSleepCancelled(t *testing.T) {
	start := time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC)
	g := sim.NewGroupClock(sim.NewManualClock(start), 2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- g.Sleep(ctx, time.Minute) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, start, g.Now())
}
