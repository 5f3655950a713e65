package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
)

// doctorOptions are the flags of `betplan doctor`.
type doctorOptions struct {
	Format  string
	state   stateOptions
	service serviceOptions
}

func doctorCommand() *command {
	return &command{
		name:    "doctor",
		summary: "check, read-only, whether a run can work now: token, bots, clock, state",
		exits: append([]exitDoc{
			{exitOK, "ready: a run can work now (warnings allowed)"},
			{exitFailed, "not ready: a check failed (the token, the bots, the clock, the state), or an API error"},
			{exitUsage, "usage error"},
			{exitRefused, "the service or the shared state cannot be reached, or the credentials are refused"},
		}, interruptedExits...),
		examples: `  # gate a cron run on it
  betplan doctor && betplan run --yes --no-wait plans/greyhounds.yaml
  betplan doctor --format json | jq .checks
`,
		setup: bindTo((*doctorOptions).bind, runDoctor),
	}
}

func (o *doctorOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "text", "output format: text or json")
	o.state.bindShared(fs)
	o.service.bind(fs)
}

// Thresholds of the checks. A token within a week of expiry still works
// but a cron job would start failing soon; a clock a few seconds off only
// blurs timings, a minute off bets at the wrong time before a start.
const (
	tokenWarnWithin = 7 * 24 * time.Hour
	clockWarnOffset = 5 * time.Second
	clockFailOffset = time.Minute
)

// checkLevel is how a check came out. Only fail makes the account not
// ready; warn and unknown are said but do not stop a run.
type checkLevel string

const (
	levelOK      checkLevel = "ok"
	levelWarn    checkLevel = "warn"
	levelUnknown checkLevel = "unknown"
	levelFail    checkLevel = "fail"
)

type doctorCheck struct {
	Name   string     `json:"name"`
	Level  checkLevel `json:"level"`
	Detail string     `json:"detail"`
}

type doctorToken struct {
	ExpiresAt   *time.Time `json:"expires_at,omitempty"`
	LeftSeconds *int64     `json:"left_seconds,omitempty"`
}

type doctorSession struct {
	ID          int64   `json:"id"`
	DisplayName string  `json:"display_name"`
	Bookie      string  `json:"bookie"`
	BotRunning  bool    `json:"bot_running"`
	LoginStatus string  `json:"login_status,omitempty"`
	LoginError  string  `json:"login_error,omitempty"`
	Balance     float64 `json:"balance"`
	Bonus       float64 `json:"bonus_balance"`
}

type doctorClock struct {
	ServiceDate   time.Time `json:"service_date"`
	LocalTime     time.Time `json:"local_time"`
	OffsetSeconds float64   `json:"offset_seconds"` // service minus local
}

// doctorReport is what `doctor` found; its JSON form is the --format json
// output. Readiness is the service's snapshot as it came (its shape is not
// documented), so no field of it is lost.
type doctorReport struct {
	Ready     bool            `json:"ready"`
	Reasons   []string        `json:"reasons,omitempty"`
	BaseURL   string          `json:"base_url"`
	Checks    []doctorCheck   `json:"checks"`
	Token     doctorToken     `json:"token"`
	Sessions  []doctorSession `json:"sessions"`
	Readiness json.RawMessage `json:"readiness,omitempty"`
	Clock     *doctorClock    `json:"clock,omitempty"`
}

func (r *doctorReport) add(name string, level checkLevel, format string, args ...any) {
	detail := fmt.Sprintf(format, args...)
	r.Checks = append(r.Checks, doctorCheck{Name: name, Level: level, Detail: detail})
	if level == levelFail {
		r.Reasons = append(r.Reasons, name+": "+detail)
	}
}

// runDoctor is `betplan doctor`. It only reads: no create, no control, no
// lock taken, nothing written to the shared state.
func runDoctor(ctx context.Context, sys *sysIO, o *doctorOptions, args []string) error {
	if len(args) > 0 {
		return usagef("doctor takes no arguments, got %q", args[0])
	}
	if o.Format != "text" && o.Format != "json" {
		return usagef("--format %q: want text or json", o.Format)
	}
	store, err := o.state.sharedStore(sys, o.service.Insecure)
	if err != nil {
		return err
	}
	conn, err := o.service.connect(sys)
	if err != nil {
		return err
	}
	defer conn.close()
	rep := examine(ctx, conn, store)
	if o.Format == "json" {
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeDoctorText(sys.Stdout, rep)
	}
	if !rep.Ready {
		return &exitError{code: exitFailed, err: fmt.Errorf("not ready: %s", strings.Join(rep.Reasons, "; "))}
	}
	return nil
}

// examine runs every check; a failing one never hides the others.
func examine(ctx context.Context, conn *connection, store engine.Store) *doctorReport {
	c := conn.client
	rep := &doctorReport{BaseURL: conn.baseURL, Sessions: []doctorSession{}}
	now := conn.clock.Now()

	sessions, err := c.ListSessions(ctx)
	if err != nil {
		if apiclient.IsUnauthorized(err) {
			rep.add("token", levelFail, "the service refused it: %v", err)
		} else {
			rep.add("service", levelFail, "cannot list the sessions: %v", err)
		}
	} else {
		checkToken(rep, c, now)
		checkSessions(rep, sessions)
	}
	if err == nil {
		checkSubscription(ctx, rep, c)
	}
	checkReadiness(ctx, rep, c)
	checkClock(rep, c)
	if store != nil {
		if _, err := store.ReadLog(ctx, engine.PlanKey{Name: "betplan-doctor", BaseURL: conn.baseURL}); err != nil {
			rep.add("state", levelFail, "%v", err)
		} else {
			rep.add("state", levelOK, "%s is reachable", store)
		}
	}
	rep.Ready = len(rep.Reasons) == 0
	return rep
}

func checkToken(rep *doctorReport, c *apiclient.Client, now time.Time) {
	claims, err := c.TokenClaims()
	switch {
	case err != nil:
		rep.add("token", levelUnknown, "accepted; its expiry is unknown (%v)", err)
		return
	case claims.ExpiresAt.IsZero():
		rep.add("token", levelUnknown, "accepted; it carries no expiry (no exp claim)")
		return
	}
	exp := claims.ExpiresAt.UTC()
	left := exp.Sub(now)
	secs := int64(left / time.Second)
	rep.Token = doctorToken{ExpiresAt: &exp, LeftSeconds: &secs}
	switch {
	case left <= 0:
		// The service accepted it, so our clock or the claim is off.
		rep.add("token", levelWarn, "accepted, but its exp %s has passed by this machine's clock", exp.Format(time.RFC3339))
	case left < tokenWarnWithin:
		rep.add("token", levelWarn, "valid for %s only (expires %s): log in again before then", roughDuration(left), exp.Format(time.RFC3339))
	default:
		rep.add("token", levelOK, "valid for %s (expires %s)", roughDuration(left), exp.Format(time.RFC3339))
	}
}

// checkSessions needs one session whose bot runs and logged in: the
// service accepts every create, but with no such session nothing is
// placed.
func checkSessions(rep *doctorReport, sessions []apiclient.Session) {
	usable, running := 0, 0
	for _, s := range sessions {
		ds := doctorSession{
			ID: int64(s.ID), DisplayName: s.DisplayName, Bookie: string(s.Bookie), BotRunning: bool(s.BotRunning),
			LoginStatus: s.LoginStatus, Balance: float64(s.Balance), Bonus: float64(s.BonusBalance),
		}
		if s.LoginError != nil {
			ds.LoginError = strings.TrimSpace(*s.LoginError)
		}
		rep.Sessions = append(rep.Sessions, ds)
		if !ds.BotRunning {
			continue
		}
		running++
		if ds.LoginError != "" {
			rep.add("session "+fmt.Sprint(ds.ID), levelWarn, "%s: bot running but login failed: %s", ds.DisplayName, ds.LoginError)
			continue
		}
		usable++
	}
	switch {
	case len(sessions) == 0:
		rep.add("sessions", levelFail, "the account has no bookmaker sessions")
	case usable == 0 && running > 0:
		rep.add("sessions", levelFail, "%d of %d sessions have a running bot, but every one has a login error", running, len(sessions))
	case usable == 0:
		rep.add("sessions", levelFail, "none of the %d sessions has a running bot: creates would reach no bookmaker", len(sessions))
	default:
		rep.add("sessions", levelOK, "%d of %d sessions have a running, logged-in bot", usable, len(sessions))
	}
}

// checkSubscription reads one notification: creates need an active
// subscription, and only a gated endpoint tells (403).
func checkSubscription(ctx context.Context, rep *doctorReport, c *apiclient.Client) {
	_, err := c.ListNotifications(ctx, apiclient.ListNotificationsOptions{PageSize: 1})
	switch {
	case err == nil:
		rep.add("subscription", levelOK, "active")
	case apiclient.IsForbidden(err):
		rep.add("subscription", levelFail, "not active: %v", err)
	default:
		rep.add("subscription", levelUnknown, "could not tell: %v", err)
	}
}

// checkReadiness keeps the service's own snapshot. Its shape is not
// documented: only a top-level boolean "ready" is read, and a false one is
// a warning, since what it weighs is unknown; the sessions check decides.
func checkReadiness(ctx context.Context, rep *doctorReport, c *apiclient.Client) {
	raw, err := c.Readiness(ctx)
	if err != nil {
		rep.add("readiness", levelUnknown, "no snapshot: %v", err)
		return
	}
	rep.Readiness = raw
	var top map[string]json.RawMessage
	var ready apiclient.Bool
	if json.Unmarshal(raw, &top) != nil || top["ready"] == nil || json.Unmarshal(top["ready"], &ready) != nil {
		rep.add("readiness", levelUnknown, "snapshot kept; it has no ready flag betplan can read")
		return
	}
	if !ready {
		rep.add("readiness", levelWarn, "the service says its bots are not ready")
		return
	}
	rep.add("readiness", levelOK, "the service says its bots are ready")
}

func checkClock(rep *doctorReport, c *apiclient.Client) {
	server, local, ok := c.ServerDate()
	if !ok {
		rep.add("clock", levelUnknown, "no Date header from the service to compare with")
		return
	}
	// The header has whole seconds: compare like with like.
	off := server.Sub(local.Truncate(time.Second))
	rep.Clock = &doctorClock{ServiceDate: server.UTC(), LocalTime: local.UTC(), OffsetSeconds: off.Round(time.Second).Seconds()}
	mag := off.Abs().Round(time.Second)
	switch {
	case mag > clockFailOffset:
		rep.add("clock", levelFail, "this machine's clock is %s off the service's: bets would be timed wrongly; sync it (NTP)", mag)
	case mag > clockWarnOffset:
		rep.add("clock", levelWarn, "this machine's clock is %s off the service's", mag)
	default:
		rep.add("clock", levelOK, "within %s of the service's Date header", clockWarnOffset)
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

func writeDoctorText(w io.Writer, rep *doctorReport) {
	fmt.Fprintf(w, "betplan doctor: %s\n", rep.BaseURL)
	for _, ch := range rep.Checks {
		fmt.Fprintf(w, "  %-7s %-13s %s\n", ch.Level, ch.Name, ch.Detail)
		if ch.Name == "sessions" {
			for _, s := range rep.Sessions {
				bot := "bot stopped"
				if s.BotRunning {
					bot = "bot running"
				}
				fmt.Fprintf(w, "          %d %s (%s): %s, balance %.2f, bonus %.2f", s.ID, s.DisplayName, s.Bookie, bot, s.Balance, s.Bonus)
				if s.LoginError != "" {
					fmt.Fprintf(w, ", login error: %s", s.LoginError)
				}
				fmt.Fprintln(w)
			}
		}
	}
	if rep.Ready {
		fmt.Fprintln(w, "ready")
		return
	}
	fmt.Fprintf(w, "NOT READY: %s\n", strings.Join(rep.Reasons, "; "))
}
