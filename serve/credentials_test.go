package serve

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// jwt is an unsigned token whose claims say it expires at exp and was
// logged in for at login: betplan reads a token's times, never its
// signature.
func jwt(exp, login time.Time) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc(fmt.Appendf(nil, `{"exp":%d,"iat":%d,"orig_iat":%d,"username":"punter@example.com"}`, exp.Unix(), login.Unix(), login.Unix())) + ".c2ln"
}

type clientCreds struct {
	c     *apiclient.Client
	login bool
}

func (c clientCreds) Claims() (apiclient.TokenClaims, error) { return c.c.TokenClaims() }
func (c clientCreds) CanLogIn() bool                         { return c.login }
func (c clientCreds) LogIn(ctx context.Context) error        { return c.c.Login(ctx) }
func (c clientCreds) Refresh(ctx context.Context) error      { return c.c.RefreshToken(ctx) }

func leadingServer(t *testing.T, creds Credentials, plans map[string][]notify.Target) *Server {
	s := New(Config{Dir: t.TempDir(), Logf: func(format string, args ...any) { t.Logf(format, args...) }, Takeover: time.Minute})
	s.SetCredentials(creds)
	s.term = &state.Term{Fence: 1, Leading: true}
	for name, targets := range plans {
		s.slots[name] = &slot{name: name, version: &Version{Name: name, Targets: targets}}
	}
	return s
}

func targets(t *testing.T, urls ...string) []notify.Target {
	var nts []plan.NotifyTarget
	for _, u := range urls {
		nts = append(nts, plan.NotifyTarget{URL: u, On: plan.DefaultAlertEvents()})
	}
	out, err := notify.Targets("plan.yaml", nts, os.Getenv)
	require.NoError(t, err)
	return out
}

// With a token only, the account is told once its token has 7 days left,
// and again at 1 day: each target once, whatever number of plans has it.
func TestTokenExpiringIsToldAtSevenDaysAndOneDay(t *testing.T) {
	t.Parallel()
	now := time.Now()
	shared, own := targets(t, "https://hooks.example.com/shared"), targets(t, "https://hooks.example.com/own")
	for _, tt := range []struct {
		name string
		left time.Duration
		want []string
	}{
		{"8 days", 8 * 24 * time.Hour, nil},
		{"3 days", 3 * 24 * time.Hour, []string{"7 days"}},
		{"20 hours", 20 * time.Hour, []string{"7 days", "1 day"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := apiclient.New("http://127.0.0.1:1", apiclient.WithToken(jwt(now.Add(tt.left), now.Add(-50*24*time.Hour))), apiclient.WithTokenCache(""))
			require.NoError(t, err)
			s := leadingServer(t, clientCreds{c: c}, map[string][]notify.Target{
				"a-plan": append(append([]notify.Target{}, shared...), own...),
				"b-plan": shared,
			})
			s.creds.check(context.Background())
			a, b := s.slots["a-plan"].drain(), s.slots["b-plan"].drain()
			assert.Empty(t, b, "a target two plans share is told once, through the first")
			var got []string
			for _, an := range a {
				assert.Equal(t, plan.EventTokenExpiring, an.Event)
				assert.ElementsMatch(t, []string{shared[0].ID(), own[0].ID()}, an.Targets)
				assert.Contains(t, an.Message.Message, "no e-mail and password")
				got = append(got, strings.Split(an.Key, "|")[1]) // token_expiring|<left>|<the token's>
			}
			assert.Equal(t, tt.want, got)
			left, known := s.creds.Left()
			assert.True(t, known)
			assert.InDelta(t, tt.left.Seconds(), left.Seconds(), 5)
		})
	}
}

// With an e-mail and a password, a token with less than 2 days left is
// replaced by a new login, and nobody is told anything.
func TestCredentialsLogInAgainBeforeTheTokenEnds(t *testing.T) {
	t.Parallel()
	svc := sim.New(sim.Options{Seed: 1})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	email, password := svc.Credentials()
	now := time.Now()
	c, err := apiclient.New(srv.URL, apiclient.WithToken(jwt(now.Add(30*time.Hour), now.Add(-58*24*time.Hour))),
		apiclient.WithCredentials(email, password), apiclient.WithTokenCache(""), apiclient.WithRateLimit(0, 1))
	require.NoError(t, err)
	s := leadingServer(t, clientCreds{c: c, login: true}, map[string][]notify.Target{"a-plan": targets(t, "https://hooks.example.com/x")})
	s.creds.check(context.Background())
	claims, err := c.TokenClaims()
	require.NoError(t, err)
	assert.Greater(t, time.Until(claims.ExpiresAt), 50*24*time.Hour, "logged in again: a fresh token")
	assert.Empty(t, s.slots["a-plan"].drain(), "nothing to tell")
	left, _ := s.creds.Left()
	assert.Greater(t, left, 50*24*time.Hour)
}
