// Package serve is `betplan serve`: every plan of a folder run
// continuously by the one process that leads the account, the others
// standing by; plans reloaded as their files change; health, readiness,
// metrics and status over HTTP. The engine runs each plan (engine.Run
// with engine.ServeMode); this package decides when, under which
// leadership, and says how it goes.
package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/betplan/betplan/state"
)

// Timing derives a leadership's timing from its take-over bound: a
// standby takes over at most Takeover after the leader stopped renewing
// (it died, was paused or cut off).
type Timing struct {
	Takeover time.Duration
}

// TTL is the lease a leader takes: two thirds of the bound, so that the
// last third covers a standby's polls and its start.
func (t Timing) TTL() time.Duration { return t.Takeover * 2 / 3 }

// Renew is how often the leader renews: four times a lease, so a renewal
// or two may fail (a slow database) before the lease runs short.
func (t Timing) Renew() time.Duration { return t.TTL() / 4 }

// Poll is how often a standby asks whether the lease ran out.
func (t Timing) Poll() time.Duration { return t.Takeover / 6 }

// Margin is how much of its lease a leader keeps unused: once less is
// left, it sends nothing (a request already sent is bounded by the
// lease's end). A few seconds, a quarter of a short lease.
func (t Timing) Margin() time.Duration { return min(5*time.Second, t.TTL()/4) }

// Leadership campaigns for the account's leadership and keeps its lease
// renewed. What the process may do follows from it: Sending says whether
// a request may go out now, and until when it may take.
type Leadership struct {
	Leaders  state.Leaders
	Account  string
	Owner    state.LockOwner
	Instance string
	Timing   Timing
	Logf     func(format string, args ...any)
	// Changed is told of each term this process gains (term.Leading,
	// with the term last seen before it: whose it took over) and of each
	// it loses (!term.Leading).
	Changed func(term, before state.Term)
	// now is the local clock (monotonic); time.Now unless a test says.
	now func() time.Time

	mu      sync.Mutex
	term    state.Term // the term held, while leading
	leading bool
	until   time.Time  // the held lease's end, by this process's clock: never later than the store's
	seen    state.Term // who leads, as last read
	terms   int        // terms this process took
	lost    int        // terms it lost
	renewed time.Time  // the last campaign or renewal that answered
}

func (l *Leadership) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// ErrNotLeading is a request held back: this process does not lead the
// account, or its lease is nearly over.
var ErrNotLeading = errors.New("this process does not lead the account, or its lease is nearly over: nothing is sent")

// Sending says whether a request may be sent now and the end of the
// lease it must be done by: not once less than the margin is left.
func (l *Leadership) Sending() (until time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.leading {
		return time.Time{}, false
	}
	return l.until, l.clock().Before(l.until.Add(-l.Timing.Margin()))
}

// Status is the leadership as /readyz and /metrics show it.
type Status struct {
	Leading bool
	Term    state.Term // held, or as last seen held by another
	Terms   int        // terms this process took
	Lost    int        // terms it lost
	// Answered is when the store last answered a campaign or renewal.
	Answered time.Time
}

// Status reads the leadership.
func (l *Leadership) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.seen
	if l.leading {
		t = l.term
	}
	return Status{Leading: l.leading, Term: t, Terms: l.terms, Lost: l.lost, Answered: l.renewed}
}

// Run campaigns and renews until ctx ends; then, leading, it resigns so a
// standby takes over at once. release is called before resigning and
// must return once nothing more is sent under the term.
func (l *Leadership) Run(ctx context.Context, release func()) {
	for {
		wait := l.step(ctx)
		select {
		case <-ctx.Done():
			l.mu.Lock()
			leading, term := l.leading, l.term
			l.mu.Unlock()
			if leading {
				release()
				l.lose(term, "this process is stopping")
				rctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
				if err := l.Leaders.Resign(rctx, term); err != nil {
					l.Logf("resign %s: %v (a standby takes over once its lease runs out)", term, err)
				}
				cancel()
			}
			return
		case <-time.After(wait):
		}
	}
}

// step campaigns once, or renews, and says how long to wait before the
// next.
func (l *Leadership) step(ctx context.Context) time.Duration {
	l.mu.Lock()
	leading, held := l.leading, l.term
	l.mu.Unlock()
	ttl := l.Timing.TTL()
	sent := l.clock()
	req := state.LeadRequest{Account: l.Account, Owner: l.Owner, Instance: l.Instance, TTL: ttl}
	if leading {
		req.Fence = held.Fence
	}
	cctx, cancel := context.WithTimeout(ctx, max(time.Second, l.Timing.Renew()))
	term, err := l.Leaders.Lead(cctx, req)
	cancel()
	if ctx.Err() != nil {
		return 0
	}
	if err != nil {
		l.mu.Lock()
		until := l.until
		l.mu.Unlock()
		if leading && !l.clock().Before(until) {
			l.lose(held, fmt.Sprintf("its lease ran out while the state could not be reached (%v)", err))
		} else {
			l.Logf("leadership: %v", err)
		}
		return min(time.Second, l.Timing.Poll())
	}
	l.mu.Lock()
	l.renewed = l.clock()
	l.mu.Unlock()
	switch {
	case term.Leading && !leading:
		l.gain(term, sent.Add(ttl))
	case term.Leading:
		l.mu.Lock()
		l.term, l.until = term, sent.Add(ttl)
		l.mu.Unlock()
	case leading:
		l.mu.Lock()
		l.seen = term
		l.mu.Unlock()
		l.lose(held, fmt.Sprintf("%s took the account over", term))
	default:
		l.mu.Lock()
		l.seen = term
		l.mu.Unlock()
	}
	if term.Leading {
		return l.Timing.Renew()
	}
	// A standby asks again soon after the leader's lease would run out,
	// and never less often than Poll.
	return max(100*time.Millisecond, min(l.Timing.Poll(), term.Left+50*time.Millisecond))
}

func (l *Leadership) gain(term state.Term, until time.Time) {
	l.mu.Lock()
	before := l.seen
	l.term, l.leading, l.until, l.seen = term, true, until, term
	l.terms++
	l.mu.Unlock()
	l.Logf("leading the account: %s", term)
	if l.Changed != nil {
		l.Changed(term, before)
	}
}

func (l *Leadership) lose(term state.Term, why string) {
	l.mu.Lock()
	if !l.leading || l.term.Fence != term.Fence {
		l.mu.Unlock()
		return
	}
	l.leading = false
	l.lost++
	l.mu.Unlock()
	l.Logf("no longer leading the account (%s): %s", term, why)
	if l.Changed != nil {
		t := term
		t.Leading = false
		l.Changed(t, term)
	}
}
