package serve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

func testLeadership(t *testing.T, store state.Leaders, instance string, takeover time.Duration, changes *[]string, mu *sync.Mutex) *Leadership {
	return &Leadership{Leaders: store, Account: "acct", Instance: instance, Timing: Timing{Takeover: takeover},
		Owner: state.LockOwner{PID: 1, Host: instance, Command: "betplan serve"},
		Logf:  func(string, ...any) {},
		Changed: func(term, _ state.Term) {
			mu.Lock()
			defer mu.Unlock()
			if term.Leading {
				*changes = append(*changes, instance+" gained")
			} else {
				*changes = append(*changes, instance+" lost")
			}
		}}
}

// A leader that stops renewing (killed, paused) is taken over within the
// bound, and sends nothing once less than the margin of its lease is
// left; woken, it learns it lost the account and never leads it again
// under its old term.
func TestLeadershipTakenOverWithinTheBound(t *testing.T) {
	t.Parallel()
	store := local.Store{Layout: local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}}
	var mu sync.Mutex
	var changes []string
	// The bound is the leadership's own figure; 3 s leaves a loaded race
	// build room for its goroutines (the take-over comes at about 2/3 of
	// it, when the lease runs out).
	const takeover = 3 * time.Second
	a := testLeadership(t, store, "a", takeover, &changes, &mu)
	b := testLeadership(t, store, "b", takeover, &changes, &mu)

	ctx := context.Background()
	a.step(ctx)
	b.step(ctx)
	require.True(t, a.Status().Leading)
	require.False(t, b.Status().Leading)
	until, ok := a.Sending()
	require.True(t, ok, "a fresh leader sends")
	assert.WithinDuration(t, time.Now().Add(a.Timing.TTL()), until, 500*time.Millisecond)
	_, ok = b.Sending()
	assert.False(t, ok, "a standby sends nothing")

	// a stops renewing here (SIGSTOP): b keeps campaigning.
	stopped := time.Now()
	bctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { b.Run(bctx, func() {}); close(done) }()
	// b's last write ends before its directory is removed (cleanups run
	// last registered first).
	t.Cleanup(func() { cancel(); <-done })
	for !b.Status().Leading {
		require.Less(t, time.Since(stopped), takeover, "b took over within the bound")
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(stopped)
	t.Logf("taken over %v after the leader stopped renewing (bound %v)", took, takeover)
	_, ok = a.Sending()
	assert.False(t, ok, "the old leader, woken, sends nothing: its lease ran out")
	a.step(ctx)
	assert.False(t, a.Status().Leading, "woken, it learns the account was taken over")
	assert.Equal(t, "b", a.Status().Term.Instance)
	assert.Greater(t, b.Status().Term.Fence, int64(1), "the take-over moved the fence on")
	mu.Lock()
	assert.Equal(t, []string{"a gained", "b gained", "a lost"}, changes)
	mu.Unlock()
}

// A leader that stops resigns: a standby takes over at its next poll,
// not after the lease.
func TestLeadershipResignsAsItStops(t *testing.T) {
	t.Parallel()
	store := local.Store{Layout: local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}}
	var mu sync.Mutex
	var changes []string
	a := testLeadership(t, store, "a", time.Minute, &changes, &mu)
	actx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	released := false
	go func() { a.Run(actx, func() { released = true }); close(done) }()
	for !a.Status().Leading {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	assert.True(t, released, "the runs were let go before resigning")
	b := testLeadership(t, store, "b", time.Minute, &changes, &mu)
	b.step(context.Background())
	assert.True(t, b.Status().Leading, "taken over at once, well before a minute's lease ran out")
}

// The gate holds every request back unless the process leads, bounds one
// by the lease's end, and counts the answers.
func TestGateHoldsBackAndBoundsRequests(t *testing.T) {
	t.Parallel()
	slow := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow/" {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	defer close(slow)
	store := local.Store{Layout: local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}}
	var mu sync.Mutex
	var changes []string
	l := testLeadership(t, store, "a", 6*time.Second, &changes, &mu)
	m := NewMetrics(l.Status, noPlans, func() int { return 0 })
	g := &Gate{Lead: l, Metrics: m}
	c := &http.Client{Transport: g.Wrap(http.DefaultTransport)}

	_, err := c.Get(srv.URL + "/notification/")
	require.ErrorIs(t, err, ErrNotLeading, "held back while standing by")
	l.step(context.Background())
	require.True(t, l.Status().Leading)
	resp, err := c.Get(srv.URL + "/bet/notification/1234/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)

	// A request under way when the lease ends is cut off then.
	until, _ := l.Sending()
	start := time.Now()
	_, err = c.Get(srv.URL + "/slow/")
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	assert.WithinDuration(t, until, time.Now(), time.Second, "bounded by the lease's end (%v after it began)", time.Since(start))
	_, err = c.Get(srv.URL + "/notification/")
	require.ErrorIs(t, err, ErrNotLeading, "nothing is sent once the lease is nearly over")

	held, requests := counterValue(t, m, "betplan_requests_held_total", nil), counterValue(t, m, "betplan_requests_total", map[string]string{"endpoint": "GET /bet/notification/{id}/", "code": "418"})
	assert.Equal(t, 2.0, held)
	assert.Equal(t, 1.0, requests)
}

func noPlans() (*reporters.Summary, []*engine.Result) { return nil, nil }
