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
	LoginError   string // the last login error; "" when none
	// LoginFailedAt is when the login that LoginError tells of failed.
	LoginFailedAt time.Time
	// MinBet and MaxBet are the bookmaker account's stake bounds
	// (account_settings): its bot refuses a slip outside them, in the
	// bookmaker's words; it never caps the stake. 0: no bound.
	MinBet, MaxBet float64
	// RefusedMarkets are the markets the bookmaker refuses this account
	// (its bot refuses the slip, saying the market is not available).
	RefusedMarkets []string

	// today's performance
	BetsToday, OKToday, FailedToday int
	StakeToday, ProfitToday         float64
}

func defaultSessions(userID int, now time.Time) []*session {
	ss := []*session{
		{ID: 4417, UserID: userID, Bookie: "Sportsbet", BookieID: 42, DisplayName: "Main Sportsbet", Balance: 1000, BonusBalance: 25,
			BotRunning: true, BotID: "bot-7f3a", BotIP: "203.0.113.17", UpdateTime: now, Started: now.Add(-90 * time.Minute)},
		{ID: 4418, UserID: userID, Bookie: "Ladbrokes", BookieID: 25, DisplayName: "Ladbrokes 2", Balance: 500, BonusBalance: 0,
			BotRunning: true, BotID: "bot-7f3a", BotIP: "203.0.113.17", UpdateTime: now, Started: now.Add(-90 * time.Minute)},
		{ID: 4419, UserID: userID, Bookie: "TAB", BookieID: 41, DisplayName: "TAB spare", Balance: 250, BonusBalance: 10,
			BotRunning: false, BotID: "bot-91c2", BotIP: "198.51.100.4", UpdateTime: now},
	}
	for _, x := range ss {
		x.MinBet, x.MaxBet = 1, 1000
	}
	return ss
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
	if ss.LoginError != "" {
		return "LOGIN_FAILED"
	}
	if ss.BotRunning {
		return "LOGGED_IN"
	}
	return "LOGGED_OUT"
}

// lastLoginAttempt is when the session's bot last tried to log in: the
// failed attempt its login error tells of, else its start.
func (ss *session) lastLoginAttempt() time.Time {
	if ss.LoginError != "" && !ss.LoginFailedAt.IsZero() {
		return ss.LoginFailedAt
	}
	return ss.Started
}

// refusesMarket says why the session's bot refuses a slip on market, in
// the bookmaker's words; "" when the account may bet on it.
func (ss *session) refusesMarket(market string) string {
	for _, m := range ss.RefusedMarkets {
		if strings.EqualFold(m, market) {
			return "Market " + market + " is not available for this account."
		}
	}
	return ""
}

// refusesStake says why the session's bot refuses a stake outside its
// bookmaker's bounds, in the bookmaker's words; "" within them.
func (ss *session) refusesStake(amount float64) string {
	switch {
	case ss.MinBet > 0 && amount < ss.MinBet:
		return "The minimum stake is " + dollars(ss.MinBet) + "."
	case ss.MaxBet > 0 && amount > ss.MaxBet:
		return "The maximum stake is " + dollars(ss.MaxBet) + "."
	}
	return ""
}

// dollars is $50 or $2.50, as a bookmaker writes an amount.
func dollars(v float64) string {
	if v == float64(int64(v)) {
		return "$" + strconv.FormatInt(int64(v), 10)
	}
	return "$" + strconv.FormatFloat(v, 'f', 2, 64)
}

func (ss *session) json() map[string]any {
	active := 0
	var loginError any
	if ss.LoginError != "" {
		loginError = ss.LoginError
	}
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
		"last_login_attempt": stamp(ss.lastLoginAttempt()),
		"login_error":        loginError,
		"session_details": map[string]any{
			"active_sessions":    active,
			"session_start_time": started,
			"last_activity":      stamp(ss.UpdateTime),
			"session_timeout":    3000,
		},
		"account_settings": map[string]any{
			"auto_login":      true,
			"login_frequency": 60,
			"max_bet_amount":  ss.MaxBet,
			"min_bet_amount":  ss.MinBet,
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
		writeFieldError(c.w, "command", `"`+cmd+`" is not a valid choice. Use "`+on+`" or "`+off+`".`)
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

// GET /account/readiness/: our shape, the spec shows none.
func (s *Service) readiness(c *call) {
	sessions := []any{}
	running := 0
	bots := map[string]bool{}
	for _, ss := range s.userSessions(c.user) {
		var loginError any
		if ss.LoginError != "" {
			loginError = ss.LoginError
		}
		if ss.BotRunning && ss.LoginError == "" {
			running++
			bots[ss.BotID] = true
		}
		sessions = append(sessions, map[string]any{
			"id": ss.ID, "display_name": ss.DisplayName, "bookie": ss.Bookie,
			"bot_id": ss.BotID, "bot_running": ss.BotRunning, "login_status": ss.loginStatus(),
			"login_error": loginError, "balance": cents(ss.Balance),
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
