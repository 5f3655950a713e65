package apiclient

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	backoffBase = 200 * time.Millisecond
	backoffCap  = 10 * time.Second
	// retryAfterCap bounds the Retry-After an *Error reports.
	retryAfterCap = 2 * time.Minute
	// retryAfterMax bounds what is read from Retry-After at all.
	retryAfterMax = 24 * time.Hour
	// defaultRetryBudget is how long the client rides out a short outage
	// (429s, 5xx answers, lost connections) before it gives up on a call.
	defaultRetryBudget = time.Minute
)

// retryClass is how freely a call may be repeated.
type retryClass int

const (
	// retrySafe calls have no effect worth protecting (GETs, bet search,
	// login, token refresh): repeat on connection errors, 429 and 5xx.
	retrySafe retryClass = iota
	// retryRefused calls have an effect (cancel, trigger, control,
	// publish): repeat only when the service certainly did not act on
	// them: a 429, or a connection that failed before anything was sent.
	retryRefused
	// retryNever is POST /notification/create/: the service has no
	// duplicate protection, so only the caller, after looking the label
	// up, may decide to send it again.
	retryNever
)

// safePosts are POSTs that change nothing on the service.
var safePosts = map[string]bool{
	"/bet/search/":            true,
	"/account/login/":         true,
	"/account/refresh_token/": true,
}

// unauthenticated are the endpoints that take no Authorization header.
var unauthenticated = map[string]bool{
	"/account/login/":           true,
	"/account/refresh_token/":   true, // RefreshToken sets the header itself
	"/account/signup/":          true,
	"/account/forgot_password/": true,
	"/account/reset_password/":  true,
}

func needsAuth(path string) bool { return !unauthenticated[path] }

func normPath(p string) string {
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

func classify(req *http.Request) retryClass {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return retrySafe
	}
	p := normPath(req.URL.Path)
	if strings.HasSuffix(p, "/notification/create/") {
		return retryNever
	}
	for sp := range safePosts {
		if strings.HasSuffix(p, sp) {
			return retrySafe
		}
	}
	return retryRefused
}

// retryPlan is shouldRetry's answer: whether the failed attempt is
// repeated, after what wait, and why.
type retryPlan struct {
	retry bool
	wait  time.Duration
	// reason says what went wrong ("rate limited (429)"); when retry is
	// false and the failure was retryable, giveUp says why not.
	reason, giveUp string
}

// shouldRetry is the one place that decides whether a failed attempt is
// repeated, after what wait, and why. attempt counts from 0; elapsed is
// the time since the call's first attempt began. A call is repeated only
// while the service certainly did not act on it (or it has no effect),
// within WithMaxRetries attempts and the WithRetryBudget bound. The wait
// itself ends early when ctx is done (see do).
func (c *Client) shouldRetry(class retryClass, res attemptResult, attempt int, elapsed time.Duration) retryPlan {
	p := retryPlan{reason: c.failureReason(res)}
	if class == retryNever {
		p.giveUp = "a create is never repeated by the client"
		return p
	}
	switch {
	case res.err != nil && tlsRefused(res.err):
		// A handshake that failed (https to a plain http service, a
		// certificate that does not verify) fails the same way every
		// time: waiting it out only delays the message that says why.
		return p
	case res.err != nil && res.dial && !c.answered.Load():
		// Nothing has answered yet (a closed port, an unknown host): no
		// outage to ride out, as no service was ever seen there.
		return p
	case res.err != nil && res.dial:
	case res.err != nil && class == retrySafe:
	case res.status == http.StatusTooManyRequests:
	case res.status >= 500 && res.status != http.StatusNotImplemented && class == retrySafe:
	default:
		return p // not retryable: the error speaks for itself
	}
	if res.retryAfter > 0 && elapsed+res.retryAfter > c.retryBudget {
		p.giveUp = fmt.Sprintf("not waiting: the service asked for %s (Retry-After), more than the %s an outage is ridden out",
			res.retryAfter.Round(time.Second), c.retryBudget)
		return p
	}
	if attempt >= c.maxRetries {
		p.giveUp = attemptsText(attempt+1, elapsed)
		return p
	}
	wait := c.backoff(attempt, res.retryAfter)
	if elapsed+wait > c.retryBudget {
		p.giveUp = attemptsText(attempt+1, elapsed)
		return p
	}
	p.retry, p.wait = true, wait
	return p
}

// tlsRefused reports whether err is a TLS handshake that cannot succeed
// on a repeat: the other end speaks plain http, or its certificate does
// not verify.
func tlsRefused(err error) bool {
	var record tls.RecordHeaderError
	var cert *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	return errors.As(err, &record) || errors.As(err, &cert) || errors.As(err, &authority) || errors.As(err, &hostname) ||
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

func attemptsText(n int, elapsed time.Duration) string {
	if n == 1 {
		return "gave up after 1 attempt"
	}
	return fmt.Sprintf("gave up after %d attempts over %s", n, elapsed.Round(100*time.Millisecond))
}

// failureReason says in a few words what went wrong with an attempt.
func (c *Client) failureReason(res attemptResult) string {
	switch {
	case res.err != nil && res.timedOut:
		return fmt.Sprintf("no answer within %s", c.timeout)
	case res.err != nil && res.dial:
		return "connection failed before the request was sent"
	case res.err != nil:
		return "connection error: " + c.redact(res.err.Error())
	case res.status == http.StatusTooManyRequests:
		return "rate limited (429)"
	}
	if t := http.StatusText(res.status); t != "" {
		return fmt.Sprintf("%d %s", res.status, t)
	}
	return strconv.Itoa(res.status)
}

// backoff is the wait before retry number attempt+1: the service's
// Retry-After when given, else capped exponential backoff with jitter
// over the upper half, so a run of failures spreads over the budget.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := backoffCap
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffCap)
	}
	return d/2 + c.rng.durationN(d/2)
}

// parseRetryAfter is Retry-After as an *Error reports it: capped at two
// minutes; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	return min(retryAfter(v, now), retryAfterCap)
}

// retryAfter reads Retry-After as seconds or an HTTP date, up to a day; 0
// when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 || n != n {
			return 0
		}
		if n > retryAfterMax.Seconds() {
			return retryAfterMax
		}
		d = time.Duration(n * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, retryAfterMax)
}

// randSource is a locked random source for jitter.
type randSource struct {
	mu *sync.Mutex
	r  *rand.Rand
}

func newRand() randSource {
	return randSource{mu: &sync.Mutex{}, r: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
}

// durationN returns a duration in [0, d].
func (s randSource) durationN(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.r.Int64N(int64(d) + 1))
}
