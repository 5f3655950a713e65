package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"
)

func (c *Client) decode(req *http.Request, body []byte, v any) error {
	switch v := v.(type) {
	case nil:
		return nil
	case *[]byte:
		*v = body
		return nil
	case io.Writer:
		_, err := v.Write(body)
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &DecodeError{Method: req.Method, Path: c.apiPath(req), Err: err, Body: truncateBody(body)}
	}
	return nil
}

// DecodeError is a 2xx answer whose body could not be read.
type DecodeError struct {
	Method, Path string
	Body         string // truncated
	Err          error
}

// decodeProblem says what was wrong with a body in the service's terms,
// without Go's type names ("Page[github.com/...]", "[]apiclient.Race").
func decodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := "the response"
		if te.Field != "" {
			where = fmt.Sprintf("field %q", te.Field)
		}
		return fmt.Sprintf("%s is %s, want %s", where, jsonKindWord(te.Value), goKindWord(te.Type))
	}
	return strings.TrimPrefix(err.Error(), "apiclient: ")
}

// jsonKindWord names the JSON kind json.UnmarshalTypeError reports.
func jsonKindWord(v string) string {
	switch {
	case v == "object", v == "array":
		return "an " + v
	case v == "string", v == "bool", v == "number", strings.HasPrefix(v, "number "):
		return "a " + strings.Fields(v)[0]
	}
	return v
}

// goKindWord names what a Go type expects, in JSON's words.
func goKindWord(t reflect.Type) string {
	if t == nil {
		return "something else"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return goKindWord(t.Elem())
	}
	return "something else"
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s %s: cannot read the response: %s", e.Method, e.Path, decodeProblem(e.Err))
}

func (e *DecodeError) Unwrap() error { return e.Err }

// do runs the attempt loop and returns the body of a 2xx answer.
func (c *Client) do(req *http.Request) ([]byte, error) {
	ctx := req.Context()
	class := classify(req)
	path := c.apiPath(req)
	needAuth := needsAuth(normPath(path)) && req.Header.Get("Authorization") == ""
	reauthed := false
	start := time.Now()
	for attempt := 0; ; attempt++ {
		var gen uint64
		if needAuth {
			var err error
			if gen, err = c.ensureToken(ctx); err != nil {
				return nil, err
			}
		}
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, c.ctxError(req, path, class, false)
				}
				// The wait would outlast ctx's deadline.
				return nil, fmt.Errorf("%s %s: rate limit: %w", req.Method, path, context.DeadlineExceeded)
			}
		}
		if c.shared != nil {
			if err := c.shared.Wait(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, c.ctxError(req, path, class, false)
				}
				return nil, fmt.Errorf("%s %s: request budget: %w", req.Method, path, err)
			}
		}
		began := time.Now()
		res := c.attempt(ctx, req, class, path, needAuth)
		if res.err == nil {
			c.outage.answered(req.Method, path, res.status)
		}
		if res.err == nil && res.status >= 200 && res.status < 300 {
			if res.over > 0 {
				// Cut, it would not read; repeated, it would be as long.
				return nil, &DecodeError{Method: req.Method, Path: path, Body: truncateBody(res.body),
					Err: fmt.Errorf("the answer is over %d MB, the most betplan reads of it", res.over>>20)}
			}
			return cleanBody(res.body), nil
		}
		if ctx.Err() != nil {
			return nil, c.ctxError(req, path, class, res.sent)
		}
		if res.status == http.StatusUnauthorized && needAuth && !reauthed && c.hasCredentials() {
			reauthed = true
			if err := c.relogin(ctx, gen); err != nil {
				return nil, err
			}
			if class != retryNever {
				// A 401 is a refusal before any processing: repeat it with
				// the new token (not counted as a retry).
				attempt--
				continue
			}
		}
		plan := c.shouldRetry(class, res, attempt, time.Since(start))
		if plan.retry && req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			plan = retryPlan{reason: plan.reason} // a body that cannot be rewound cannot be sent again
		}
		if plan.retry || plan.giveUp != "" && class != retryNever {
			// The service failed in a way that is ridden out: an outage
			// until it answers again, whichever call it answers.
			c.outage.failed(began)
		}
		if !plan.retry {
			err := c.finalError(req, path, class, res)
			if plan.giveUp != "" && class != retryNever && (attempt > 0 || res.retryAfter > 0) {
				err = &GiveUpError{Err: err, Why: plan.giveUp}
			}
			return nil, err
		}
		if f := c.retryHook(ctx); f != nil {
			f(Retry{Method: req.Method, Path: path, Attempt: attempt + 1, Reason: plan.reason,
				Wait: plan.wait, RetryAfter: res.retryAfter > 0})
		}
		c.logger.Debug("apiclient retry", "method", req.Method, "path", path, "attempt", attempt+1, "reason", plan.reason, "wait", plan.wait)
		if err := Sleep(ctx, plan.wait); err != nil {
			return nil, c.ctxError(req, path, class, res.sent)
		}
	}
}
