package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// Thresholds of the checks. A token within a week of expiry still works
// but a cron job would start failing soon; a clock a few seconds off only
// blurs timings, a minute off bets at the wrong time before a start.
const (
	tokenWarnWithin = 7 * 24 * time.Hour
	clockWarnOffset = 5 * time.Second
	clockFailOffset = time.Minute
)

// CheckLevel is how a check came out. Only fail makes the account not
// ready; warn and unknown are said but do not stop a run.
type CheckLevel string

const (
	LevelOK      CheckLevel = "ok"
	LevelWarn    CheckLevel = "warn"
	LevelUnknown CheckLevel = "unknown"
	LevelFail    CheckLevel = "fail"
)

// DoctorCheck is one check: its name, how it came out and why.
type DoctorCheck struct {
	Name   string     `json:"name"`
	Level  CheckLevel `json:"level"`
	Detail string     `json:"detail"`
}

// DoctorToken is the API token's expiry, when it carries one.
type DoctorToken struct {
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	LeftSeconds *int64     `json:"left_seconds,omitempty"`
}

// DoctorSession is one bookmaker session as doctor saw it.
type DoctorSession struct {
	ID          int64  `json:"id"`
	DisplayName string `json:"display_name"`
	Bookie      string `json:"bookie"`
	BotRunning  bool   `json:"bot_running"`
	LoginStatus string `json:"login_status,omitempty"`
	LoginError  string `json:"login_error,omitempty"`
	// LastLoginAttempt is when its bot last tried to log in (the failed
	// attempt a login error tells of).
	LastLoginAttempt *time.Time `json:"last_login_attempt,omitempty"`
	Balance          float64    `json:"balance"`
	Bonus            float64    `json:"bonus_balance"`
	// MinStake and MaxStake are its bookmaker's stake bounds
	// (account_settings min_bet_amount, max_bet_amount); absent when not
	// set.
	MinStake *float64 `json:"min_stake,omitempty"`
	MaxStake *float64 `json:"max_stake,omitempty"`
	// Stops says what will stop it betting, as far as betplan can tell
	// from the list of sessions: its bot stopped, not logged in, and
	// (given plans) their stakes outside its bounds. Empty: nothing it
	// can see.
	Stops []string `json:"stops"`
}

// DoctorClock compares this machine's clock with the service's Date.
type DoctorClock struct {
	ServiceDate   time.Time `json:"service_date"`
	LocalTime     time.Time `json:"local_time"`
	OffsetSeconds float64   `json:"offset_seconds"` // service minus local
}

// DoctorReport is what `doctor` found; its JSON form is the --format json
// output. Readiness is the service's snapshot as it came (its shape is not
// documented), so no field of it is lost.
type DoctorReport struct {
	Ready     bool            `json:"ready"`
	Reasons   []string        `json:"reasons,omitempty"`
	BaseURL   string          `json:"base_url"`
	Checks    []DoctorCheck   `json:"checks"`
	Token     DoctorToken     `json:"token"`
	Sessions  []DoctorSession `json:"sessions"`
	Readiness json.RawMessage `json:"readiness,omitempty"`
	Clock     *DoctorClock    `json:"clock,omitempty"`
	Account   *DoctorAccount  `json:"account,omitempty"`
	// SessionsError is why the sessions, the first request, could not be
	// listed: with nothing answered, the caller says the service is not
	// there rather than show checks that all fail for that one reason.
	SessionsError error `json:"-"`
	// sessions are the sessions as listed, for ExaminePlans.
	sessions []apiclient.Session
	// since is how the report gives a time of this machine's.
	since func(time.Time) string
}

func (r *DoctorReport) add(name string, level CheckLevel, format string, args ...any) {
	detail := fmt.Sprintf(format, args...)
	r.Checks = append(r.Checks, DoctorCheck{Name: name, Level: level, Detail: detail})
	if level == LevelFail {
		r.Reasons = append(r.Reasons, name+": "+detail)
	}
}

// DoctorBackend is what Examine reads of the service; *apiclient.Client
// satisfies it.
type DoctorBackend interface {
	ListSessions(ctx context.Context) ([]apiclient.Session, error)
	ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error)
	Readiness(ctx context.Context) (json.RawMessage, error)
	TokenClaims() (apiclient.TokenClaims, error)
	ServerDate() (server, local time.Time, ok bool)
}

// Examine is `betplan doctor`: whether a run can work now on the service
// at baseURL (and, with a store, whether the plans' shared state is
// reachable). It only reads: no create, no control, no lock taken, nothing
// written. Every check runs; a failing one never hides the others.
func Examine(ctx context.Context, c DoctorBackend, baseURL string, now time.Time, store state.Store) *DoctorReport {
	return ExamineWith(ctx, c, baseURL, now, store, nil)
}

// ExamineWith is Examine, saying a time of this machine's (a session's
// failed login) with since (nil: RFC 3339 in UTC).
func ExamineWith(ctx context.Context, c DoctorBackend, baseURL string, now time.Time, store state.Store, since func(time.Time) string) *DoctorReport {
	if since == nil {
		since = func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	}
	rep := &DoctorReport{BaseURL: baseURL, Sessions: []DoctorSession{}, since: since}

	sessions, err := c.ListSessions(ctx)
	rep.SessionsError = err
	if err != nil {
		if apiclient.IsUnauthorized(err) {
			rep.add("token", LevelFail, "the service refused it: %v", err)
		} else {
			rep.add("service", LevelFail, "cannot list the sessions: %v", err)
		}
	} else {
		rep.sessions = sessions
		examineToken(rep, c, now)
		examineSessions(rep, sessions)
	}
	if err == nil {
		examineSubscription(ctx, rep, c)
	}
	examineReadiness(ctx, rep, c)
	examineClock(rep, c, baseURL)
	if store != nil {
		if _, err := store.ReadLog(ctx, state.PlanKey{Name: "betplan-doctor", BaseURL: baseURL}); err != nil {
			rep.add("state", LevelFail, "%v", err)
		} else {
			rep.add("state", LevelOK, "%s is reachable", store)
		}
	}
	rep.Ready = len(rep.Reasons) == 0
	return rep
}

func examineToken(rep *DoctorReport, c DoctorBackend, now time.Time) {
	claims, err := c.TokenClaims()
	switch {
	case err != nil:
		rep.add("token", LevelUnknown, "accepted; its expiry is unknown (%v)", err)
		return
	case claims.ExpiresAt.IsZero():
		rep.add("token", LevelUnknown, "accepted; it carries no expiry (no exp claim)")
		return
	}
	exp := claims.ExpiresAt.UTC()
	left := exp.Sub(now)
	secs := int64(left / time.Second)
	rep.Token = DoctorToken{ExpiresAt: &exp, LeftSeconds: &secs}
	switch {
	case left <= 0:
		// The service accepted it, so our clock or the claim is off.
		rep.add("token", LevelWarn, "accepted, but its exp %s has passed by this machine's clock", exp.Format(time.RFC3339))
	case left < tokenWarnWithin:
		rep.add("token", LevelWarn, "valid for %s only (expires %s): log in again before then", roughDuration(left), exp.Format(time.RFC3339))
	default:
		rep.add("token", LevelOK, "valid for %s (expires %s)", roughDuration(left), exp.Format(time.RFC3339))
	}
}

// examineSessions needs one session whose bot runs and logged in: the
// service accepts every create, but with no such session nothing is
// placed.
func examineSessions(rep *DoctorReport, sessions []apiclient.Session) {
	usable, running := 0, 0
	for i := range sessions {
		s := &sessions[i]
		ds := DoctorSession{
			ID: int64(s.ID), DisplayName: s.DisplayName, Bookie: string(s.Bookie), BotRunning: bool(s.BotRunning),
			LoginStatus: s.LoginStatus, Balance: float64(s.Balance), Bonus: float64(s.BonusBalance), Stops: []string{},
		}
		if s.LoginError != nil {
			ds.LoginError = strings.TrimSpace(*s.LoginError)
		}
		if t := s.LastLoginAttempt.Time; !t.IsZero() {
			t = t.UTC()
			ds.LastLoginAttempt = &t
		}
		if lo, hi := s.StakeBounds(); lo > 0 || hi > 0 {
			if lo > 0 {
				ds.MinStake = &lo
			}
			if hi > 0 {
				ds.MaxStake = &hi
			}
		}
		if _, words := sessionState(s, rep.since); words != "" {
			ds.Stops = append(ds.Stops, words)
		}
		rep.Sessions = append(rep.Sessions, ds)
		if !ds.BotRunning {
			continue
		}
		running++
		if ds.LoginError != "" {
			rep.add("session "+fmt.Sprint(ds.ID), LevelWarn, "%s: bot running but %s", ds.DisplayName, strings.Join(ds.Stops, "; "))
			continue
		}
		usable++
	}
	switch {
	case len(sessions) == 0:
		rep.add("sessions", LevelFail, "the account has no bookmaker sessions")
	case usable == 0 && running > 0:
		rep.add("sessions", LevelFail, "%d of %d sessions have a running bot, but every one has a login error", running, len(sessions))
	case usable == 0:
		rep.add("sessions", LevelFail, "none of the %d sessions has a running bot: creates would reach no bookmaker", len(sessions))
	default:
		rep.add("sessions", LevelOK, "%d of %d sessions have a running, logged-in bot", usable, len(sessions))
	}
}

// examineSubscription reads one notification: creates need an active
// subscription, and only a gated endpoint tells (403).
func examineSubscription(ctx context.Context, rep *DoctorReport, c DoctorBackend) {
	_, err := c.ListNotifications(ctx, apiclient.ListNotificationsOptions{PageSize: 1})
	switch {
	case err == nil:
		rep.add("subscription", LevelOK, "active")
	case apiclient.IsForbidden(err):
		rep.add("subscription", LevelFail, "not active: %v", err)
	default:
		rep.add("subscription", LevelUnknown, "could not tell: %v", err)
	}
}

// examineReadiness keeps the service's own snapshot. Its shape is not
// documented: only a top-level boolean "ready" is read, and a false one is
// a warning, since what it weighs is unknown; the sessions check decides.
func examineReadiness(ctx context.Context, rep *DoctorReport, c DoctorBackend) {
	raw, err := c.Readiness(ctx)
	if err != nil {
		rep.add("readiness", LevelUnknown, "no snapshot: %v", err)
		return
	}
	rep.Readiness = raw
	var top map[string]json.RawMessage
	var ready apiclient.Bool
	if json.Unmarshal(raw, &top) != nil || top["ready"] == nil || json.Unmarshal(top["ready"], &ready) != nil {
		rep.add("readiness", LevelUnknown, "snapshot kept; it has no ready flag betplan can read")
		return
	}
	if !ready {
		rep.add("readiness", LevelWarn, "the service says its bots are not ready")
		return
	}
	rep.add("readiness", LevelOK, "the service says its bots are ready")
}

func examineClock(rep *DoctorReport, c DoctorBackend, baseURL string) {
	server, local, ok := c.ServerDate()
	if !ok {
		rep.add("clock", LevelUnknown, "no Date header from the service to compare with")
		return
	}
	// The header has whole seconds: compare like with like.
	off := server.Sub(local.Truncate(time.Second))
	rep.Clock = &DoctorClock{ServiceDate: server.UTC(), LocalTime: local.UTC(), OffsetSeconds: off.Round(time.Second).Seconds()}
	mag := off.Abs().Round(time.Second)
	if sim, ok := c.(interface{ ServesSimulation() bool }); ok && sim.ServesSimulation() && apiclient.IsLoopbackURL(baseURL) {
		// betplan sim on this machine keeps its own clock (--speed,
		// --sim-start): a run follows it, so an offset is no fault.
		rep.add("clock", LevelOK, "a simulated service's own clock, %s (%s from this machine's): runs follow it", server.UTC().Format(time.RFC3339), mag)
		return
	}
	switch {
	case mag > clockFailOffset:
		rep.add("clock", LevelFail, "this machine's clock is %s off the service's: bets would be timed wrongly; sync it (NTP)", mag)
	case mag > clockWarnOffset:
		rep.add("clock", LevelWarn, "this machine's clock is %s off the service's", mag)
	default:
		rep.add("clock", LevelOK, "within %s of the service's Date header", clockWarnOffset)
	}
}

// roughDuration says 59d 23h, 5h 12m or 40s.
func roughDuration(d time.Duration) string {
	switch {
	case d >= 24*time.Hour:
		return fmt.Sprintf("%dd %dh", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh %dm", d/time.Hour, d%time.Hour/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// DoctorAccount is the account file's limits and today's use of each,
// over every plan sharing the state.
type DoctorAccount struct {
	File string `json:"file"`
	// Plans are the plans with bets in Periods.
	Plans []string `json:"plans"`
	// Unread says why the other plans' journals or outcomes could not
	// be read; Periods are then missing.
	Unread string `json:"unread,omitempty"`
	// Periods are today's periods of the account's limits: the one of
	// this machine's clock and those of the bets on races within a day
	// of it (a meeting's day is its own time zone's).
	Periods []DoctorPeriod `json:"periods"`
}

// DoctorPeriod is the use of the account's limits in one period.
type DoctorPeriod struct {
	Period string        `json:"period,omitempty"` // "" for limits with no period
	Words  string        `json:"words"`
	Limits []DoctorLimit `json:"limits"`
}

// DoctorLimit is one account limit and its use. Used is absent for the
// limits that bound each bet or race, not the period.
type DoctorLimit struct {
	Name  string   `json:"name"`
	Limit float64  `json:"limit"`
	Used  *float64 `json:"used,omitempty"`
	// Reached: a run creates nothing more in the period under it.
	Reached bool   `json:"reached"`
	Words   string `json:"words"`
}

// ExaminePlans compares the stakes of plans' bets known offline with the
// bookmaker bounds of each session they reach, and says per session what
// is outside them: a warning ("Ladbrokes 2: max stake $50, plan saturday
// bets $80 (b2)"), never a failure, since the service does not say
// whether a bot caps a stake out of range or refuses the slip. It makes
// no request: the bounds come with the list of sessions Examine read.
func ExaminePlans(rep *DoctorReport, plans []*plan.Plan) {
	for i := range rep.sessions {
		s := &rep.sessions[i]
		lo, hi := s.StakeBounds()
		if lo <= 0 && hi <= 0 {
			continue
		}
		var words []string
		for _, p := range plans {
			var over, under []string
			overStake, underStake := 0.0, 0.0
			for _, b := range p.Bets {
				t := betTerms(b)
				if !t.targets(s) {
					continue
				}
				amount, ok := b.StaticAmount()
				stake := perSessionStake(t, amount)
				switch {
				case !ok || stake <= 0:
				case hi > 0 && stake > hi:
					over, overStake = append(over, b.ID), max(overStake, stake)
				case lo > 0 && stake < lo:
					under = append(under, b.ID)
					if underStake == 0 || stake < underStake {
						underStake = stake
					}
				}
			}
			if len(over) > 0 {
				words = append(words, fmt.Sprintf("max stake %s, plan %s bets %s (%s)", wholeUSD(hi), p.Name, wholeUSD(overStake), strings.Join(over, ", ")))
			}
			if len(under) > 0 {
				words = append(words, fmt.Sprintf("min stake %s, plan %s bets %s (%s)", wholeUSD(lo), p.Name, wholeUSD(underStake), strings.Join(under, ", ")))
			}
		}
		if len(words) == 0 {
			continue
		}
		if i < len(rep.Sessions) {
			rep.Sessions[i].Stops = append(rep.Sessions[i].Stops, words...)
		}
		rep.add("session "+fmt.Sprint(int64(s.ID)), LevelWarn, "%s: %s; warned, not refused: the service does not say whether its bot caps the stake or refuses the bet", s.Name(), strings.Join(words, "; "))
	}
}
