package sim

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

type token struct {
	User     *user
	IssuedAt time.Time
	OrigIat  time.Time // the original login, kept across refreshes
	Expired  bool
}

const (
	tokenLifetime = 60 * 24 * time.Hour
	refreshWindow = 7 * 24 * time.Hour
	loginLimit    = 30
	otherLimit    = 5
)

// Token returns a fresh valid token for the default user, issued at the
// clock's now.
func (s *Service) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issueToken(s.users[0], s.clock.Now(), time.Time{})
}

// TokenExpiringIn returns a valid token for the default user that expires
// d from the clock's now, as a token issued long ago would: for a client
// that warns before its token runs out.
func (s *Service) TokenExpiringIn(d time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	issued := s.clock.Now().Add(d - tokenLifetime)
	return s.issueToken(s.users[0], issued, time.Time{})
}

// ExpireTokens expires every token issued so far.
func (s *Service) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		t.Expired = true
	}
}

// issueToken makes a JWT shaped like the real service's (the old login
// doc's sample decodes to these claims). The signature is random: the sim
// knows its tokens by value, and a client must never need to verify one.
func (s *Service) issueToken(u *user, now, origIat time.Time) string {
	if origIat.IsZero() {
		origIat = now
	}
	var jti, sig [16]byte
	_, _ = rand.Read(jti[:])
	_, _ = rand.Read(sig[:])
	claims, _ := json.Marshal(map[string]any{
		"user_id":  u.ID,
		"username": u.Email,
		"exp":      now.Add(tokenLifetime).Unix(),
		"iat":      now.Unix(),
		"orig_iat": origIat.Unix(),
		"jti":      hex.EncodeToString(jti[:]),
	})
	enc := base64.RawURLEncoding
	tok := enc.EncodeToString([]byte(`{"typ":"JWT","alg":"HS256"}`)) + "." + enc.EncodeToString(claims) + "." + enc.EncodeToString(sig[:])
	s.tokens[tok] = &token{User: u, IssuedAt: now, OrigIat: origIat}
	return tok
}

func (s *Service) authenticate(r *http.Request, now time.Time) (*user, int, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, http.StatusUnauthorized, "Authentication credentials were not provided."
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || scheme != "Token" {
		return nil, http.StatusUnauthorized, "Invalid token header. Use: Token <token>."
	}
	t := s.tokens[strings.TrimSpace(tok)]
	if t == nil {
		return nil, http.StatusUnauthorized, "Invalid token."
	}
	if t.Expired || !now.Before(t.IssuedAt.Add(tokenLifetime)) {
		return nil, http.StatusUnauthorized, "Token has expired."
	}
	return t.User, 0, ""
}

// rateLimited applies a sliding one-minute window of sim time; it answers
// 429 with Retry-After and reports true when the limit is reached.
func rateLimited(c *call, times *[]time.Time, limit int) bool {
	kept := (*times)[:0]
	for _, t := range *times {
		if c.now.Sub(t) < time.Minute && !t.After(c.now) {
			kept = append(kept, t)
		}
	}
	*times = kept
	if len(kept) >= limit {
		writeThrottled(c.w, kept[0].Add(time.Minute).Sub(c.now))
		return true
	}
	*times = append(*times, c.now)
	return false
}

// throttled applies the sliding window of signup and the password resets,
// one window per endpoint.
func (s *Service) throttled(c *call, endpoint string) bool {
	times := s.limited[endpoint]
	limited := rateLimited(c, &times, otherLimit)
	s.limited[endpoint] = times
	return limited
}

// credentials reads the {"email", "password"} body of login and signup;
// not ok when the body was not JSON, which is already answered.
func credentials(c *call) (email, password string, ok bool) {
	m, ok := decodeBody(c)
	if !ok {
		return "", "", false
	}
	email, _ = str(m, "email")
	password, _ = str(m, "password")
	return email, password, true
}

// POST /account/login/ {"email", "password"} → {"token"}
func (s *Service) login(c *call) {
	if rateLimited(c, &s.loginTimes, loginLimit) {
		return
	}
	email, password, ok := credentials(c)
	if !ok {
		return
	}
	fe := fieldErrors{}
	if email == "" {
		fe.add("email", "This field is required.")
	}
	if password == "" {
		fe.add("password", "This field is required.")
	}
	if len(fe) > 0 {
		writeJSON(c.w, http.StatusBadRequest, fe)
		return
	}
	for _, u := range s.users {
		if strings.EqualFold(u.Email, email) && u.Password == password {
			writeJSON(c.w, http.StatusOK, map[string]string{"token": s.issueToken(u, c.now, time.Time{})})
			return
		}
	}
	writeError(c.w, http.StatusUnauthorized, "Unable to log in with provided credentials.")
}

// POST /account/refresh_token/ {"token"} → {"token"}, only within 7 days
// of the original login; the new token keeps that login time.
func (s *Service) refreshToken(c *call) {
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	tok, _ := str(m, "token")
	if tok == "" {
		if scheme, t, ok := strings.Cut(c.r.Header.Get("Authorization"), " "); ok && scheme == "Token" {
			tok = strings.TrimSpace(t)
		}
	}
	if tok == "" {
		writeFieldError(c.w, "token", "This field is required.")
		return
	}
	t := s.tokens[tok]
	switch {
	case t == nil:
		writeError(c.w, http.StatusUnauthorized, "Invalid token.")
	case t.Expired || !c.now.Before(t.IssuedAt.Add(tokenLifetime)):
		writeError(c.w, http.StatusUnauthorized, "Token has expired.")
	case !c.now.Before(t.OrigIat.Add(refreshWindow)):
		writeError(c.w, http.StatusUnauthorized, "refresh window expired: log in again")
	default:
		writeJSON(c.w, http.StatusOK, map[string]string{"token": s.issueToken(t.User, c.now, t.OrigIat)})
	}
}

// POST /account/signup/ {"email", "password"}
func (s *Service) signup(c *call) {
	if s.throttled(c, "signup") {
		return
	}
	email, password, ok := credentials(c)
	if !ok {
		return
	}
	fe := fieldErrors{}
	if !strings.Contains(email, "@") {
		fe.add("email", "Enter a valid email address.")
	}
	if len(password) < 8 {
		fe.add("password", "This password is too short. It must contain at least 8 characters.")
	}
	for _, u := range s.users {
		if strings.EqualFold(u.Email, email) {
			fe.add("email", "A user with that email already exists.")
		}
	}
	if len(fe) > 0 {
		writeJSON(c.w, http.StatusBadRequest, fe)
		return
	}
	// A new user has no subscription yet.
	u := &user{ID: s.newID(), Email: email, Password: password, Nickname: strings.Split(email, "@")[0]}
	s.users = append(s.users, u)
	writeJSON(c.w, http.StatusCreated, map[string]any{"id": u.ID, "email": u.Email})
}

// POST /account/forgot_password/ {"email"}: always the same answer, so it
// does not reveal who has an account.
func (s *Service) forgotPassword(c *call) {
	if s.throttled(c, "forgot") {
		return
	}
	if _, ok := decodeBody(c); !ok {
		return
	}
	writeJSON(c.w, http.StatusOK, map[string]string{"status": "success", "message": "If the address has an account, a reset e-mail was sent."})
}

// POST /account/reset_password/ {"token", "password"}: the sim sends no
// e-mails, so every reset token is invalid.
func (s *Service) resetPassword(c *call) {
	if s.throttled(c, "reset") {
		return
	}
	if _, ok := decodeBody(c); !ok {
		return
	}
	writeError(c.w, http.StatusBadRequest, "Invalid or expired reset token.")
}

// POST /account/logout/: disconnects the bot sessions; the token stays
// valid (it is a JWT in the real service and cannot be revoked).
func (s *Service) logout(c *call) {
	for _, ss := range s.userSessions(c.user) {
		ss.setRunning(false, c.now)
	}
	writeJSON(c.w, http.StatusOK, map[string]string{"status": "success", "message": "Bot sessions disconnected."})
}
