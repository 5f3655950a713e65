// Package apiclient is the typed HTTP client of the Betting Automation
// Service. It is the only place in betplan that speaks HTTP: it owns
// authentication, rate limiting, the single retry decision and the lenient
// decoding of the service's inconsistent wire shapes.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

const (
	defaultTimeout    = 30 * time.Second
	defaultRPS        = 4
	defaultBurst      = 1
	defaultMaxRetries = 10
	maxBodyBytes      = 32 << 20
)

// Client talks to one Betting Automation Service. It is safe for
// concurrent use.
type Client struct {
	base       *url.URL
	baseStr    string // scheme://host/path without a trailing slash
	hc         *http.Client
	timeout    time.Duration
	userAgent  string
	limiter    *rate.Limiter
	shared     Limiter // WithLimiter: a budget shared beyond this process
	logger     *slog.Logger
	maxRetries int
	// retryBudget bounds how long one call is repeated (WithRetryBudget).
	retryBudget time.Duration
	onRetry     atomic.Pointer[func(Retry)]
	now         func() time.Time
	insecure    bool
	onDate      func(serverDate, received time.Time)
	wrap        func(http.RoundTripper) http.RoundTripper // WithTransportWrapper

	email, password string
	cachePath       string

	races    raceEntries // ListRaces
	entries  entryCache  // pages of notifications and bet records
	requests atomic.Int64
	answered atomic.Bool // some request got a 2xx answer
	lastDate atomic.Pointer[serverDate]
	// simulated is set once a response says the service is simulated.
	simulated atomic.Bool
	// outage is the failed attempts repeated since the service last
	// answered (OnRecovered).
	outage outage

	// auth guards the token and serialises logins, so concurrent callers
	// that meet the same 401 share one re-login.
	auth      sync.Mutex
	token     string
	loginTime time.Time // original login of token; zero when unknown
	tokenGen  uint64    // bumped whenever token changes
	tokenInit bool      // the cache/login decision was made

	rng randSource

	secretsMu sync.Mutex
	secrets   []string // tokens and password, redacted from errors and logs

	prealertPath atomic.Pointer[string] // the pre-alert path that answered, once one did
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client used for every request. The client's
// own Timeout, if any, applies on top of WithTimeout. Its CheckRedirect is
// replaced, on a copy, by the client's redirect policy (see checkRedirect).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithTransportWrapper puts wrap around the transport every request of
// the client goes through (logins, retries, look-ups, creates, polls),
// so a caller can hold each request back or bound it, and count what the
// service answered, in one place. A request wrap refuses is an error of
// the transport, sent nowhere.
func WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return func(c *Client) { c.wrap = wrap }
}

// WithTimeout bounds one HTTP call (one attempt, body included); default
// 30s. d <= 0 leaves calls bounded only by their context.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithUserAgent sets the User-Agent header; default "betplan/<version>".
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRateLimit sets the client-wide limit on HTTP requests: every request
// counts (logins, retries, look-ups, creates, polls). rps <= 0 removes the
// limit. Default 4 requests per second, burst 1.
func WithRateLimit(rps float64, burst int) Option {
	return func(c *Client) {
		if rps <= 0 {
			c.limiter = nil
			return
		}
		if burst < 1 {
			burst = 1
		}
		c.limiter = rate.NewLimiter(rate.Limit(rps), burst)
	}
}

// Limiter is a request budget kept outside the client, such as one that
// every process of an account shares: Wait returns when one request may
// be sent, or an error (ctx's, when it is done) when none may.
type Limiter interface {
	Wait(ctx context.Context) error
}

// WithLimiter makes every request (logins, retries, look-ups, creates,
// polls) wait on l too, after the client's own rate limit (WithRateLimit).
// nil removes it.
func WithLimiter(l Limiter) Option { return func(c *Client) { c.shared = l } }

// WithLogger sets the logger for debug lines (method, path, status,
// duration). Tokens, passwords and the Authorization header are never
// logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithToken sets the API token to send.
func WithToken(token string) Option { return func(c *Client) { c.token = strings.TrimSpace(token) } }

// WithCredentials sets the e-mail and password used to log in when no token
// is set, and to log in again when the service answers 401.
func WithCredentials(email, password string) Option {
	return func(c *Client) { c.email, c.password = email, password }
}

// WithTokenCache sets the file that keeps tokens obtained by login, keyed by
// base URL and e-mail, with the original login time. "" disables the cache.
// Default: betplan/tokens.json under os.UserConfigDir().
func WithTokenCache(path string) Option { return func(c *Client) { c.cachePath = path } }

// WithInsecure allows plain http:// to a host that is not loopback.
func WithInsecure() Option { return func(c *Client) { c.insecure = true } }

// WithMaxRetries sets how many times a retryable call is repeated at most;
// default 10. WithRetryBudget bounds the time those repeats may take.
func WithMaxRetries(n int) Option {
	return func(c *Client) {
		if n < 0 {
			n = 0
		}
		c.maxRetries = n
	}
}

// WithRetryBudget bounds how long the client rides out a short outage on
// one call (429s, 5xx answers and lost connections of calls safe to
// repeat): it gives up at once when the service's Retry-After, or the next
// backoff, would end past d since the first attempt. Default one minute.
func WithRetryBudget(d time.Duration) Option {
	return func(c *Client) { c.retryBudget = max(d, 0) }
}

// OnRetry sets f to be told of every failed attempt the client is about to
// repeat, before it waits, so a caller can say in its log why a call is
// slow. f may be called from several goroutines at once; nil stops the
// calls. It may be set while the client is in use.
func (c *Client) OnRetry(f func(Retry)) {
	if f == nil {
		c.onRetry.Store(nil)
		return
	}
	c.onRetry.Store(&f)
}

// retryHookKey carries a retry hook in a context (WithRetryHook).
type retryHookKey struct{}

// WithRetryHook returns a copy of ctx whose calls tell f, rather than the
// client's OnRetry, of every failed attempt they are about to repeat: a
// caller that shares one client among several tasks (the plans of one
// run) says which task a slow call is about.
func WithRetryHook(ctx context.Context, f func(Retry)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, retryHookKey{}, f)
}

// retryHook is the hook a call's ctx carries, else the client's.
func (c *Client) retryHook(ctx context.Context) func(Retry) {
	if f, ok := ctx.Value(retryHookKey{}).(func(Retry)); ok {
		return f
	}
	if f := c.onRetry.Load(); f != nil {
		return *f
	}
	return nil
}

// WithDateObserver calls f with the Date header of every answer (the
// service's clock, to the second) and the local time it arrived, so a
// caller can follow the service's time.
func WithDateObserver(f func(serverDate, received time.Time)) Option {
	return func(c *Client) { c.onDate = f }
}

// WithNow sets the clock used for token age (tests, the simulator's fast
// clock).
func WithNow(now func() time.Time) Option {
	return func(c *Client) {
		if now != nil {
			c.now = now
		}
	}
}

// serviceTransport is the service's own transport, taken before anything
// runs: the process's default transport is the alert libraries', which
// betplan holds to the alerts' rules (notify), and the service's redirect
// policy is the client's own.
var serviceTransport = http.DefaultTransport.(*http.Transport).Clone()

// New returns a client for the service at baseURL. It refuses a URL that is
// not http(s), carries credentials, or uses plain http:// to a host that is
// not loopback (unless WithInsecure).
func New(baseURL string, opts ...Option) (*Client, error) {
	c := &Client{
		hc:          &http.Client{Transport: serviceTransport},
		timeout:     defaultTimeout,
		userAgent:   defaultUserAgent(),
		limiter:     rate.NewLimiter(defaultRPS, defaultBurst),
		logger:      slog.New(slog.DiscardHandler),
		maxRetries:  defaultMaxRetries,
		retryBudget: defaultRetryBudget,
		now:         time.Now,
		cachePath:   defaultTokenCache(),
		rng:         newRand(),
	}
	for _, o := range opts {
		o(c)
	}
	u, err := parseBaseURL(baseURL, c.insecure)
	if err != nil {
		return nil, err
	}
	c.base = u
	if c.wrap != nil {
		hc := *c.hc
		if hc.Transport == nil {
			hc.Transport = serviceTransport
		}
		hc.Transport = c.wrap(hc.Transport)
		c.hc = &hc
	}
	c.hc = c.withRedirectPolicy(c.hc)
	c.addSecret(c.token)
	c.addSecret(c.password)
	c.baseStr = u.String()
	if c.token != "" {
		c.tokenInit = true
	}
	return c, nil
}

// NormalizeBaseURL is baseURL in the form every client uses (the host in
// lower case, no default port, no query, fragment or trailing slash): the
// form reports, saved plans and the token cache name the service by. Locks
// and journals are keyed by ServiceIdentity, which also takes every name
// of this machine as one. It refuses what New refuses, except that plain
// http:// is allowed anywhere.
func NormalizeBaseURL(baseURL string) (string, error) {
	u, err := parseBaseURL(baseURL, true)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// ErrPlainHTTP is a plain http:// base URL to a host that is not loopback,
// refused unless the client was built WithInsecure.
var ErrPlainHTTP = errors.New("plain http:// is only allowed to a loopback host; use https://")

// ErrNoScheme is a base URL written without http:// or https://.
var ErrNoScheme = errors.New("no scheme: write it with https:// (or http:// for a service on this machine)")

func parseBaseURL(baseURL string, insecure bool) (*url.URL, error) {
	baseURL = strings.TrimSpace(baseURL)
	if !strings.Contains(baseURL, "://") {
		// "127.0.0.1:8080" would parse as a scheme and an opaque part.
		shown := baseURL
		if _, host, ok := strings.Cut(shown, "@"); ok {
			shown = host // never echo what may be credentials
		}
		return nil, fmt.Errorf("base URL %q: %w", shown, ErrNoScheme)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL: %w", stripURLError(err))
	}
	if u.User != nil {
		return nil, fmt.Errorf("base URL %s: must not carry credentials (use BETPLAN_EMAIL/BETPLAN_PASSWORD or a token)", u.Redacted())
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !insecure && !isLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("base URL %s: %w", u.Redacted(), ErrPlainHTTP)
		}
	default:
		return nil, fmt.Errorf("base URL %q: want an http:// or https:// URL", u.Redacted())
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q: no host", u.Redacted())
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.Host = normalHost(u)
	return u, nil
}

// normalHost is u's host in lower case (names are not case-sensitive),
// without the scheme's default port (":443" for https, ":80" for http):
// one spelling for one service wherever a base URL names it.
func normalHost(u *url.URL) string {
	if strings.Contains(u.Host, "%") {
		return u.Host // an IPv6 zone, kept as written
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if u.Scheme == "https" && port == "443" || u.Scheme == "http" && port == "80" {
		port = ""
	}
	if port != "" {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

// stripURLError drops *url.Error's text, which may quote the whole URL.
func stripURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// IsLoopbackURL reports whether baseURL names a service on this machine,
// by the rule that allows plain http:// there.
func IsLoopbackURL(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	return err == nil && isLoopbackHost(u.Hostname())
}

// IsLoopbackAddr reports whether a listen address host:port is on this
// machine only: its host is "localhost" (in any case) or a loopback IP. An
// empty host (every interface) or an address that is not host:port is not.
// The simulated service and serve's unauthenticated endpoints listen only
// where it says.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isLoopbackHost reports whether a base URL's host is this machine, where
// plain http:// is allowed. Unlike IsLoopbackAddr, which decides where a
// listener may serve, it also takes *.localhost names (RFC 6761).
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func defaultUserAgent() string {
	v := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return "betplan/" + v
}

func defaultTokenCache() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "betplan", "tokens.json")
}

// BaseURL returns the service's base URL, without credentials or a
// trailing slash.
func (c *Client) BaseURL() string { return c.baseStr }

// Requests returns how many HTTP requests this client has sent, retries and
// logins included.
func (c *Client) Requests() int64 { return c.requests.Load() }

// Answered reports whether the service has answered any request of this
// client with success (2xx): until then, betplan may not be talking to a
// betting service at all.
func (c *Client) Answered() bool { return c.answered.Load() }

// NewRequest builds a request for path (relative to the base URL, starting
// with "/", optionally with a query). A non-nil body is sent as JSON.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode body: %w", method, pathOnly(path), err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseStr+path, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, pathOnly(path), stripURLError(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

func pathOnly(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return p[:i]
	}
	return p
}

// apiPath is the request's path relative to the base URL, without query:
// the form used in errors and logs.
func (c *Client) apiPath(req *http.Request) string {
	p := req.URL.Path
	if bp := c.base.Path; bp != "" && strings.HasPrefix(p, bp) {
		p = p[len(bp):]
	}
	if p == "" {
		p = "/"
	}
	return p
}

// Do sends req, applying authentication, the rate limit and the retry
// policy, and decodes a 2xx body into v: nil discards it, *[]byte gets the
// raw bytes, an io.Writer gets a copy, anything else is JSON-decoded.
// A non-2xx answer is an *Error; a redirect not followed is a
// *RedirectError; a create whose outcome is unknown (a redirect answer
// included) is an *AmbiguousError; a call repeated until its bound is a
// *GiveUpError around the last of these; when ctx is done the error
// matches ctx.Err(). Every text of the body is cleaned of control
// characters and escape sequences first.
func (c *Client) Do(req *http.Request, v any) error {
	body, err := c.do(req)
	if err != nil {
		return err
	}
	return c.decode(req, body, v)
}

// attemptResult is what one HTTP exchange gave.
type attemptResult struct {
	status     int
	header     http.Header
	body       []byte
	err        error // transport error (status 0)
	sent       bool  // the request may have reached the server
	dial       bool  // the error happened before anything was sent
	timedOut   bool  // WithTimeout ran out
	retryAfter time.Duration
	over       int64 // the most read of a longer body: body is its start
}

func (c *Client) attempt(ctx context.Context, req *http.Request, class retryClass, path string, needAuth bool) attemptResult {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	defer cancel()
	var gotConn atomic.Bool
	if class != retrySafe {
		actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) { gotConn.Store(true) },
		})
	}
	r := req.Clone(actx)
	if req.Body != nil && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return attemptResult{err: err, dial: true}
		}
		r.Body = b
	}
	if needAuth {
		if tok := c.currentToken(); tok != "" {
			r.Header.Set("Authorization", "Token "+tok)
		}
	}
	start := time.Now()
	c.requests.Add(1)
	resp, err := c.hc.Do(r)
	if err != nil {
		res := attemptResult{err: stripURLError(err)}
		res.dial = isDialError(err) || (class != retrySafe && !gotConn.Load())
		res.sent = !res.dial
		res.timedOut = ctx.Err() == nil && actx.Err() != nil
		c.logger.Debug("apiclient request", "method", req.Method, "path", path, "error", c.redact(res.err.Error()), "duration", time.Since(start))
		return res
	}
	limit, counted := bodyLimit(ctx)
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	resp.Body.Close()
	if counted != nil {
		counted.Add(int64(len(body)))
	}
	c.noteDate(resp.Header)
	res := attemptResult{status: resp.StatusCode, header: resp.Header, sent: true}
	if c.onDate != nil {
		if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
			c.onDate(d, time.Now())
		}
	}
	if rerr != nil {
		// The status arrived but the body did not: treat it as a lost
		// connection.
		res.status, res.err = 0, rerr
		res.timedOut = ctx.Err() == nil && actx.Err() != nil
		c.logger.Debug("apiclient request", "method", req.Method, "path", path, "status", resp.StatusCode, "error", c.redact(rerr.Error()), "duration", time.Since(start))
		return res
	}
	if int64(len(body)) > limit {
		body, res.over = body[:limit], limit
	}
	res.body = body
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		c.answered.Store(true)
	}
	res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	c.logger.Debug("apiclient request", "method", req.Method, "path", path, "status", resp.StatusCode, "duration", time.Since(start))
	return res
}

// isDialError reports whether err happened before the request was sent
// (connection refused, DNS failure, no route).
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func (c *Client) ctxError(req *http.Request, path string, class retryClass, sent bool) error {
	err := fmt.Errorf("%s %s: %w", req.Method, path, req.Context().Err())
	if class != retrySafe && sent {
		return &AmbiguousError{Method: req.Method, Path: path, Err: req.Context().Err()}
	}
	return err
}

// finalError turns the last attempt into the error the caller sees.
func (c *Client) finalError(req *http.Request, path string, class retryClass, res attemptResult) error {
	if res.err != nil {
		err := res.err
		if res.timedOut {
			err = &TimeoutError{After: c.timeout}
		}
		err = redactedError{msg: c.redact(err.Error()), err: err}
		if class != retrySafe && res.sent {
			return &AmbiguousError{Method: req.Method, Path: path, Err: err}
		}
		return &TransportError{Method: req.Method, Path: path, Err: err}
	}
	if isRedirect(res) {
		return c.redirectError(req, path, class, res)
	}
	e := c.newError(req.Method, path, res)
	if class == retryNever && (res.status >= 500 || res.status >= 300 && res.status < 400) {
		// Stored or not, the service did not say: look the label up.
		return &AmbiguousError{Method: req.Method, Path: path, Err: e}
	}
	return e
}
