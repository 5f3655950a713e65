package sim

import (
	"context"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Clock is the simulator's time; it is the engine's Clock too.
type Clock = apiclient.Clock

// ManualClock stands still until it is moved. Sleep moves it forward by the
// requested duration and returns at once, so code that waits for races to
// start runs in no real time. It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock reading start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t (backwards too).
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Sleep advances the clock by d and returns immediately, unless ctx is
// already done.
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.Advance(d)
	}
	return nil
}

// ScaledClock runs factor times faster than real time from start: a
// rehearsal of an afternoon's card in minutes.
type ScaledClock struct {
	start  time.Time
	real0  time.Time
	factor float64
}

// NewScaledClock returns a clock reading start + real elapsed × factor.
// A factor of zero or less is taken as 1.
func NewScaledClock(start time.Time, factor float64) *ScaledClock {
	if factor <= 0 {
		factor = 1
	}
	return &ScaledClock{start: start, real0: time.Now(), factor: factor}
}

// Now returns the scaled time.
func (c *ScaledClock) Now() time.Time {
	elapsed := time.Since(c.real0)
	return c.start.Add(time.Duration(float64(elapsed) * c.factor))
}

// Sleep waits d/factor of real time, or until ctx is done.
func (c *ScaledClock) Sleep(ctx context.Context, d time.Duration) error {
	return apiclient.Sleep(ctx, time.Duration(float64(d)/c.factor))
}

// RealClock returns the wall clock.
func RealClock() Clock { return apiclient.RealClock() }
