package cli

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/betplan/betplan/apiclient"
)

// baseURLError explains a base URL the client refuses, in one line that
// says what to change.
func baseURLError(err error) error {
	hint := "; check --base-url or BETPLAN_BASE_URL"
	if errors.Is(err, apiclient.ErrPlainHTTP) {
		hint = ", or pass --insecure to allow plain http anyway"
	}
	return refusef("%v%s", err, hint)
}

// explainService turns an error that means the service could not be used
// at all into a refusal that says what to do; any other error is returned
// as it is.
func explainService(base string, err error) error {
	if why := serviceProblem(base, err); why != nil {
		return &refusedError{why}
	}
	return err
}

// noServiceError is a base URL where something other than the betting
// service answers: documented endpoints not found before anything
// answered (most often the path of the URL is wrong), or an answer of
// success that is not the service's (a health page, a proxy).
type noServiceError struct {
	base string
	err  error // an *apiclient.Error (404) or an *apiclient.NotServiceError
}

func (e *noServiceError) Error() string {
	var apiErr *apiclient.Error
	if errors.As(e.err, &apiErr) {
		return fmt.Sprintf("no betting service at %s: %s %s answered %d %s; check the path of --base-url or BETPLAN_BASE_URL",
			e.base, apiErr.Method, apiErr.Path, apiErr.StatusCode, http.StatusText(apiErr.StatusCode))
	}
	return fmt.Sprintf("no betting service at %s: %v; check --base-url or BETPLAN_BASE_URL", e.base, e.err)
}

func (e *noServiceError) Unwrap() error { return e.err }

// Refused makes it a refusal: exit 3, nothing to retry as it is.
func (e *noServiceError) Refused() bool { return true }

// notServiceAt is the refusal of an error that shows something other than
// the service answering at base before it answered as itself (an answer
// not of its shape, a 404), nil for any other error.
func notServiceAt(base string, err error) error {
	var notService *apiclient.NotServiceError
	var apiErr *apiclient.Error
	switch {
	case errors.As(err, &notService):
		return &noServiceError{base: base, err: notService}
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound:
		return &noServiceError{base: base, err: apiErr}
	}
	return nil
}

// explainStart is explainService for an error met before the service
// answered any request: a 404 then means no betting service at base.
func explainStart(base string, err error) error {
	if why := notServiceAt(base, err); why != nil {
		return why
	}
	return explainService(base, err)
}

// explainAt is explainStart while the service has answered nothing yet
// (answered false) and explainService once it has: a 404 after a good
// answer is an ordinary error of that request.
func explainAt(base string, answered bool, err error) error {
	if !answered {
		return explainStart(base, err)
	}
	return explainService(base, err)
}

// serviceProblem explains, in one line, an error that means betplan could
// not talk to the service at base at all (nothing answered, TLS failed, or
// the credentials were refused): the URL, what failed and what to do next.
// It returns nil for any other error. The token is never part of it: the
// client redacts its secrets from every error.
func serviceProblem(base string, err error) error {
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case http.StatusUnauthorized:
			return unauthorized(base, apiErr)
		case http.StatusForbidden:
			return fmt.Errorf("the service at %s refused access (403 on %s %s: %s): the account lacks the permission or its subscription is inactive; check the account, or log in as another with BETPLAN_TOKEN, or BETPLAN_EMAIL and BETPLAN_PASSWORD",
				base, apiErr.Method, apiErr.Path, detailOr(apiErr, "no detail"))
		}
		return nil
	}
	var te *apiclient.TransportError
	var ae *apiclient.AmbiguousError
	if !errors.As(err, &te) && !errors.As(err, &ae) {
		return nil
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuthority x509.UnknownAuthorityError
	var hostnameErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot reach the service at %s: connection refused; is it running? Start one with 'betplan sim' to rehearse, or check --base-url and BETPLAN_BASE_URL", base)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot reach the service at %s: no such host %q; check --base-url and BETPLAN_BASE_URL", base, dnsErr.Name)
	case errors.As(err, &recordErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return fmt.Errorf("cannot talk TLS to the service at %s: it answers plain http, not https; check the scheme in --base-url or BETPLAN_BASE_URL", base)
	case errors.As(err, &certErr), errors.As(err, &unknownAuthority), errors.As(err, &hostnameErr):
		return fmt.Errorf("cannot trust the service at %s: its TLS certificate failed verification (%s); check the host in --base-url or BETPLAN_BASE_URL, or the machine's CA certificates", base, tlsReason(err))
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("the service at %s did not answer in time (%s); check the network, or allow more with --http-timeout", base, lastCause(err))
	}
	return fmt.Errorf("cannot reach the service at %s: %s; check --base-url, BETPLAN_BASE_URL and the network", base, lastCause(err))
}

// unauthorized tells an expired token from a wrong one, and says how to
// log in again.
func unauthorized(base string, e *apiclient.Error) error {
	detail := detailOr(e, "no detail")
	const login = "set a fresh BETPLAN_TOKEN, or BETPLAN_EMAIL and BETPLAN_PASSWORD to log in"
	switch {
	case strings.HasPrefix(e.Path, "/account/login"):
		return fmt.Errorf("the service at %s refused the e-mail and password (401: %s); check BETPLAN_EMAIL and BETPLAN_PASSWORD", base, detail)
	case strings.Contains(strings.ToLower(detail), "expired"):
		return fmt.Errorf("the API token has expired (401 from %s: %s); log in again: %s", base, detail, login)
	}
	return fmt.Errorf("the service at %s refused the API token as wrong (401: %s); %s", base, detail, login)
}

func detailOr(e *apiclient.Error, none string) string {
	if d := e.Detail(); d != "" {
		return d
	}
	return none
}

// tlsReason is the certificate problem in a few words.
func tlsReason(err error) string {
	var hostnameErr x509.HostnameError
	var unknownAuthority x509.UnknownAuthorityError
	switch {
	case errors.As(err, &hostnameErr):
		return "it is not for this host name"
	case errors.As(err, &unknownAuthority):
		return "signed by an unknown authority"
	}
	return lastCause(err)
}

// lastCause is the innermost message of err's chain: what the network
// said, without the request line the chain adds on the way up.
func lastCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
