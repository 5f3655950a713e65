package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// DialFunc opens a connection to addr (host:port). Tests replace it to see
// where betplan would connect, without connecting.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// NewClient returns the HTTP client alerts and heartbeats are sent with.
// It follows no redirect: a 3xx answer is the answer (the target read the
// body; following it would send the alert again, or elsewhere with the
// target's secret path in a Referer). It speaks plain http only to
// loopback, checked on the URL and again at dial time against the
// addresses the host resolves to. dial nil is a net.Dialer.
func NewClient(dial DialFunc) *http.Client {
	if dial == nil {
		dial = (&net.Dialer{Timeout: AttemptTimeout, KeepAlive: -1}).DialContext
	}
	secure := baseTransport.Clone()
	secure.DialContext = dial
	// A fresh connection for each alert: a pooled one the receiver closed
	// while idle fails like an answer lost after the body went out, which
	// would make an alert that never left an unknown outcome.
	secure.DisableKeepAlives = true
	plain := secure.Clone()
	plain.Proxy = nil // a proxy off this machine would carry the body in the clear
	plain.DialContext = loopbackOnly(dial)
	return &http.Client{
		Transport: &guarded{secure: secure, plain: plain},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// baseTransport is the process's default transport as it was before
// holdLibraries replaced it.
var baseTransport = http.DefaultTransport.(*http.Transport).Clone()

// defaultClient is NewClient(nil), shared: its connections are reused.
var defaultClient = NewClient(nil)

// errPlainOffLoopback is a plain-http request to a host off this machine:
// refused before anything is dialled.
var errPlainOffLoopback = errors.New("plain http is only sent to loopback (use https)")

// guarded sends https through secure and http through plain, which dials
// loopback only; it never sends a Referer.
type guarded struct{ secure, plain *http.Transport }

func (g *guarded) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Referer") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("Referer")
	}
	switch strings.ToLower(req.URL.Scheme) {
	case "https":
		return g.secure.RoundTrip(req)
	case "http":
		if !loopbackName(req.URL.Hostname()) {
			closeBody(req)
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errPlainOffLoopback}
		}
		return g.plain.RoundTrip(req)
	}
	closeBody(req)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("scheme %q is not sent", req.URL.Scheme)}
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// loopbackOnly dials addr only when every address its host resolves to is
// loopback; it dials the address it checked, so a second resolution cannot
// point elsewhere.
func loopbackOnly(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
		ips := []net.IP{net.ParseIP(host)}
		if ips[0] == nil {
			addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
			if err != nil {
				return nil, err
			}
			ips = ips[:0]
			for _, a := range addrs {
				ips = append(ips, a.IP)
			}
		}
		if len(ips) == 0 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errPlainOffLoopback}
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				return nil, &net.OpError{Op: "dial", Net: network, Err: errPlainOffLoopback}
			}
		}
		return dial(ctx, network, net.JoinHostPort(ips[0].String(), port))
	}
}

// loopbackName reports whether host names this machine: a loopback
// address, or localhost (whose addresses the dial checks).
func loopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// origin is u's scheme and host, the most a message may show of a target.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + u.Host
}

// errRedirected is a redirect answer to a request the notification library
// made: turned into an error, so whatever client it built never follows.
var errRedirected = errors.New("the target redirects")

var holdOnce sync.Once

// holdLibraries makes the process's default transport, which the clients
// the notification library builds send through, hold to the alerts' rules:
// plain http only to loopback (checked at dial time too), no Referer, and a
// redirect answer turned into an error. betplan's own service client has a
// transport of its own (apiclient). The schemes whose library builds its
// own transport are refused at validate (plan.CheckNotifyURL).
func holdLibraries() {
	holdOnce.Do(func() {
		secure := baseTransport.Clone()
		plain := secure.Clone()
		plain.Proxy = nil
		plain.DialContext = loopbackOnly((&net.Dialer{Timeout: AttemptTimeout}).DialContext)
		http.DefaultTransport = noRedirects{&guarded{secure: secure, plain: plain}}
	})
}

// noRedirects ends a request at a redirect answer, with an error.
type noRedirects struct{ rt http.RoundTripper }

func (n noRedirects) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := n.rt.RoundTrip(req)
	if err == nil && resp.StatusCode/100 == 3 {
		resp.Body.Close()
		return nil, fmt.Errorf("%w (%s)", errRedirected, origin(req.URL))
	}
	return resp, err
}
