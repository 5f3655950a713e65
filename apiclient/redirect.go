package apiclient

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is how many same-origin redirects one request follows.
const maxRedirects = 3

// withRedirectPolicy returns a copy of hc that follows only the redirects
// the client allows (see checkRedirect); the caller's client is left as it
// was.
func (c *Client) withRedirectPolicy(hc *http.Client) *http.Client {
	cp := *hc
	cp.CheckRedirect = c.checkRedirect
	return &cp
}

// checkRedirect stops every redirect that would send a create again or
// carry the token anywhere but the service: a create is never repeated by
// the transport (its redirect answer is an outcome in doubt, see
// finalError), and a redirect to another scheme, host or port is not
// followed at all. The redirect answer itself is then returned to do.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	switch {
	case classify(via[0]) == retryNever,
		!sameOrigin(req.URL, c.base),
		len(via) > maxRedirects:
		return http.ErrUseLastResponse
	}
	return nil
}

// sameOrigin reports whether u has base's scheme, host and port.
func sameOrigin(u, base *url.URL) bool {
	return strings.EqualFold(u.Scheme, base.Scheme) &&
		strings.EqualFold(u.Hostname(), base.Hostname()) &&
		portOf(u) == portOf(base)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// isRedirect reports a 3xx answer that names where to go.
func isRedirect(res attemptResult) bool {
	return res.status >= 300 && res.status < 400 && res.header.Get("Location") != ""
}

// redirectError says why a redirect answer was not followed.
func (c *Client) redirectError(req *http.Request, path string, class retryClass, res attemptResult) error {
	to := req.URL
	if loc, err := req.URL.Parse(res.header.Get("Location")); err == nil {
		to = loc
	}
	shown := (&url.URL{Scheme: to.Scheme, Host: to.Host, Path: to.Path}).String()
	target := cleanLine(c.redact(shown))
	if class == retryNever {
		err := fmt.Errorf("the service answered %d %s (to %s); a create is never sent twice",
			res.status, http.StatusText(res.status), target)
		return &AmbiguousError{Method: req.Method, Path: path, Err: err}
	}
	why := fmt.Sprintf("more than %d redirects", maxRedirects)
	if !sameOrigin(to, c.base) {
		why = "the token is only sent to " + c.baseStr
	}
	return &RedirectError{Method: req.Method, Path: path, StatusCode: res.status, Location: target,
		msg: fmt.Sprintf("the service redirected %s %s to %s; not followed: %s", req.Method, path, target, why)}
}

// RedirectError is a redirect answer the client did not follow: one to
// another scheme, host or port (which would carry the token elsewhere), or
// one too many.
type RedirectError struct {
	Method, Path string
	StatusCode   int
	Location     string // scheme://host/path, no query
	msg          string
}

func (e *RedirectError) Error() string { return e.msg }
