package apiclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is a non-2xx answer from the service.
type Error struct {
	StatusCode int
	Method     string
	Path       string // relative to the base URL, without query
	// Message is the general message: {"error": ...} or {"detail": ...}.
	Message string
	// Fields are field-level validation messages: {field: [messages]}.
	Fields map[string][]string
	// Body is the raw body (truncated) when it had neither shape.
	Body string
	// RetryAfter is the wait the service asked for (429, 503), capped.
	RetryAfter time.Duration
}

// Error reads like "POST /notification/create/: 400 Bad Request: stake: must be positive".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.Path, e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if d := e.Detail(); d != "" {
		b.WriteString(": " + d)
	}
	return b.String()
}

// Detail is the service's explanation: the message, then the field errors
// sorted by field, else the raw body.
func (e *Error) Detail() string {
	var parts []string
	if e.Message != "" {
		parts = append(parts, e.Message)
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(e.Fields[k], ", "))
	}
	if len(parts) == 0 && e.Body != "" {
		parts = append(parts, e.Body)
	}
	return strings.Join(parts, "; ")
}

// AmbiguousError means the request may have reached the service and its
// effect is unknown: a timeout or a lost connection after the request was
// sent, or a 5xx answer to a call that is not safe to repeat (a create).
// Check the effect (for a create: look its label up) before repeating.
type AmbiguousError struct {
	Method, Path string
	Err          error
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s %s: outcome unknown: %v", e.Method, e.Path, e.Err)
}

func (e *AmbiguousError) Unwrap() error { return e.Err }

// GiveUpError is a call the client repeated, or would have, until a
// bound: WithMaxRetries, WithRetryBudget, or a Retry-After longer than the
// budget. Err is the last attempt's error (an *Error, *TransportError, ...).
type GiveUpError struct {
	Err error
	Why string // "gave up after 7 attempts over 58.2s"
}

func (e *GiveUpError) Error() string {
	return strings.TrimSuffix(e.Err.Error(), ".") + "; " + e.Why
}

func (e *GiveUpError) Unwrap() error { return e.Err }

// WallClock reports true: the client's retries wait on the wall clock, so
// the seconds the error gives are real ones, whatever clock a command's
// lines are on (a rehearsal's simulated one).
func (e *GiveUpError) WallClock() bool { return true }

// Retry is a failed attempt the client is about to repeat (see OnRetry).
type Retry struct {
	Method, Path string
	Attempt      int           // the attempt that failed, from 1
	Reason       string        // what went wrong: "rate limited (429)", "503 Service Unavailable", ...
	Wait         time.Duration // before the next attempt
	RetryAfter   bool          // Wait is what the service asked for
}

// String reads like "GET /competition/namecodes/: 503 Service
// Unavailable; trying again in 1.6s (attempt 2)".
func (r Retry) String() string {
	asked := ""
	if r.RetryAfter {
		asked = ", as the service asked"
	}
	return fmt.Sprintf("%s %s: %s; trying again in %s%s (attempt %d)",
		r.Method, r.Path, r.Reason, roundWait(r.Wait), asked, r.Attempt+1)
}

// NextTry says when the next attempt goes: "in 1.6s", "in 1s, as the
// service asked".
func (r Retry) NextTry() string {
	asked := ""
	if r.RetryAfter {
		asked = ", as the service asked"
	}
	return fmt.Sprintf("in %s%s", roundWait(r.Wait), asked)
}

// roundWait is d to a precision a person reads: 10ms under a second,
// else 100ms.
func roundWait(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// TransportError is a request that got no answer, where that leaves no
// doubt to resolve: a safe call, or one that was never sent.
type TransportError struct {
	Method, Path string
	Err          error
}

func (e *TransportError) Error() string { return fmt.Sprintf("%s %s: %v", e.Method, e.Path, e.Err) }

func (e *TransportError) Unwrap() error { return e.Err }

// TimeoutError is a call that got no complete answer within WithTimeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no answer within %s", e.After)
}

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// WallClock reports true: the timeout is real seconds (see GiveUpError).
func (e *TimeoutError) WallClock() bool { return true }

// redactedError carries an error whose text was cleaned of secrets while
// keeping the original reachable for errors.Is/As.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

func statusIs(err error, pred func(int) bool) bool {
	var e *Error
	return errors.As(err, &e) && pred(e.StatusCode)
}

// IsBadRequest reports a 400 (validation) answer.
func IsBadRequest(err error) bool {
	return statusIs(err, func(s int) bool { return s == http.StatusBadRequest })
}

// IsUnauthorized reports a 401 (token missing, invalid or expired).
func IsUnauthorized(err error) bool {
	return statusIs(err, func(s int) bool { return s == http.StatusUnauthorized })
}

// IsForbidden reports a 403 (permission, or inactive subscription).
func IsForbidden(err error) bool {
	return statusIs(err, func(s int) bool { return s == http.StatusForbidden })
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool {
	return statusIs(err, func(s int) bool { return s == http.StatusNotFound })
}

// IsRateLimited reports a 429.
func IsRateLimited(err error) bool {
	return statusIs(err, func(s int) bool { return s == http.StatusTooManyRequests })
}

// IsServerError reports a 5xx answer.
func IsServerError(err error) bool {
	return statusIs(err, func(s int) bool { return s >= 500 && s <= 599 })
}

// IsAmbiguous reports whether the request may have reached the service with
// an unknown effect (see AmbiguousError). A connection refused before
// anything was sent, and any 4xx answer, are not ambiguous.
func IsAmbiguous(err error) bool {
	var e *AmbiguousError
	return errors.As(err, &e)
}

func (c *Client) newError(method, path string, res attemptResult) *Error {
	e := &Error{StatusCode: res.status, Method: method, Path: path, RetryAfter: min(res.retryAfter, retryAfterCap)}
	parseErrorBody(e, cleanBody(res.body))
	e.Message = c.redact(e.Message)
	e.Body = c.redact(e.Body)
	for _, v := range e.Fields {
		for i := range v {
			v[i] = capText(c.redact(v[i]))
		}
	}
	e.Message = capText(e.Message)
	return e
}

// parseErrorBody fills Message, Fields or Body from the shapes the
// service's sources show: {"error": msg}, {"detail": msg}, {field: [msgs]}
// or {field: msg}, else raw text.
func parseErrorBody(e *Error, body []byte) {
	body = bytes.TrimSpace(body)
	var obj map[string]json.RawMessage
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &obj) != nil {
		e.Body = truncateBody(body)
		return
	}
	rest := false
	for k, raw := range obj {
		switch k {
		case "error", "detail", "message":
			if s, ok := messageText(raw); ok {
				if e.Message == "" || k == "error" {
					e.Message = s
				}
				continue
			}
		}
		if msgs, ok := fieldMessages(raw); ok {
			if e.Fields == nil {
				e.Fields = map[string][]string{}
			}
			e.Fields[k] = msgs
			continue
		}
		rest = true
	}
	if e.Message == "" && len(e.Fields) == 0 || rest && e.Message == "" {
		e.Body = truncateBody(body)
	}
}

// messageText reads a message: a string, or anything else as compact JSON.
func messageText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s), true
	}
	if msgs, ok := fieldMessages(raw); ok {
		return strings.Join(msgs, "; "), true
	}
	return "", false
}

// fieldMessages reads a field's messages: a string or an array of strings.
func fieldMessages(raw json.RawMessage) ([]string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, true
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	return nil, false
}

// quotedBodyChars is how much of a body an error quotes.
const quotedBodyChars = 200

// truncateBody is a body as an error quotes it: one line of text, the
// tags of an HTML page left out, at most quotedBodyChars characters and
// then how long the whole body was.
func truncateBody(b []byte) string {
	// Only the start is read: a body may be megabytes long.
	whole := len(b)
	if len(b) > 64<<10 {
		b = b[:64<<10]
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if looksLikeHTML(s) {
		s = htmlText(s)
	}
	s = strings.Join(strings.Fields(cleanLine(s)), " ")
	if utf8.RuneCountInString(s) > quotedBodyChars {
		s = string([]rune(s)[:quotedBodyChars]) + fmt.Sprintf("…(%d bytes)", whole)
	}
	return s
}

// capText caps a message from the service at a few lines' worth.
func capText(s string) string {
	const max = 4 * quotedBodyChars
	if utf8.RuneCountInString(s) > max {
		return string([]rune(s)[:max]) + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}

func looksLikeHTML(s string) bool {
	head := strings.ToLower(s[:min(len(s), 512)])
	return strings.HasPrefix(head, "<!doctype html") || strings.Contains(head, "<html") ||
		strings.HasPrefix(head, "<") && strings.Contains(head, "</")
}

// htmlText is an HTML page's text: tags, scripts and styles left out.
func htmlText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:lt])
		b.WriteByte(' ')
		s = s[lt:]
		lower := strings.ToLower(s[:min(len(s), 8)])
		for _, el := range []string{"<script", "<style"} {
			if strings.HasPrefix(lower, el) {
				end := strings.Index(strings.ToLower(s), "</"+el[1:])
				if end < 0 {
					return b.String()
				}
				s = s[end:]
				break
			}
		}
		gt := strings.IndexByte(s, '>')
		if gt < 0 {
			break
		}
		s = s[gt+1:]
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ").Replace(b.String())
}

// redact removes the client's secrets from text that may end up in an error
// or a log line.
func (c *Client) redact(s string) string {
	if s == "" {
		return s
	}
	c.secretsMu.Lock()
	secrets := c.secrets
	c.secretsMu.Unlock()
	for _, x := range secrets {
		if len(x) >= 4 && strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, "[REDACTED]")
		}
	}
	return s
}

// addSecret remembers a value that must never appear in errors or logs.
func (c *Client) addSecret(x string) {
	if x == "" {
		return
	}
	c.secretsMu.Lock()
	defer c.secretsMu.Unlock()
	for _, s := range c.secrets {
		if s == x {
			return
		}
	}
	// Copy on write: redact reads the slice without the lock.
	c.secrets = append(c.secrets[:len(c.secrets):len(c.secrets)], x)
}
