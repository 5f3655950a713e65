package apiclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// roundTripFunc is a transport made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var errHeldBack = errors.New("held back")

// A transport wrapper sees every request of the client and may hold one
// back: a create it refuses is never sent, and says so (not in doubt).
func TestTransportWrapperHoldsRequestsBack(t *testing.T) {
	var reached, seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[]`))
	}))
	defer srv.Close()
	var hold atomic.Bool
	c, err := apiclient.New(srv.URL, apiclient.WithToken("t"), apiclient.WithRateLimit(0, 1), apiclient.WithTokenCache(""),
		apiclient.WithTransportWrapper(func(next http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				seen.Add(1)
				if hold.Load() {
					return nil, errHeldBack
				}
				return next.RoundTrip(r)
			})
		}))
	must(t, err)
	_, err = c.ListRaces(context.Background())
	must(t, err)
	eq(t, "requests seen", seen.Load(), 1)
	eq(t, "requests reached", reached.Load(), 1)

	hold.Store(true)
	_, err = c.CreateNotification(context.Background(), &apiclient.CreateNotificationRequest{Label: "bp:x:y:1"})
	if err == nil {
		t.Fatal("a create held back returned no error")
	}
	eq(t, "in doubt", apiclient.IsAmbiguous(err), false)
	var te *apiclient.TransportError
	eq(t, "a transport error", errors.As(err, &te), true)
	eq(t, "requests reached", reached.Load(), 1)
}
