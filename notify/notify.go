// Package notify delivers alerts where the user is: a JSON webhook for
// http(s) URLs, a chat, push or e-mail service for the other schemes
// (through shoutrrr). A Sender delivers in the background, with retries and
// backoff, so no alert ever waits on a create or a poll; what it could not
// deliver it says, and the caller journals every attempt.
package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/nicholas-fedor/shoutrrr/pkg/format"
	"github.com/nicholas-fedor/shoutrrr/pkg/router"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/specialized/generic"
	"github.com/nicholas-fedor/shoutrrr/pkg/types"

	"github.com/betplan/betplan/internal/printable"
	"github.com/betplan/betplan/plan"
)

// Target is one place alerts go: its URL (secret: never shown, logged or
// journalled whole) and the events it is sent.
type Target struct {
	URL string
	On  []string
	id  string // ID, worked out once
}

// Targets expands the environment variables (${NAME}) of a plan's targets
// and checks each expanded URL. Errors name the target by file and line
// and the variable, never the URL.
func Targets(file string, ts []plan.NotifyTarget, getenv func(string) string) ([]Target, error) {
	var out []Target
	for _, t := range ts {
		u, err := plan.ExpandNotifyURL(t.URL, getenv)
		if err == nil {
			err = plan.CheckNotifyURL(u)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: notify url: %w", file, t.Line, err)
		}
		tg := Target{URL: u, On: t.On}
		tg.id = tg.ID()
		out = append(out, tg)
	}
	return out, nil
}

// Where is the target as output shows it: scheme and host only.
func (t Target) Where() string { return plan.RedactURL(t.URL) }

// ID names the target in the journal: a digest of its URL, the same on
// every run and machine, from which the URL cannot be read back.
func (t Target) ID() string {
	if t.id != "" {
		return t.id
	}
	h := sha256.Sum256([]byte("betplan notify target\x00" + t.URL))
	return hex.EncodeToString(h[:8])
}

// Wants reports whether the target is sent event e.
func (t Target) Wants(event string) bool { return slices.Contains(t.On, event) }

func (t Target) webhook() bool {
	s, _, _ := strings.Cut(t.URL, "://")
	s = strings.ToLower(s)
	return s == "http" || s == "https"
}

// Message is an alert: the JSON body of a webhook, and for the other
// services its Text. It never holds a token or key.
type Message struct {
	// ID is the alert's own id, the same on every attempt and every run:
	// a receiver that keeps it can drop a repeat.
	ID    string `json:"id"`
	Event string `json:"event"`
	Plan  string `json:"plan"`
	Bet   string `json:"bet,omitempty"`
	// Instance is the id reports show and cancel takes (the bet id, or
	// "<bet>@<venue>-r<n>" for a for_each_race bet).
	Instance       string `json:"instance,omitempty"`
	Label          string `json:"label,omitempty"`
	NotificationID int64  `json:"notification_id,omitempty"`
	Status         string `json:"status,omitempty"`
	// ReasonCode is why a bet was not placed or not created (not_placed,
	// missed, in_doubt), as a program reads it: a code of the README's
	// reasons table.
	ReasonCode string `json:"reason_code,omitempty"`
	// Requested is the bet's stake, or its target profit when
	// RequestedField says so.
	Requested      *float64 `json:"requested,omitempty"`
	RequestedField string   `json:"requested_field,omitempty"`
	AtRisk         *float64 `json:"at_risk,omitempty"`
	Accepted       *float64 `json:"accepted,omitempty"`
	Odds           *float64 `json:"odds,omitempty"`
	Profit         *float64 `json:"profit,omitempty"`
	Race           *Race    `json:"race,omitempty"`
	Totals         *Totals  `json:"totals,omitempty"`
	Time           string   `json:"time"`
	// Simulated marks an alert of a rehearsal: no real money moved.
	Simulated bool `json:"simulated,omitempty"`
	// Message is one line a person reads.
	Message string `json:"message"`
}

// Race is the race (or sports event) of a bet's alert.
type Race struct {
	Venue       string `json:"venue,omitempty"`
	Code        string `json:"code,omitempty"`
	EventNumber int    `json:"event_number,omitempty"`
	Event       string `json:"event,omitempty"`
	Start       string `json:"start,omitempty"`
}

// Totals are a run's sums, for its summary.
type Totals struct {
	Bets     int            `json:"bets"`
	ByStatus map[string]int `json:"by_status"`
	Staked   float64        `json:"staked"`
	AtRisk   float64        `json:"at_risk"`
	Accepted float64        `json:"accepted"`
	Profit   float64        `json:"profit"`
	EndedBy  string         `json:"end_reason"`
	ExitCode int            `json:"exit_code,omitempty"`
}

// Text is the message as a chat or e-mail shows it: one line, through the
// one sanitiser of human output, since a queued alert's body is read back
// from the journal, which another tool or a hand edit may have written.
func (m *Message) Text() string {
	return printable.Text(m.who() + ": " + m.Message)
}

// rehearsalMark follows whatever names an alert of a rehearsal.
const rehearsalMark = " (rehearsal)"

// who is whose the alert is: "betplan card", "betplan card (rehearsal)".
func (m *Message) who() string {
	who := "betplan"
	if m.Plan != "" {
		who += " " + m.Plan
	}
	if m.Simulated {
		who += rehearsalMark
	}
	return who
}

// Outcome is what one attempt to deliver came to.
type Outcome int

// The outcomes of an attempt.
const (
	// Delivered: the target said yes.
	Delivered Outcome = iota
	// NotDelivered: certainly not delivered (refused, unreachable): it
	// may be tried again.
	NotDelivered
	// Unknown: it may have been delivered (no answer after it was sent):
	// it is not sent again, so nothing is sent twice.
	Unknown
	// Refused: not delivered, and never sent again: the target answered
	// with a redirect (it read the body), or it is not one alerts may go
	// to (plain http off this machine).
	Refused
)

func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case NotDelivered, Refused:
		return "not delivered"
	}
	return "outcome unknown"
}

// AttemptTimeout bounds one attempt.
const AttemptTimeout = 10 * time.Second

// Send makes one attempt to deliver m to t. The error says why it was not
// delivered, in words that never hold the URL (nor name the target: the
// caller does, with Where).
func Send(ctx context.Context, client *http.Client, t Target, m *Message) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	switch {
	case t.webhook():
		return postWebhook(ctx, client, t, m)
	case t.generic():
		return postGeneric(ctx, client, t, m)
	}
	return sendService(ctx, t, m)
}

func (t Target) generic() bool {
	s, _, _ := strings.Cut(t.URL, "://")
	return strings.EqualFold(s, "generic")
}

// postGeneric sends a generic:// target through betplan's own client: the
// library's would follow redirects, speak plain http wherever disabletls
// says, and could not tell a refused dial from an answer lost after the
// body went out. The library only reads the URL and builds the body.
func postGeneric(ctx context.Context, client *http.Client, t Target, m *Message) (Outcome, error) {
	endpoint, err := plan.GenericEndpoint(t.URL)
	if err != nil {
		return Refused, errors.New("the URL is not one the service reads")
	}
	svc, err := (&router.ServiceRouter{}).Locate(t.URL)
	g, ok := svc.(*generic.Service)
	if err != nil || !ok {
		return Refused, errors.New("the URL is not one the service reads")
	}
	cfg := g.Config
	payload, err := g.GetPayload(cfg, types.Params{cfg.MessageKey: m.Text()})
	if err != nil {
		return Refused, errors.New("the URL's template does not make a message")
	}
	req, err := http.NewRequestWithContext(ctx, cfg.RequestMethod, endpoint.String(), payload)
	if err != nil {
		return Refused, errors.New("the URL does not make a request")
	}
	contentType := cfg.ContentType
	if cfg.Template == "" {
		contentType = "text/plain"
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", contentType)
	req.Header.Set("User-Agent", "betplan")
	// The headers the URL sets (@Name=value), as the library reads them.
	for k, v := range cfg.GetURL().Query() {
		if len(k) > 1 && k[0] == '@' && len(v) > 0 {
			req.Header.Set(k[1:], v[0])
		}
	}
	return post(client, req)
}

func postWebhook(ctx context.Context, client *http.Client, t Target, m *Message) (Outcome, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return NotDelivered, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		return NotDelivered, errors.New("the URL does not make a request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "betplan")
	return post(client, req)
}

// post makes one request to a target with betplan's own client (nil: the
// shared one, NewClient), and says what it came to. A redirect answer is
// final: the target read the body, and following it would send the alert
// again or to a receiver the plan never named.
func post(client *http.Client, req *http.Request) (Outcome, error) {
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return transportOutcome(err), errors.New(transportWords(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch resp.StatusCode / 100 {
	case 2:
		return Delivered, nil
	case 3:
		return Refused, fmt.Errorf("the target redirects (%s)", origin(req.URL))
	}
	return NotDelivered, fmt.Errorf("answered %s", resp.Status)
}

// transportOutcome says whether a request that failed may have reached
// the receiver: not when the connection was never made.
func transportOutcome(err error) Outcome {
	if errors.Is(err, errPlainOffLoopback) {
		return Refused
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return NotDelivered
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return NotDelivered
	}
	return Unknown
}

// transportWords says what went wrong with a request without its URL (a
// url.Error quotes it whole).
func transportWords(err error) string {
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.Is(err, errPlainOffLoopback):
		return errPlainOffLoopback.Error()
	case errors.As(err, &dns):
		return "host not found"
	case errors.As(err, &op) && op.Op == "dial":
		return "unreachable (" + op.Err.Error() + ")"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", AttemptTimeout)
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return "the request failed"
}

// sendService delivers through the notification library. Its errors quote
// the URL, so none is kept. The library sends through its own client, and
// some of its services retry inside themselves: betplan cannot tell an
// error before anything was sent from an answer lost after the message was
// posted, so every failure is an unknown outcome, never sent again.
func sendService(ctx context.Context, t Target, m *Message) (Outcome, error) {
	holdLibraries()
	svc, err := (&router.ServiceRouter{}).Locate(t.URL)
	if err != nil {
		// Nothing was sent (a matrix URL logs in here, and may again).
		return NotDelivered, errors.New("the URL is not one the service reads")
	}
	done := make(chan error, 1)
	params := titleParams(svc, m)
	go func() { done <- svc.Send(m.Text(), &params) }()
	select {
	case err := <-done:
		if err == nil {
			return Delivered, nil
		}
		var ne net.Error
		switch {
		case errors.Is(err, errRedirected):
			return Refused, fmt.Errorf("the target redirects (%s)", t.Where())
		case errors.Is(err, errPlainOffLoopback):
			return Refused, errPlainOffLoopback
		case errors.As(err, &ne) && ne.Timeout():
			return Unknown, errors.New("no answer in time")
		}
		return Unknown, errors.New("the service did not confirm the message (it may have been posted)")
	case <-ctx.Done():
		return Unknown, fmt.Errorf("no answer within %s", AttemptTimeout)
	}
}

// titleParams are the params that set the title a service shows above or
// before its message (an e-mail's subject, a push's title, a Zulip topic),
// so the title says a rehearsal too: a title the URL sets is kept, with
// " (rehearsal)" after it on a rehearsal; where the service always shows
// a title and the URL sets none, the library's stock words ("Shoutrrr
// Notification") or an empty subject give way to betplan's own, "betplan
// card" ("betplan card (rehearsal)"); a service that shows no title
// unless the URL sets one is given none, its message saying whose it is.
func titleParams(svc types.Service, m *Message) types.Params {
	cfg := serviceConfig(svc)
	if cfg == nil {
		return types.Params{}
	}
	for _, item := range format.GetConfigFormat(cfg).Items {
		f := item.Field()
		if !slices.ContainsFunc(f.Keys, func(k string) bool { return strings.EqualFold(k, types.TitleKey) }) {
			continue
		}
		pkr := format.NewPropKeyResolver(cfg)
		title, err := pkr.Get(types.TitleKey)
		switch {
		case err != nil:
			return types.Params{}
		case f.DefaultValue != "" && (title == "" || title == f.DefaultValue):
			// A title the service always shows (a mail's subject), left
			// as the library's stock words or empty.
			title = m.who()
		case title == "":
			return types.Params{}
		case m.Simulated:
			title += rehearsalMark
		default:
			return types.Params{}
		}
		// The field's first key: a service may read only that one from
		// the params (zulip reads "topic", never "title").
		return types.Params{strings.ToLower(f.Keys[0]): printable.Text(title)}
	}
	return types.Params{}
}

// serviceConfig is the configuration the library read from a service's
// URL (its Config field), or nil.
func serviceConfig(svc types.Service) types.ServiceConfig {
	v := reflect.ValueOf(svc)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("Config")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() || !f.CanInterface() {
		return nil
	}
	cfg, _ := f.Interface().(types.ServiceConfig)
	return cfg
}
