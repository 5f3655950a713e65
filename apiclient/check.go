package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// NotServiceError is an answer of success (2xx) whose body is not what the
// service answers there: whatever answers at the base URL (a health page,
// a proxy, another API) is not the betting service.
type NotServiceError struct {
	Method, Path string
	// Body is the body as an error quotes it (truncateBody): one line,
	// cleaned, cut; "" when it was empty.
	Body string
	// Want says what the service answers there, in a few words.
	Want string
}

func (e *NotServiceError) Error() string {
	got := "with an empty body"
	if e.Body != "" {
		got = fmt.Sprintf("%q", e.Body)
	}
	return fmt.Sprintf("%s %s answered %s, not %s", e.Method, e.Path, got, e.Want)
}

// checkPath is the read that tells the service from anything else at a
// base URL: authenticated, cheap (one notification), and answered in a
// shape of the service's own (the pagination envelope).
const checkPath = "/notification/"

// CheckService makes the one read that tells whether the betting service
// answers at the base URL: an authenticated GET of the first notification,
// whose answer must be the service's page of notifications (an object
// holding a "results" array, or a bare array, of objects). A login it
// needs comes first, and an answer of success to it that carries no token
// says the same. It returns nil when the service answered; a
// *NotServiceError when something else did; else the call's error (an
// *Error for a 401 or a 404, a *TransportError when nothing answered...).
// GET /notification/
func (c *Client) CheckService(ctx context.Context) error {
	b, req, err := c.call(ctx, http.MethodGet, checkPath+pageQuery(1, 1, nil), nil)
	const want = "the service's list of notifications"
	if err != nil {
		var de *DecodeError
		if errors.As(err, &de) {
			// The login answered success with a body that is no token.
			return &NotServiceError{Method: de.Method, Path: de.Path, Body: de.Body, Want: "a token"}
		}
		return err
	}
	if !isNotificationPage(b) {
		return &NotServiceError{Method: req.Method, Path: c.apiPath(req), Body: truncateBody(b), Want: want}
	}
	return nil
}

// isNotificationPage reports whether body has the shape of a page of the
// notification list: an object with a "results" array, or a bare array,
// whose items are objects. Nothing more is asked of it: the fields are
// read tolerantly where they are used.
func isNotificationPage(body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return false
	}
	var items []json.RawMessage
	switch body[0] {
	case '[':
		if json.Unmarshal(body, &items) != nil {
			return false
		}
	case '{':
		var page struct {
			Results *[]json.RawMessage `json:"results"`
		}
		if json.Unmarshal(body, &page) != nil || page.Results == nil {
			return false
		}
		items = *page.Results
	default:
		return false
	}
	for _, it := range items {
		if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '{' {
			return false
		}
	}
	return true
}
