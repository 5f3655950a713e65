package apiclient_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

func jwt(payload string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256"}`)) + "." + enc.EncodeToString([]byte(payload)) + ".c2ln"
}

func TestParseTokenClaims(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		exp     int64 // unix seconds; 0 = zero time
		wantErr error
	}{
		{"old doc sample claims", jwt(`{"username":"a@b.c","iat":1700000000,"exp":1700172800,"jti":"x","user_id":5,"orig_iat":1700000000}`), 1700172800, nil},
		{"exp as a string", jwt(`{"exp":"1700172800"}`), 1700172800, nil},
		{"padded payload", jwt(`{"exp":1700172800}`) + "", 1700172800, nil},
		{"no exp", jwt(`{"user_id":5}`), 0, nil},
		{"exp null", jwt(`{"exp":null}`), 0, nil},
		{"opaque token", "3f9a0c1d2e", 0, apiclient.ErrNotJWT},
		{"payload not base64", "a.!!!.c", 0, apiclient.ErrNotJWT},
		{"payload not JSON", "a." + base64.RawURLEncoding.EncodeToString([]byte("nope")) + ".c", 0, apiclient.ErrNotJWT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := apiclient.ParseTokenClaims(tt.token)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			must(t, err)
			if tt.exp == 0 {
				eq(t, "ExpiresAt.IsZero()", got.ExpiresAt.IsZero(), true)
				return
			}
			eq(t, "ExpiresAt", got.ExpiresAt.Unix(), tt.exp)
		})
	}
}

// The simulated service's tokens are JWTs that expire 60 days after issue,
// and a token issued to expire soon says so.
func TestTokenClaimsOfSimTokens(t *testing.T) {
	clock := sim.NewManualClock(time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC))
	svc := sim.New(sim.Options{Clock: clock})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	for _, tt := range []struct {
		name  string
		token string
		left  time.Duration
	}{
		{"fresh", svc.Token(), 60 * 24 * time.Hour},
		{"expiring", svc.TokenExpiringIn(72 * time.Hour), 72 * time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiclient.New(srv.URL, apiclient.WithToken(tt.token), apiclient.WithTokenCache(""), apiclient.WithNow(clock.Now))
			must(t, err)
			_, err = c.ListSessions(context.Background())
			must(t, err)
			claims, err := c.TokenClaims()
			must(t, err)
			eq(t, "time left", claims.ExpiresAt.Sub(clock.Now()), tt.left)
		})
	}
}

// ServerDate is the Date header of the last response next to the client's
// clock: equal to the second on a sim whose clock the client shares, and
// off by the skew the sim is given.
func TestServerDate(t *testing.T) {
	clock := sim.NewManualClock(time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC))
	svc := sim.New(sim.Options{Clock: clock})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	c, err := apiclient.New(srv.URL, apiclient.WithToken(svc.Token()), apiclient.WithTokenCache(""), apiclient.WithNow(clock.Now))
	must(t, err)
	if _, _, ok := c.ServerDate(); ok {
		t.Fatal("ServerDate ok before any response")
	}
	for _, skew := range []time.Duration{0, -90 * time.Second, 2 * time.Hour} {
		svc.SetDateSkew(skew)
		_, err := c.Readiness(context.Background())
		must(t, err)
		server, local, ok := c.ServerDate()
		eq(t, "ok", ok, true)
		eq(t, "offset", server.Sub(local), skew)
	}
}

// The account a token belongs to is read from its username and user_id
// claims, whichever it carries; a token that says nothing names none.
func TestTokenClaimsAccount(t *testing.T) {
	tests := []struct {
		name, token, username, userID string
	}{
		{"both", jwt(`{"username":"a@b.c","user_id":5}`), "a@b.c", "5"},
		{"id as a string", jwt(`{"user_id":"u-7"}`), "", "u-7"},
		{"neither", jwt(`{"exp":1700172800}`), "", ""},
		{"not text", jwt(`{"username":{"x":1},"user_id":[1]}`), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := apiclient.ParseTokenClaims(tt.token)
			must(t, err)
			eq(t, "Username", got.Username, tt.username)
			eq(t, "UserID", got.UserID, tt.userID)
		})
	}
}
