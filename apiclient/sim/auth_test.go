package sim_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestAuth(t *testing.T) {
	tests := []struct {
		name    string
		token   func(e *env) string
		advance time.Duration
		want    int
	}{
		{"valid token", func(e *env) string { return e.token }, 0, 200},
		{"no token", func(e *env) string { return "" }, 0, 401},
		{"unknown token", func(e *env) string { return "nope" }, 0, 401},
		{"valid on day 59", func(e *env) string { return e.token }, 59 * 24 * time.Hour, 200},
		{"expired after 60 days", func(e *env) string { return e.token }, 60 * 24 * time.Hour, 401},
		{"expired by ExpireTokens", func(e *env) string { e.svc.ExpireTokens(); return e.token }, 0, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, sim.Options{})
			tok := tt.token(e)
			e.clock.Advance(tt.advance)
			res := e.doToken(tok, "GET", "/bookieaccount/", nil)
			if res.Status != tt.want {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.want, res.Body)
			}
			if tt.want == 401 {
				var body map[string]string
				res.decode(t, &body)
				if body["error"] == "" {
					t.Errorf("401 body without error: %s", res.Body)
				}
			}
		})
	}
}

func TestLoginAndRefresh(t *testing.T) {
	e := setup(t, sim.Options{})
	if res := e.doToken("", "POST", "/account/login/", map[string]string{"email": "punter@example.com", "password": "wrong"}); res.Status != 401 {
		t.Fatalf("wrong password: %d", res.Status)
	}
	res := e.doToken("", "POST", "/account/login/", map[string]string{"email": "punter@example.com", "password": "sim-password"})
	var login struct{ Token string }
	res.decode(t, &login)
	if res.Status != 200 || login.Token == "" {
		t.Fatalf("login: %d %s", res.Status, res.Body)
	}

	tests := []struct {
		name  string
		after time.Duration
		want  int
	}{
		{"inside the window", 6 * 24 * time.Hour, 200},
		{"still inside, from a refreshed token", 12 * time.Hour, 200},
		{"outside the window", 24 * time.Hour, 401},
	}
	tok := login.Token
	for _, tt := range tests {
		e.clock.Advance(tt.after)
		res := e.doToken("", "POST", "/account/refresh_token/", map[string]string{"token": tok})
		if res.Status != tt.want {
			t.Fatalf("%s: status %d, want %d: %s", tt.name, res.Status, tt.want, res.Body)
		}
		if tt.want == 200 {
			var r struct{ Token string }
			res.decode(t, &r)
			if r.Token == "" || r.Token == tok {
				t.Fatalf("%s: refresh gave %q", tt.name, r.Token)
			}
			if got := e.doToken(r.Token, "GET", "/bookieaccount/", nil).Status; got != 200 {
				t.Fatalf("%s: refreshed token gets %d", tt.name, got)
			}
			tok = r.Token
		} else if !strings.Contains(string(res.Body), "refresh window expired") {
			t.Errorf("%s: body %s", tt.name, res.Body)
		}
	}
}

func TestLoginRateLimit(t *testing.T) {
	e := setup(t, sim.Options{})
	body := map[string]string{"email": "punter@example.com", "password": "sim-password"}
	for i := 0; i < 30; i++ {
		if res := e.doToken("", "POST", "/account/login/", body); res.Status != 200 {
			t.Fatalf("login %d: %d", i+1, res.Status)
		}
		e.clock.Advance(time.Second)
	}
	res := e.doToken("", "POST", "/account/login/", body)
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("31st login in a minute: %d", res.Status)
	}
	secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || secs < 1 || secs > 60 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	e.clock.Advance(time.Duration(secs) * time.Second)
	if res := e.doToken("", "POST", "/account/login/", body); res.Status != 200 {
		t.Fatalf("after Retry-After: %d", res.Status)
	}
}

func TestLapsedSubscription(t *testing.T) {
	e := setup(t, sim.Options{})
	res := e.doToken("", "POST", "/account/login/", map[string]string{"email": "lapsed@example.com", "password": "sim-password"})
	var login struct{ Token string }
	res.decode(t, &login)
	r := e.firstRace("Randwick")
	tests := []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/notification/create/", createBody(r, "1", "x"), 403},
		{"GET", "/notification/", nil, 403},
		{"GET", "/bet/", nil, 403},
		{"GET", "/bet/notification/1/", nil, 403},
		{"GET", "/competition/namecodes/", nil, 200},
		{"GET", "/bookieaccount/", nil, 200},
	}
	for _, tt := range tests {
		res := e.doToken(login.Token, tt.method, tt.path, tt.body)
		if res.Status != tt.want {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, res.Status, tt.want)
		}
		if tt.want == 403 {
			var body map[string]string
			_ = json.Unmarshal(res.Body, &body)
			if body["error"] != "Subscription is not active" {
				t.Errorf("%s %s: body %s", tt.method, tt.path, res.Body)
			}
		}
	}
}
