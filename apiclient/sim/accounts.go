package sim

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// session is a bookmaker account run by one of the user's bots.
type session struct {
	ID           int
	UserID       int
	Bookie       string
	BookieID     int
	DisplayName  string
	Balance      float64
	BonusBalance float64
	BotRunning   bool
	BotID        string
	BotIP        string
	UpdateTime   time.Time
	Started      time.Time

	// today's performance
	BetsToday, OKToday, FailedToday int
	StakeToday, ProfitToday         float64
}

func defaultSessions(userID int, now time.Time) []*session {
	return []*session{
		{ID: 4417, UserID: userID, Bookie: "Sportsbet", BookieID: 42, DisplayName: "Main Sportsbet", Balance: 1000, BonusBalance: 25,
			BotRunning: true, BotID: "bot-7f3a", BotIP: "203.0.113.17", UpdateTime: now, Started: now.Add(-90 * time.Minute)},
		{ID: 4418, UserID: userID, Bookie: "Ladbrokes", BookieID: 25, DisplayName: "Ladbrokes 2", Balance: 500, BonusBalance: 0,
			BotRunning: true, BotID: "bot-7f3a", BotIP: "203.0.113.17", UpdateTime: now, Started: now.Add(-90 * time.Minute)},
		{ID: 4419, UserID: userID, Bookie: "TAB", BookieID: 41, DisplayName: "TAB spare", Balance: 250, BonusBalance: 10,
			BotRunning: false, BotID: "bot-91c2", BotIP: "198.51.100.4", UpdateTime: now},
	}
}

// SessionInfo describes a bookmaker session, for tests.
type SessionInfo struct {
	ID          int
	Bookie      string
	DisplayName string
	Balance     float64
	BotRunning  bool
}

// Sessions returns the default user's sessions.
func (s *Service) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(s.clock.Now())
	out := make([]SessionInfo, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, SessionInfo{ID: ss.ID, Bookie: ss.Bookie, DisplayName: ss.DisplayName, Balance: ss.Balance, BotRunning: ss.BotRunning})
	}
	return out
}

// SetBotRunning starts or stops the bot of a session.
func (s *Service) SetBotRunning(sessionID int, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.advance(now)
	if ss := s.session(sessionID); ss != nil {
		ss.setRunning(running, now)
	}
}

func (ss *session) setRunning(on bool, now time.Time) {
	if on && !ss.BotRunning {
		ss.Started = now
	}
	ss.BotRunning = on
	ss.UpdateTime = now
}

func (s *Service) session(id int) *session {
	for _, ss := range s.sessions {
		if ss.ID == id {
			return ss
		}
	}
	return nil
}

func (ss *session) loginStatus() string {
	if ss.BotRunning {
		return "LOGGED_IN"
	}
	return "LOGGED_OUT"
}

func (ss *session) json() map[string]any {
	active := 0
	var started any
	if ss.BotRunning {
		active = 1
		started = stamp(ss.Started)
	}
	return map[string]any{
		"id":                 ss.ID,
		"bookie":             ss.Bookie,
		"display_name":       ss.DisplayName,
		"balance":            cents(ss.Balance),
		"bonus_balance":      cents(ss.BonusBalance),
		"update_time":        stamp(ss.UpdateTime),
		"bot_ip":             ss.BotIP,
		"bot_id":             ss.BotID,
		"bot_running":        ss.BotRunning,
		"running_sessions":   active,
		"login_status":       ss.loginStatus(),
		"last_login_attempt": stamp(ss.Started),
		"login_error":        nil,
		"session_details": map[string]any{
			"active_sessions":    active,
			"session_start_time": started,
			"last_activity":      stamp(ss.UpdateTime),
			"session_timeout":    3000,
		},
		"account_settings": map[string]any{
			"auto_login":      true,
			"login_frequency": 60,
			"max_bet_amount":  500,
			"min_bet_amount":  1,
			"use_bonus_first": false,
		},
		"performance_stats": map[string]any{
			"total_bets_today":      ss.BetsToday,
			"successful_bets_today": ss.OKToday,
			"failed_bets_today":     ss.FailedToday,
			"total_stake_today":     cents(ss.StakeToday),
			"profit_today":          cents(ss.ProfitToday),
		},
	}
}

func (s *Service) userSessions(u *user) []*session {
	var out []*session
	for _, ss := range s.sessions {
		if ss.UserID == u.ID {
			out = append(out, ss)
		}
	}
	return out
}

// GET /bookieaccount/ : a bare array.
func (s *Service) listSessions(c *call) {
	out := []any{}
	for _, ss := range s.userSessions(c.user) {
		out = append(out, ss.json())
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bookieaccount/{id}/
func (s *Service) getSession(c *call) {
	ss := s.session(c.id)
	if ss == nil || ss.UserID != c.user.ID {
		writeError(c.w, http.StatusNotFound, "Not found.")
		return
	}
	writeJSON(c.w, http.StatusOK, ss.json())
}

func runState(on bool) string {
	if on {
		return "RUNNING"
	}
	return "STOPPED"
}

// readCommand reads {"command": on|off} (the two control endpoints use
// different words); a bad command gets the field-level 400.
func readCommand(c *call, on, off string) (turnOn, ok bool) {
	m, ok := decodeBody(c)
	if !ok {
		return false, false
	}
	cmd, _ := str(m, "command")
	if cmd != on && cmd != off {
		fe := fieldErrors{}
		fe.add("command", `"`+cmd+`" is not a valid choice. Use "`+on+`" or "`+off+`".`)
		writeJSON(c.w, http.StatusBadRequest, fe)
		return false, false
	}
	return cmd == on, true
}

// POST /bookieaccount/control/{id}/ {"command": "ON"|"OFF"}
func (s *Service) controlSession(c *call) {
	turnOn, ok := readCommand(c, "ON", "OFF")
	if !ok {
		return
	}
	ss := s.session(c.id)
	if ss == nil || ss.UserID != c.user.ID {
		writeError(c.w, http.StatusNotFound, "Bookie account not found.")
		return
	}
	prev := ss.BotRunning
	ss.setRunning(turnOn, c.now)
	writeJSON(c.w, http.StatusOK, map[string]any{
		"status":          "success",
		"message":         "Bot " + strings.ToLower(runState(ss.BotRunning)) + " for " + ss.DisplayName,
		"account_id":      strconv.Itoa(ss.ID),
		"display_name":    ss.DisplayName,
		"bot_status":      runState(ss.BotRunning),
		"timestamp":       stamp(c.now),
		"previous_status": runState(prev),
		"session_info": map[string]any{
			"active_sessions":    boolInt(ss.BotRunning),
			"session_start_time": stamp(ss.Started),
		},
	})
}

// POST /bookieaccount/control/ {"command": "all_on"|"all_off"}
func (s *Service) controlAll(c *call) {
	on, ok := readCommand(c, "all_on", "all_off")
	if !ok {
		return
	}
	cmd := "all_off"
	if on {
		cmd = "all_on"
	}
	results := []any{}
	for _, ss := range s.userSessions(c.user) {
		ss.setRunning(on, c.now)
		results = append(results, map[string]any{
			"account_id": ss.ID, "display_name": ss.DisplayName, "status": "success",
			"message": "Bot " + strings.ToLower(runState(on)),
		})
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"status":            "success",
		"message":           "Command " + cmd + " sent to " + strconv.Itoa(len(results)) + " accounts",
		"affected_accounts": len(results),
		"results":           results,
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
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
		wait := kept[0].Add(time.Minute).Sub(c.now)
		secs := int((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		c.w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(c.w, http.StatusTooManyRequests, "Request was throttled. Expected available in "+strconv.Itoa(secs)+" seconds.")
		return true
	}
	*times = append(*times, c.now)
	return false
}

// POST /account/login/ {"email", "password"} → {"token"}
func (s *Service) login(c *call) {
	if rateLimited(c, &s.loginTimes, loginLimit) {
		return
	}
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	email, _ := str(m, "email")
	password, _ := str(m, "password")
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
		fe := fieldErrors{}
		fe.add("token", "This field is required.")
		writeJSON(c.w, http.StatusBadRequest, fe)
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
	times := s.limited["signup"]
	defer func() { s.limited["signup"] = times }()
	if rateLimited(c, &times, otherLimit) {
		return
	}
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	email, _ := str(m, "email")
	password, _ := str(m, "password")
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
	times := s.limited["forgot"]
	defer func() { s.limited["forgot"] = times }()
	if rateLimited(c, &times, otherLimit) {
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
	times := s.limited["reset"]
	defer func() { s.limited["reset"] = times }()
	if rateLimited(c, &times, otherLimit) {
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

// GET /account/readiness/: our shape, the spec shows none.
func (s *Service) readiness(c *call) {
	sessions := []any{}
	running := 0
	bots := map[string]bool{}
	for _, ss := range s.userSessions(c.user) {
		if ss.BotRunning {
			running++
			bots[ss.BotID] = true
		}
		sessions = append(sessions, map[string]any{
			"id": ss.ID, "display_name": ss.DisplayName, "bookie": ss.Bookie,
			"bot_id": ss.BotID, "bot_running": ss.BotRunning, "login_status": ss.loginStatus(),
			"balance": cents(ss.Balance),
		})
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"ready":               running > 0 && c.user.Active,
		"subscription_active": c.user.Active,
		"running_bots":        len(bots),
		"running_sessions":    running,
		"sessions":            sessions,
		"checked_at":          stamp(c.now),
	})
}

// GET /account/connect_activity/: a bare array of connection events.
func (s *Service) connectActivity(c *call) {
	out := []any{}
	seen := map[string]bool{}
	for _, ss := range s.userSessions(c.user) {
		if seen[ss.BotID] {
			continue
		}
		seen[ss.BotID] = true
		event := "DISCONNECTED"
		if ss.BotRunning {
			event = "CONNECTED"
		}
		out = append(out, map[string]any{"bot_id": ss.BotID, "bot_ip": ss.BotIP, "event": event, "timestamp": stamp(ss.UpdateTime)})
	}
	writeJSON(c.w, http.StatusOK, out)
}
