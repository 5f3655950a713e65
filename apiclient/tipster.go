package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// PublishTip is one pick of POST /pick/tipster/publish/: the flat variant
// of the docs, which matches the spec (service facts §9.1). Confidence and
// Analysis come from the docs' nested variant; they are sent only when
// set, and a service that reads the flat variant may ignore them.
type PublishTip struct {
	Competition string  `json:"competition"`
	Code        string  `json:"code"`
	Market      string  `json:"market"`
	EventNumber int     `json:"event_number"`
	Selection   string  `json:"selection"`
	AmountUnits float64 `json:"amount_units"`
	Odds        float64 `json:"odds"`
	MaxOdds     float64 `json:"max_odds"`
	Bookies     string  `json:"bookies"` // bookmaker ids joined by "&"
	UseBonus    bool    `json:"use_bonus"`
	Confidence  string  `json:"confidence,omitempty"` // Low, Medium, High
	Analysis    string  `json:"analysis,omitempty"`
}

// TipsterAnswer is what the service said to a publish or a pre-alert. The
// docs show {"status": "Success"}, and for the pre-alert also a plain
// sentence ("pre-alert was sent to N subscribers"); either is read, and
// the body is kept.
type TipsterAnswer struct {
	Status  string // as sent; "" when the body had none
	Message string // a message or the plain-text body
	Path    string // the path that answered
	Raw     json.RawMessage
}

// Refused reports whether the answer, though a 2xx, names a status other
// than success ("failed", "error"): what the service did is then unknown.
func (a *TipsterAnswer) Refused() bool {
	return a.Status != "" && !strings.EqualFold(a.Status, "success") && !strings.EqualFold(a.Status, "ok")
}

func readTipsterAnswer(path string, body []byte) *TipsterAnswer {
	a := &TipsterAnswer{Path: path}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return a
	}
	var obj struct {
		Status  String `json:"status"`
		Message String `json:"message"`
		Detail  String `json:"detail"`
	}
	if body[0] == '{' && json.Unmarshal(body, &obj) == nil {
		a.Status, a.Message = strings.TrimSpace(string(obj.Status)), strings.TrimSpace(string(obj.Message))
		if a.Message == "" {
			a.Message = strings.TrimSpace(string(obj.Detail))
		}
		a.Raw = append(json.RawMessage(nil), body...)
		return a
	}
	var s string
	if json.Unmarshal(body, &s) == nil {
		a.Message = strings.TrimSpace(s)
		return a
	}
	a.Message = truncateBody(body)
	return a
}

// PublishTips publishes picks to the tip package identified by apikey, in
// one call. The key is never shown in errors or logs. Like a create, a
// publish has effects and no duplicate protection: the client repeats it
// only when the service certainly did not act (a 429, or a connection
// refused before anything was sent).
// POST /pick/tipster/publish/
func (c *Client) PublishTips(ctx context.Context, apikey string, tips []PublishTip) (*TipsterAnswer, error) {
	if tips == nil {
		tips = []PublishTip{}
	}
	c.addSecret(apikey)
	const path = "/pick/tipster/publish/"
	body, _, err := c.call(ctx, http.MethodPost, path, struct {
		APIKey string       `json:"apikey"`
		Tips   []PublishTip `json:"tips"`
	}{apikey, tips})
	if err != nil {
		return nil, err
	}
	return readTipsterAnswer(path, body), nil
}

// Pre-alert paths: the spec names the first, both doc versions the second
// (service facts §9.2).
const (
	PrealertMessagePath = "/pick/tipster/message/"
	PrealertDocPath     = "/pick/tipster/prealert/"
)

// SendPrealert sends the package's pre-alert, which wakes subscribers'
// bots. It posts to the spec's /pick/tipster/message/ and, when that
// answers 404, to the docs' /pick/tipster/prealert/; the path that
// answered is used from then on. A 404 from the docs' path means the
// package API key is not valid (facts §9.2).
// POST /pick/tipster/message/ or POST /pick/tipster/prealert/
func (c *Client) SendPrealert(ctx context.Context, apikey string) (*TipsterAnswer, error) {
	c.addSecret(apikey)
	body := map[string]string{"apikey": apikey}
	paths := []string{PrealertMessagePath, PrealertDocPath}
	if p := c.prealertPath.Load(); p != nil {
		paths = []string{*p}
	}
	var err error
	for _, path := range paths {
		var raw []byte
		raw, _, err = c.call(ctx, http.MethodPost, path, body)
		if err == nil {
			c.prealertPath.Store(&path)
			return readTipsterAnswer(path, raw), nil
		}
		if !IsNotFound(err) {
			return nil, err
		}
	}
	var e *Error
	if errors.As(err, &e) && len(paths) > 1 {
		e.Message = strings.TrimSpace(e.Message + " (both " + PrealertMessagePath + " and " + PrealertDocPath + " answered 404: the package API key is not valid, or the service has neither endpoint)")
	}
	return nil, err
}
