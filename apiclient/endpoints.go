package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// call sends one request and returns the raw 2xx body.
func (c *Client) call(ctx context.Context, method, path string, body any) ([]byte, *http.Request, error) {
	req, err := c.NewRequest(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	var raw []byte
	if err := c.Do(req, &raw); err != nil {
		return nil, req, err
	}
	return raw, req, nil
}

// callJSON sends one request and decodes the 2xx body into v.
func (c *Client) callJSON(ctx context.Context, method, path string, body, v any) error {
	req, err := c.NewRequest(ctx, method, path, body)
	if err != nil {
		return err
	}
	return c.Do(req, v)
}

// raw sends one request and returns the body as JSON (null when empty).
func (c *Client) raw(ctx context.Context, method, path string, body any) (json.RawMessage, error) {
	b, req, err := c.call(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return json.RawMessage("null"), nil
	}
	if !json.Valid(b) {
		return nil, &DecodeError{Method: req.Method, Path: c.apiPath(req), Body: truncateBody(b), Err: errors.New("not JSON")}
	}
	return json.RawMessage(b), nil
}

func idPath(format string, id int64) string {
	return fmt.Sprintf(format, strconv.FormatInt(id, 10))
}

// decodeList reads a list that may come bare or inside an object under one
// of keys (the sources disagree on several endpoints).
func decodeList[T any](body []byte, keys ...string) ([]T, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || string(body) == "null" {
		return nil, nil
	}
	if body[0] == '[' {
		var out []T
		if err := json.Unmarshal(body, &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	if body[0] != '{' {
		return nil, errors.New("want a JSON array or object")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	for _, k := range keys {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			return nil, nil
		}
		var out []T
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no list under %s in the response", strings.Join(keys, ", "))
}

func (c *Client) list(req *http.Request, body []byte, dst func([]byte) error) error {
	if err := dst(body); err != nil {
		return &DecodeError{Method: req.Method, Path: c.apiPath(req), Body: truncateBody(body), Err: err}
	}
	return nil
}

// getList GETs path and decodes a list that may be bare or wrapped.
func getList[T any](ctx context.Context, c *Client, method, path string, body any, keys ...string) ([]T, error) {
	b, req, err := c.call(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	var out []T
	err = c.list(req, b, func(b []byte) (err error) {
		out, err = decodeList[T](b, keys...)
		return err
	})
	return out, err
}

// namesOf reads names given as strings or as objects with a name-like key.
func namesOf(items []json.RawMessage) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		it = bytes.TrimSpace(it)
		if len(it) == 0 {
			continue
		}
		if it[0] != '{' {
			var s String
			if json.Unmarshal(it, &s) == nil && s != "" {
				out = append(out, string(s))
			}
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) != nil {
			continue
		}
		for _, k := range []string{"name", "title", "value", "type", "code", "label"} {
			var v String
			if raw, ok := obj[k]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
				out = append(out, string(v))
				break
			}
		}
	}
	return out
}

func (c *Client) names(ctx context.Context, path string, keys ...string) ([]string, error) {
	items, err := getList[json.RawMessage](ctx, c, http.MethodGet, path, nil, keys...)
	if err != nil {
		return nil, err
	}
	return namesOf(items), nil
}

// ---- account ----

// Readiness is a snapshot of the bots' readiness.
// GET /account/readiness/
func (c *Client) Readiness(ctx context.Context) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, "/account/readiness/", nil)
}

// ConnectActivity is the bots' connection activity.
// GET /account/connect_activity/
func (c *Client) ConnectActivity(ctx context.Context) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, "/account/connect_activity/", nil)
}

// ---- sessions ----

// ListSessions lists the bookmaker sessions (accounts). The list may come
// bare or inside {"results"|"accounts": [...]}.
// GET /bookieaccount/
func (c *Client) ListSessions(ctx context.Context) ([]Session, error) {
	return getList[Session](ctx, c, http.MethodGet, "/bookieaccount/", nil, "results", "accounts", "sessions", "data")
}

// GetSession returns one session with all its details.
// GET /bookieaccount/{id}/
func (c *Client) GetSession(ctx context.Context, id int64) (*Session, error) {
	var s Session
	if err := c.callJSON(ctx, http.MethodGet, idPath("/bookieaccount/%s/", id), nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ControlSession switches one session's bot on or off.
// POST /bookieaccount/control/{id}/
func (c *Client) ControlSession(ctx context.Context, id int64, on bool) (*ControlResult, error) {
	cmd := "OFF"
	if on {
		cmd = "ON"
	}
	var out ControlResult
	if err := c.callJSON(ctx, http.MethodPost, idPath("/bookieaccount/control/%s/", id), map[string]string{"command": cmd}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ControlAllSessions switches every session's bot on or off.
// POST /bookieaccount/control/
func (c *Client) ControlAllSessions(ctx context.Context, on bool) (*ControlAllResult, error) {
	cmd := "all_off"
	if on {
		cmd = "all_on"
	}
	var out ControlAllResult
	if err := c.callJSON(ctx, http.MethodPost, "/bookieaccount/control/", map[string]string{"command": cmd}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ---- data ----

// ListRaces lists the upcoming races.
// GET /competition/namecodes/
func (c *Client) ListRaces(ctx context.Context) ([]Race, error) {
	keys := []string{"results", "data"}
	b, req, err := c.call(ctx, http.MethodGet, "/competition/namecodes/", nil)
	if err != nil {
		return nil, err
	}
	var out []Race
	err = c.list(req, b, func(b []byte) error {
		var err error
		if out, err = c.races.decode(b, keys); err != nil {
			// Said as the whole list's decoding says it.
			out, err = decodeList[Race](b, keys...)
		}
		return err
	})
	return out, err
}

// raceEntries are the entries of the last race list read, decoded, by
// their bytes. A run reads the list every few minutes and most entries
// come back as they were: decoding each of them again was most of a
// rehearsal's CPU.
type raceEntries struct {
	mu    sync.Mutex
	byRaw map[string]Race
}

// decode decodes a race list, entries already seen from the last list.
func (e *raceEntries) decode(body []byte, keys []string) ([]Race, error) {
	raws, err := decodeList[json.RawMessage](body, keys...)
	if err != nil || raws == nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	next := make(map[string]Race, len(raws))
	out := make([]Race, len(raws))
	for i, raw := range raws {
		key := string(raw)
		r, ok := e.byRaw[key]
		if !ok {
			if err := json.Unmarshal(raw, &r); err != nil {
				return nil, err
			}
		}
		out[i], next[key] = r, r
	}
	e.byRaw = next
	return out, nil
}

// BookieNames lists the bookmakers.
// GET /bookie/names/
func (c *Client) BookieNames(ctx context.Context) ([]Bookmaker, error) {
	return getList[Bookmaker](ctx, c, http.MethodGet, "/bookie/names/", nil, "results", "bookies", "data")
}

// Bookie returns one bookmaker's capabilities.
// GET /bookie/{id}/
func (c *Client) Bookie(ctx context.Context, id int64) (*Bookmaker, error) {
	var b Bookmaker
	if err := c.callJSON(ctx, http.MethodGet, idPath("/bookie/%s/", id), nil, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// BookieMarkets lists the supported sports markets.
// GET /bookie/markets/
func (c *Client) BookieMarkets(ctx context.Context) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, "/bookie/markets/", nil)
}

// BetCodes lists the racing codes.
// GET /bet/codes/
func (c *Client) BetCodes(ctx context.Context) ([]string, error) {
	return c.names(ctx, "/bet/codes/", "results", "codes", "data")
}

// BetMarkets lists the bet markets.
// GET /bet/markets/
func (c *Client) BetMarkets(ctx context.Context) ([]string, error) {
	return c.names(ctx, "/bet/markets/", "results", "markets", "data")
}

// ListEvents lists the sports events (shapes: see events.go).
// GET /event/list/
func (c *Client) ListEvents(ctx context.Context) ([]Event, error) {
	return c.events(ctx)
}

// GetEvent returns one sports event with its markets and selections.
// GET /event/{id}/
func (c *Client) GetEvent(ctx context.Context, id string) (*Event, error) {
	return c.event(ctx, id)
}
