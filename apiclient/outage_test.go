package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// A read rides out a short outage (more 429s in a row than the old four
// retries), honouring Retry-After, and each wait is told to OnRetry.
func TestSafeCallRidesOutShortOutage(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 5 {
			w.Header().Set("Retry-After", "0.05")
			writeJSON(w, 429, `{"detail":"Request was throttled. Expected available in 1 second."}`)
			return
		}
		writeJSON(w, 200, `[]`)
	})
	c := f.client(t)
	var mu sync.Mutex
	var seen []apiclient.Retry
	c.OnRetry(func(r apiclient.Retry) { mu.Lock(); seen = append(seen, r); mu.Unlock() })
	_, err := c.ListRaces(context.Background())
	must(t, err)
	eq(t, "requests", f.count("GET", "/competition/namecodes/"), 6)
	eq(t, "retries told", len(seen), 5)
	eq(t, "first retry", seen[0].String(), "GET /competition/namecodes/: rate limited (429); trying again in 50ms, as the service asked (attempt 2)")
	eq(t, "wait", seen[4].Wait, 50*time.Millisecond)
}

// A Retry-After longer than the budget is not waited out: the call gives
// up at once and says so, still a rate-limit error for errors.As.
func TestLongRetryAfterGivesUpAtOnce(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "10800")
		writeJSON(w, 429, `{"detail":"Request was throttled."}`)
	})
	c := f.client(t)
	start := time.Now()
	_, err := c.ListRaces(context.Background())
	if time.Since(start) > time.Second {
		t.Errorf("took %s to give up", time.Since(start))
	}
	eq(t, "requests", f.count("GET", "/competition/namecodes/"), 1)
	eq(t, "IsRateLimited", apiclient.IsRateLimited(err), true)
	var g *apiclient.GiveUpError
	eq(t, "GiveUpError", errors.As(err, &g), true)
	eq(t, "error", err.Error(), "GET /competition/namecodes/: 429 Too Many Requests: Request was throttled; not waiting: the service asked for 3h0m0s (Retry-After), more than the 1m0s an outage is ridden out")
	var e *apiclient.Error
	errors.As(err, &e)
	eq(t, "Error.RetryAfter (capped)", e.RetryAfter, 2*time.Minute)
}

// An outage longer than the budget ends the call when the next wait would
// pass it, with the count of attempts; a create is never repeated at all.
func TestOutageLongerThanBudgetGivesUp(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 503, `{"error":"down"}`)
	})
	c := f.client(t, apiclient.WithRetryBudget(700*time.Millisecond))
	start := time.Now()
	_, err := c.ListRaces(context.Background())
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("gave up after %s, past the 700ms budget", d)
	}
	eq(t, "IsServerError", apiclient.IsServerError(err), true)
	contains(t, "error", err.Error(), "GET /competition/namecodes/: 503 Service Unavailable: down; gave up after ")
	if n := f.count("GET", "/competition/namecodes/"); n < 3 {
		t.Errorf("%d requests: the outage was not ridden out", n)
	}

	_, err = c.CreateNotification(context.Background(), createReq())
	eq(t, "create requests", f.count("POST", "/notification/create/"), 1)
	eq(t, "create is ambiguous", apiclient.IsAmbiguous(err), true)
}

// An https URL of a service that answers plain http is a wrong scheme,
// not an outage: the call fails at once, never repeated for the budget.
func TestPlainHTTPBehindHTTPSIsNotRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `[]`)
	}))
	defer srv.Close()
	c, err := apiclient.New("https://"+srv.Listener.Addr().String(), apiclient.WithToken("t"))
	must(t, err)
	retries := 0
	c.OnRetry(func(apiclient.Retry) { retries++ })
	_, err = c.ListRaces(context.Background())
	if err == nil {
		t.Fatal("a plain http answer to https was taken")
	}
	eq(t, "retries", retries, 0)
	eq(t, "requests sent", c.Requests(), int64(1))
}
