package engine_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// createFault is a fault of the first create sent.
type createFault struct {
	name  string
	fault sim.Fault
}

func TestCreateFaultMatrix(t *testing.T) {
	t.Parallel()
	runCreateFaults(t, []createFault{
		{"commit then 500", sim.Fault{Kind: sim.CommitThenStatus, Status: 500}},
		{"commit then 502", sim.Fault{Kind: sim.CommitThenStatus, Status: 502}},
		{"commit then timeout", sim.Fault{Kind: sim.CommitThenTimeout, Latency: 5 * time.Second}},
		{"commit then connection drop", sim.Fault{Kind: sim.CommitThenDrop}},
		{"500 before commit", sim.Fault{Kind: sim.StatusFault, Status: 500}},
		{"connection drop before commit", sim.Fault{Kind: sim.Drop}},
		{"429", sim.Fault{Kind: sim.RateLimit, RetryAfter: time.Second}},
	}, 2, func(w *world) *plan.Plan { return w.twoBetPlan("") })
}

// runCreateFaults runs, for each fault of the first create, the plan of
// bets bets that newPlan writes in a fresh world, and checks it ends in
// one notification per label, every bet settled: a create that landed
// (the "commit" faults) never sent again, one that did not sent once more.
func runCreateFaults(t *testing.T, faults []createFault, bets int, newPlan func(w *world) *plan.Plan) {
	for _, tt := range faults {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			p := newPlan(w)
			f := tt.fault
			f.Method, f.Path, f.Times = "POST", "/notification/create/", 1
			w.svc.InjectFault(f)
			c := w.client(apiclient.WithTimeout(300 * time.Millisecond))
			res, err := engine.Run(context.Background(), p, w.options(c))
			require.NoError(t, err)
			assert.Equal(t, bets, w.svc.NotificationCount(), "exactly one notification per label")
			assertOnePerLabel(t, w.svc, res)
			require.Len(t, res.Bets, bets)
			for _, b := range res.Bets {
				assert.Equal(t, engine.StatusSettled, b.Status, "bet %s: %s %s", b.ID, b.Reason, b.Error)
			}
			creates := 0
			for _, r := range w.svc.Requests() {
				if r.Method == "POST" && r.Path == "/notification/create/" {
					creates++
				}
			}
			if strings.HasPrefix(tt.name, "commit") {
				assert.Equal(t, bets, creates, "a create that landed is never sent again")
			} else {
				assert.Equal(t, bets+1, creates, "a create that did not land is sent once more")
			}
		})
	}
}

func TestPendingJournalEntryIsLookedUpFirst(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	// A crash between the POST and the journal write: the create landed,
	// the journal says only `creating`.
	w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenStatus, Status: 500, Times: 1})
	ctx, cancel := context.WithCancel(context.Background())
	opts := w.options(w.client())
	opts.AmbiguousGrace = time.Hour // the first run is cancelled inside its grace window
	opts.LookupInterval = time.Hour
	opts.Log = cancelOnWrite{cancel, "looking the label up"}
	_, err := engine.Run(ctx, p, opts)
	require.ErrorIs(t, err, context.Canceled)

	opts = w.options(w.client())
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount())
	assertOnePerLabel(t, w.svc, res)
}

// cancelOnWrite cancels a context when a log line contains a phrase.
type cancelOnWrite struct {
	cancel context.CancelFunc
	phrase string
}

func (c cancelOnWrite) Write(b []byte) (int, error) {
	if strings.Contains(string(b), c.phrase) {
		c.cancel()
	}
	return len(b), nil
}

func TestLabelIsDeterministicAndBounded(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 21, 14, 5, 0, 0, time.FixedZone("", 11*3600))
	r := engine.RaceInfo{Venue: "Flemington", Code: "Galloping", EventNumber: 4, Start: start}
	l1 := engine.Label("saturday-flemington", "flem4-no3", r)
	assert.Equal(t, l1, engine.Label("saturday-flemington", "flem4-no3", r))
	r2 := r
	r2.Venue = "FLEMINGTON "
	assert.Equal(t, l1, engine.Label("saturday-flemington", "flem4-no3", r2), "venue spelling does not change the label")
	r3 := r
	r3.EventNumber = 5
	assert.NotEqual(t, l1, engine.Label("saturday-flemington", "flem4-no3", r3))
	long := engine.Label(strings.Repeat("a", 60), strings.Repeat("b", 80), r)
	assert.LessOrEqual(t, len(long), 64)
	assert.NotEqual(t, long, engine.Label(strings.Repeat("a", 60), strings.Repeat("b", 79)+"c", r))
	assert.True(t, strings.HasPrefix(l1, engine.LabelPrefix("saturday-flemington")))
}

// okCreates answers every create with a bare 200 "OK" (one client version
// saw that body), after passing it to the service when store is set.
type okCreates struct {
	svc     http.Handler
	store   bool
	creates *atomic.Int64 // creates seen, stored or not
}

func (h okCreates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/notification/create/" {
		h.svc.ServeHTTP(w, r)
		return
	}
	h.creates.Add(1)
	if h.store {
		h.svc.ServeHTTP(httptest.NewRecorder(), r)
	}
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "OK")
}

func TestCreateAnsweredWithoutAnID(t *testing.T) {
	t.Parallel()
	for _, store := range []bool{true, false} {
		t.Run(fmt.Sprintf("stored=%v", store), func(t *testing.T) {
			w := newWorld(t)
			creates := &atomic.Int64{}
			w.srv.Config.Handler = okCreates{svc: w.svc, store: store, creates: creates}
			p := w.twoBetPlan("")
			opts := w.options(w.client())
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			for _, b := range res.Bets {
				if store {
					assert.Equal(t, engine.StatusSettled, b.Status, "found by its label: %s", b.Reason)
					assert.NotZero(t, b.NotificationID)
				} else {
					assert.Equal(t, engine.StatusFailed, b.Status)
					assert.Contains(t, b.Error, "not created again")
				}
			}
			want := 0
			if store {
				want = 2
			}
			assert.Equal(t, want, w.svc.NotificationCount())
			assert.Equal(t, int64(2), creates.Load(), "one create per bet")
			// The service said yes: a re-run never sends those creates again.
			_, err = engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			assert.Equal(t, int64(2), creates.Load(), "no create is sent again")
		})
	}
}
