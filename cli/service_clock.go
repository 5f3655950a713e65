package cli

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// serviceClock is the engine's clock against a real service: the time the
// service's Date headers tell, running at the rate they advance. Against a
// real service that is the wall clock give or take the machine's skew;
// against `betplan sim --speed 60` it runs sixty times faster, so race
// times, conditions and polls follow the rehearsal.
type serviceClock struct {
	mu sync.Mutex
	// first and last are Date samples (the service's time, and the local
	// time it arrived); anchor is what Now extrapolates from.
	first, anchor sample
	rate          float64
	now           func() time.Time
	// scaled allows a rate other than 1: only a service on this machine
	// (betplan sim --speed) runs fast; a real service whose Date jumps
	// (servers with skewed clocks behind one name) must never make time
	// race ahead.
	scaled bool
	// handedOut are the wall times Now gave before the first Date, the
	// only ones serviceTime moves onto the service's clock.
	handedOut []time.Time
}

type sample struct {
	service, local time.Time
}

// rateWindow is how much local time two Date samples must span before
// their difference says the service's clock runs at the wall clock's
// rate: Date has whole seconds only. A clock that gained more than
// rounding can explain is measured sooner, before the engine's first
// sleep.
const (
	rateWindow = 10 * time.Second
	fastWindow = 100 * time.Millisecond
	rounding   = 2 * time.Second
)

func newServiceClock(scaled bool) *serviceClock {
	return &serviceClock{rate: 1, now: time.Now, scaled: scaled}
}

// observe takes one Date header and when it arrived.
func (c *serviceClock) observe(serverDate, received time.Time) {
	// Date is truncated to the second: its middle is the best guess.
	s := sample{service: serverDate.Add(500 * time.Millisecond), local: received}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.local.IsZero() {
		c.first, c.anchor = s, s
		return
	}
	span, gained := s.local.Sub(c.first.local), s.service.Sub(c.first.service)
	if c.scaled && (span >= rateWindow || (span >= fastWindow && gained-span > rounding)) {
		r := float64(gained) / float64(span)
		if math.Abs(r-1) < 0.25 {
			r = 1 // a real service: the difference is the Date's rounding
		}
		if r > 0 {
			c.rate = r
		}
	}
	// Re-anchor only when the sample disagrees with the extrapolation by
	// more than Date's rounding and the trip, so time does not jitter.
	predicted := c.anchor.service.Add(time.Duration(float64(s.local.Sub(c.anchor.local)) * c.rate))
	slack := rounding + time.Duration(float64(100*time.Millisecond)*c.rate)
	if d := s.service.Sub(predicted); d > slack || -d > slack {
		c.anchor = s
	}
}

// Now is the service's time now: the wall clock until a Date is seen.
func (c *serviceClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	local := c.now()
	if c.anchor.local.IsZero() {
		c.handedOut = append(c.handedOut[:min(len(c.handedOut), 63)], local)
		return local
	}
	return c.anchor.service.Add(time.Duration(float64(local.Sub(c.anchor.local)) * c.rate))
}

// Sleep waits d of the service's time.
func (c *serviceClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	rate := c.rate
	c.mu.Unlock()
	return apiclient.Sleep(ctx, time.Duration(float64(d)/rate))
}

// simulated reports whether the service's clock is a rehearsal's rather
// than the wall clock: it runs at another rate (betplan sim --speed), or
// keeps a time more than a minute off this machine's (--sim-start). Only a
// service on this machine can be either.
func (c *serviceClock) simulated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.scaled || c.anchor.local.IsZero() {
		return false
	}
	off := c.anchor.service.Sub(c.anchor.local)
	return c.rate != 1 || off > time.Minute || off < -time.Minute
}

// serviceTime is a time Now gave before any Date was seen (the wall
// clock's), on the service's clock as measured since: a command's start
// on a rehearsal's clock, like its end. Any later time is returned as it
// is.
func (c *serviceClock) serviceTime(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.local.IsZero() || !slices.ContainsFunc(c.handedOut, t.Equal) {
		return t
	}
	return c.first.service.Add(-time.Duration(float64(c.first.local.Sub(t)) * c.rate))
}
