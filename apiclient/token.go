package apiclient

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// TokenClaims are the times a token carries. The service's tokens are JWTs
// (the docs say so, and the old login sample decodes to exp, iat and
// orig_iat); betplan reads them without verifying the signature, only to
// say how long a token has left. A zero time is a claim the token lacks.
type TokenClaims struct {
	ExpiresAt    time.Time // exp
	IssuedAt     time.Time // iat
	OrigIssuedAt time.Time // orig_iat: the login a refreshed token goes back to

	// Username and UserID name the account the token belongs to (claims
	// username and user_id), "" when it does not say.
	Username string
	UserID   string
}

// ErrNotJWT means a token is not a JWT, so nothing is known of its expiry.
var ErrNotJWT = errors.New("the token is not a JWT")

// ParseTokenClaims reads the time claims of a JWT without verifying it.
func ParseTokenClaims(tok string) (TokenClaims, error) {
	parts := strings.Split(strings.TrimSpace(tok), ".")
	if len(parts) != 3 {
		return TokenClaims{}, ErrNotJWT
	}
	// Tokens seen padded and unpadded both exist in the wild.
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return TokenClaims{}, fmt.Errorf("%w: payload: %v", ErrNotJWT, err)
	}
	var claims map[string]json.RawMessage
	if err := json.Unmarshal(payload, &claims); err != nil {
		return TokenClaims{}, fmt.Errorf("%w: payload: %v", ErrNotJWT, err)
	}
	var out TokenClaims
	out.Username, out.UserID = claimText(claims["username"]), claimText(claims["user_id"])
	for key, dst := range map[string]*time.Time{"exp": &out.ExpiresAt, "iat": &out.IssuedAt, "orig_iat": &out.OrigIssuedAt} {
		raw, ok := claims[key]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var secs Float
		if err := json.Unmarshal(raw, &secs); err != nil {
			return TokenClaims{}, fmt.Errorf("token claim %s: %v", key, err)
		}
		sec := int64(secs)
		*dst = time.Unix(sec, int64((float64(secs)-float64(sec))*1e9))
	}
	return out, nil
}

// claimText is a string or number claim as text; "" for anything else.
func claimText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// TokenClaims reads the claims of the token the client uses now. Without
// a token yet (credentials only), it is the error of the first
// authenticated call that would log in: make one first.
func (c *Client) TokenClaims() (TokenClaims, error) {
	tok := c.currentToken()
	if tok == "" {
		return TokenClaims{}, errors.New("no token yet: no authenticated call was made")
	}
	return ParseTokenClaims(tok)
}

// serverDate is a response's Date header and when, by the client's clock,
// it arrived.
type serverDate struct{ server, local time.Time }

func (c *Client) noteDate(h http.Header) {
	// Only a service on this machine is believed: a proxy or a
	// misconfigured service must not make a real-money run look like a
	// rehearsal.
	if h.Get(SimulatedHeader) != "" && isLoopbackHost(c.base.Hostname()) {
		c.simulated.Store(true)
	}
	d, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return
	}
	c.lastDate.Store(&serverDate{server: d, local: c.now()})
}

// SimulatedHeader marks the responses of a simulated service served by
// `betplan sim`: a rehearsal, whatever its URL.
const SimulatedHeader = "X-Betplan-Simulated"

// ServesSimulation reports whether a response of the service said it is a
// simulated one (SimulatedHeader), believed from a loopback base URL only.
func (c *Client) ServesSimulation() bool { return c.simulated.Load() }

// ServerDate is the service's clock as the Date header of its last
// response gave it, and this client's clock (WithNow) when that response
// arrived. The header has whole seconds, so the two differ by up to a
// second on a perfect clock. ok is false before any response with a Date.
func (c *Client) ServerDate() (server, local time.Time, ok bool) {
	d := c.lastDate.Load()
	if d == nil {
		return time.Time{}, time.Time{}, false
	}
	return d.server, d.local, true
}
