package serve

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Gate is the one place every request to the service passes through
// (apiclient.WithTransportWrapper): it holds a request back unless this
// process leads the account with more than the margin of its lease left,
// bounds the request by the lease's end, and counts what the service
// answered.
type Gate struct {
	Lead    *Leadership
	Metrics *Metrics
	// BasePath is the base URL's path, cut from a request's path to name
	// its endpoint.
	BasePath string

	mu       sync.Mutex
	answered time.Time // the service's last answer (any status)
	failed   string    // why the last request got no answer, "" once one did
}

// Wrap is the gate around next.
func (g *Gate) Wrap(next http.RoundTripper) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		endpoint := g.endpoint(r)
		until, ok := g.Lead.Sending()
		if !ok {
			g.Metrics.requestHeld()
			return nil, ErrNotLeading
		}
		ctx, cancel := context.WithDeadline(r.Context(), until)
		resp, err := next.RoundTrip(r.WithContext(ctx))
		if err != nil {
			cancel()
			g.Metrics.request(endpoint, "error")
			g.note(time.Time{}, err.Error())
			return nil, err
		}
		g.Metrics.request(endpoint, strconv.Itoa(resp.StatusCode))
		g.note(time.Now(), "")
		// The body is read after RoundTrip returns: the deadline holds
		// until it is closed.
		resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	})
}

func (g *Gate) note(at time.Time, failed string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !at.IsZero() {
		g.answered, g.failed = at, ""
	} else {
		g.failed = failed
	}
}

// Reachable says when the service last answered, and why the last
// request got no answer ("" when it did).
func (g *Gate) Reachable() (answered time.Time, failed string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.answered, g.failed
}

// digits is a path segment that is an id.
var digits = regexp.MustCompile(`^[0-9]+$`)

// endpoint names a request as /metrics labels it: its method and its
// path below the base URL, ids as {id}, without the query.
func (g *Gate) endpoint(r *http.Request) string {
	p := strings.TrimPrefix(r.URL.Path, g.BasePath)
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if digits.MatchString(s) {
			parts[i] = "{id}"
		}
	}
	return r.Method + " " + strings.Join(parts, "/")
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
