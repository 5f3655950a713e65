package sim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

// start is a Saturday afternoon in daylight time.
var start = time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)

type env struct {
	t     *testing.T
	svc   *sim.Service
	clock *sim.ManualClock
	srv   *httptest.Server
	token string
}

func setup(t *testing.T, opts sim.Options) *env {
	t.Helper()
	clock := sim.NewManualClock(start)
	opts.Clock = clock
	svc := sim.New(opts)
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return &env{t: t, svc: svc, clock: clock, srv: srv, token: svc.Token()}
}

// serverRequest is an incoming request for calling ServeHTTP directly,
// body (if any) sent as JSON.
func serverRequest(method, path, token string, body any) *http.Request {
	var buf []byte
	if body != nil {
		buf, _ = json.Marshal(body)
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(buf))
	req.Header.Set("Authorization", "Token "+token)
	return req
}

type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r resp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

func (e *env) do(method, path string, body any) resp {
	e.t.Helper()
	return e.doToken(e.token, method, path, body)
}

func (e *env) doToken(token, method, path string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// firstRace is the earliest upcoming race at a venue.
func (e *env) firstRace(venue string) sim.RaceInfo {
	e.t.Helper()
	now := e.clock.Now()
	for _, r := range e.svc.Races() {
		if r.Venue == venue && r.Start.After(now) {
			return r
		}
	}
	e.t.Fatalf("no upcoming race at %s", venue)
	return sim.RaceInfo{}
}

func createBody(r sim.RaceInfo, selection, label string) map[string]any {
	return map[string]any{
		"type": "Fixed Wager", "sports": "RACING", "competition": r.Venue, "code": r.Code,
		"event_number": r.EventNumber, "market": "Fixed Win", "selection": selection,
		"stake": 10, "label": label,
	}
}

type notification struct {
	ID            int     `json:"id"`
	Label         string  `json:"label"`
	TotalAccepted float64 `json:"total_accepted"`
	AverageOdds   float64 `json:"average_odds"`
	Profit        float64 `json:"profit"`
	IsCanceled    bool    `json:"is_canceled"`
	Tip           struct {
		Profit      float64 `json:"profit"`
		ResultTime  *string `json:"result_time"`
		Competition struct {
			Result string `json:"result"`
		} `json:"competition"`
	} `json:"tip"`
}

type betRecord struct {
	ID                int     `json:"id"`
	DisplayName       string  `json:"display_name"`
	Amount            float64 `json:"amount"`
	CurrentOdds       float64 `json:"current_odds"`
	SubmitResult      string  `json:"submit_result"`
	SubmitError       string  `json:"submit_error"`
	Profit            float64 `json:"profit"`
	Status            string  `json:"status"`
	TransactionResult string  `json:"transaction_result"`
}

type betsOfNotification struct {
	IsBetGroup int         `json:"is_bet_group"`
	Bets       []betRecord `json:"bets"`
}

type page struct {
	Count      int               `json:"count"`
	Next       *string           `json:"next"`
	Previous   *string           `json:"previous"`
	TotalPages int               `json:"total_pages"`
	Results    []json.RawMessage `json:"results"`
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
