package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// countingLimiter counts the waits and refuses once it has no more.
type countingLimiter struct {
	waits atomic.Int32
	allow int32
}

var errBudgetGone = errors.New("budget gone")

func (l *countingLimiter) Wait(ctx context.Context) error {
	if l.waits.Add(1) > l.allow {
		return errBudgetGone
	}
	return nil
}

// Every attempt waits on an external limiter, retries included; a limiter
// that refuses stops the call before anything is sent.
func TestWithLimiter(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`["WIN"]`))
	}))
	defer srv.Close()
	lim := &countingLimiter{allow: 2}
	c := newTestClient(t, srv.URL, apiclient.WithLimiter(lim))
	get := func() error {
		req, err := c.NewRequest(context.Background(), http.MethodGet, "/bet/codes/", nil)
		must(t, err)
		return c.Do(req, nil)
	}
	must(t, get())
	eq(t, "waits for a call repeated once", lim.waits.Load(), int32(2))
	eq(t, "requests sent", hits.Load(), int32(2))

	err := get()
	if !errors.Is(err, errBudgetGone) || !strings.Contains(err.Error(), "request budget") {
		t.Fatalf("err = %v, want the budget's error", err)
	}
	eq(t, "requests sent after a refusal", hits.Load(), int32(2))
}
