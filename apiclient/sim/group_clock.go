package sim

import (
	"context"
	"sync"
	"time"
)

// GroupClock is a ManualClock shared by several runs in one process, each
// in its own goroutine: a Sleep waits until every member sleeps, then the
// clock moves to the soonest wake time and wakes who asked for it. So the
// members see one simulated time that no member's sleep runs ahead of (a
// ManualClock alone would move forward by every member's sleep in turn).
type GroupClock struct {
	base *ManualClock

	mu       sync.Mutex
	members  int
	sleepers []*sleeper
}

type sleeper struct {
	at   time.Time
	wake chan struct{}
}

// NewGroupClock returns a clock that moves base for members goroutines;
// each calls Leave when it no longer sleeps on it.
func NewGroupClock(base *ManualClock, members int) *GroupClock {
	return &GroupClock{base: base, members: members}
}

// Now returns the clock's current time.
func (g *GroupClock) Now() time.Time { return g.base.Now() }

// Leave takes one member out of the group: its sleeps no longer hold the
// others back.
func (g *GroupClock) Leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.members--
	g.advance()
}

// Sleep waits until every member sleeps and the clock has reached now + d,
// or until ctx is done.
func (g *GroupClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	s := &sleeper{wake: make(chan struct{})}
	g.mu.Lock()
	s.at = g.base.Now().Add(d)
	g.sleepers = append(g.sleepers, s)
	g.advance()
	g.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, o := range g.sleepers {
			if o == s {
				g.sleepers = append(g.sleepers[:i], g.sleepers[i+1:]...)
				return ctx.Err()
			}
		}
		return nil // woken meanwhile
	}
}

// advance moves the clock to the soonest wake time once every member
// sleeps, and wakes every sleeper due then. g.mu is held.
func (g *GroupClock) advance() {
	if len(g.sleepers) == 0 || len(g.sleepers) < g.members {
		return
	}
	soonest := g.sleepers[0].at
	for _, s := range g.sleepers[1:] {
		if s.at.Before(soonest) {
			soonest = s.at
		}
	}
	if soonest.After(g.base.Now()) {
		g.base.Set(soonest)
	}
	kept := g.sleepers[:0]
	for _, s := range g.sleepers {
		if s.at.After(soonest) {
			kept = append(kept, s)
		} else {
			close(s.wake)
		}
	}
	g.sleepers = kept
}
