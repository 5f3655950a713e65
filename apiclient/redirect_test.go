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

func newTestClient(t *testing.T, url string, opts ...apiclient.Option) *apiclient.Client {
	t.Helper()
	base := []apiclient.Option{apiclient.WithToken("tok-secret-1234"), apiclient.WithRateLimit(0, 1), apiclient.WithTokenCache("")}
	c, err := apiclient.New(url, append(base, opts...)...)
	must(t, err)
	return c
}

func TestRedirectPolicy(t *testing.T) {
	var creates, hops atomic.Int32
	var other atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Store(true)
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notification/create/":
			creates.Add(1)
			http.Redirect(w, r, "/notification/create/", http.StatusPermanentRedirect)
		case "/bet/codes/":
			http.Redirect(w, r, "/moved/codes/", http.StatusFound)
		case "/moved/codes/":
			w.Write([]byte(`["WIN"]`))
		case "/bet/markets/":
			hops.Add(1)
			http.Redirect(w, r, "/bet/markets/", http.StatusFound)
		case "/bookieaccount/":
			http.Redirect(w, r, elsewhere.URL+"/bookieaccount/?x=1", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	ctx := context.Background()

	_, err := c.CreateNotification(ctx, &apiclient.CreateNotificationRequest{Type: "Fixed Wager", Label: "l"})
	eq(t, "create is ambiguous", apiclient.IsAmbiguous(err), true)
	eq(t, "creates sent", creates.Load(), int32(1))
	contains(t, "create error", err.Error(), "308 Permanent Redirect")

	codes, err := c.BetCodes(ctx)
	must(t, err)
	eq(t, "codes", strings.Join(codes, ","), "WIN")

	_, err = c.BetMarkets(ctx)
	var re *apiclient.RedirectError
	eq(t, "endless redirect is a RedirectError", errors.As(err, &re), true)
	eq(t, "hops", hops.Load(), int32(4))

	_, err = c.ListSessions(ctx)
	eq(t, "cross-origin is a RedirectError", errors.As(err, &re), true)
	eq(t, "other origin reached", other.Load(), false)
	contains(t, "cross-origin error", err.Error(), "redirected GET /bookieaccount/ to "+elsewhere.URL+"/bookieaccount/; not followed: the token is only sent to "+srv.URL)
	if strings.Contains(err.Error(), "x=1") {
		t.Errorf("the error quotes the redirect's query: %v", err)
	}
}

// The caller's own http.Client is not changed by the client's redirect
// policy, and the policy applies to it too.
func TestRedirectPolicyWithCallersHTTPClient(t *testing.T) {
	var plainAuth atomic.Bool
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainAuth.Store(r.Header.Get("Authorization") != "")
	}))
	defer plain.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	}))
	defer tls.Close()
	hc := tls.Client()
	c := newTestClient(t, tls.URL, apiclient.WithHTTPClient(hc))
	_, err := c.ListSessions(context.Background())
	contains(t, "error", err.Error(), "to "+plain.URL+"/bookieaccount/; not followed")
	eq(t, "token sent in clear", plainAuth.Load(), false)
	eq(t, "caller's CheckRedirect untouched", hc.CheckRedirect == nil, true)
}
