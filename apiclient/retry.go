package apiclient

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	backoffBase   = 200 * time.Millisecond
	backoffCap    = 10 * time.Second
	retryAfterCap = 2 * time.Minute
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

// shouldRetry is the one place that decides whether a failed attempt is
// repeated, and says why.
func (c *Client) shouldRetry(class retryClass, res attemptResult, attempt int) (bool, string) {
	if class == retryNever {
		return false, "a create is never repeated by the client"
	}
	if attempt >= c.maxRetries {
		return false, "retries exhausted"
	}
	switch {
	case res.err != nil && res.dial:
		return true, "connection failed before the request was sent"
	case res.err != nil:
		if class == retrySafe {
			return true, "connection error: " + c.redact(res.err.Error())
		}
		return false, "connection lost after the request may have been sent"
	case res.status == http.StatusTooManyRequests:
		return true, "rate limited (429)"
	case res.status >= 500 && res.status != http.StatusNotImplemented && class == retrySafe:
		return true, "server error " + strconv.Itoa(res.status)
	}
	return false, "not retryable"
}

// backoff is the wait before retry number attempt+1: the service's
// Retry-After when given, else capped exponential backoff with full jitter.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := backoffCap
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffCap)
	}
	return c.rng.durationN(d)
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date, capped at
// two minutes; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > retryAfterCap.Seconds() {
			return retryAfterCap
		}
		d = time.Duration(n * float64(time.Second))
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, retryAfterCap)
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
