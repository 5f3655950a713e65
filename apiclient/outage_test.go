package apiclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
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

// https to a service that answers plain http fails its handshake the same
// way every time: the read gives up at once, not after minutes of retries.
func TestTLSToPlainHTTPIsNotRetried(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `[]`) }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c, err := apiclient.New(strings.Replace(srv.URL, "http://", "https://", 1), apiclient.WithToken("t"))
	must(t, err)
	var retries int
	c.OnRetry(func(apiclient.Retry) { mu.Lock(); retries++; mu.Unlock() })
	_, err = c.ListRaces(context.Background())
	if err == nil {
		t.Fatal("https to a plain http service answered")
	}
	mu.Lock()
	defer mu.Unlock()
	eq(t, "retries", retries, 0)
	eq(t, "connections", conns, 1)
}

// An outage ends, once, when the service answers again, whichever call it
// answers: OnRecovered hears how many attempts failed since when. A call
// that gave up leaves the outage open for the next one to end.
func TestRecoveryEndsTheOutageOnce(t *testing.T) {
	var down sync.Mutex
	failing := 5
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		down.Lock()
		defer down.Unlock()
		if failing > 0 {
			failing--
			writeJSON(w, 503, `{"detail":"down"}`)
			return
		}
		writeJSON(w, 200, `[]`)
	})
	c := f.client(t, apiclient.WithMaxRetries(2))
	var recoveries []apiclient.Recovery
	c.OnRecovered(func(r apiclient.Recovery) { recoveries = append(recoveries, r) })
	before := time.Now()
	_, err := c.ListSessions(context.Background())
	var giveUp *apiclient.GiveUpError
	if !errors.As(err, &giveUp) {
		t.Fatalf("err = %v, want a GiveUpError after 3 attempts", err)
	}
	eq(t, "recoveries while down", len(recoveries), 0)
	if _, err := c.ListRaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	eq(t, "recoveries", len(recoveries), 1)
	r := recoveries[0]
	eq(t, "path", r.Method+" "+r.Path, "GET /competition/namecodes/")
	eq(t, "failed", r.Failed, 5)
	if r.Since.Before(before) || r.Since.After(time.Now()) {
		t.Errorf("since = %v, want the first failed attempt's start", r.Since)
	}
	if _, err := c.ListRaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	eq(t, "recoveries after a plain answer", len(recoveries), 1)
}

// An attempt that gets no answer within the timeout says so, not the
// transport's words.
func TestRetrySaysNoAnswerWithin(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			time.Sleep(300 * time.Millisecond)
		}
		writeJSON(w, 200, `[]`)
	})
	c := f.client(t, apiclient.WithTimeout(100*time.Millisecond))
	var seen []apiclient.Retry
	c.OnRetry(func(r apiclient.Retry) { seen = append(seen, r) })
	if _, err := c.ListSessions(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 {
		t.Fatalf("retries = %v, want 1", seen)
	}
	eq(t, "reason", seen[0].Reason, "no answer within 100ms")
	if !strings.HasPrefix(seen[0].NextTry(), "in ") {
		t.Errorf("next try = %q", seen[0].NextTry())
	}
}
