package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state/local"
)

// doctorOptions are the flags of `betplan doctor`.
type doctorOptions struct {
	Format  string
	state   stateOptions
	account accountOptions
	service serviceOptions
}

func doctorCommand() *command {
	return &command{
		name:    "doctor",
		args:    "[PLAN|DIR]",
		summary: "check, read-only, whether a run can work now: token, bots, clock, state, the account's limits",
		exits: append([]exitDoc{
			{exitOK, "ready: a run can work now (warnings allowed)"},
			{exitFailed, "not ready: a check failed (the token, the bots, the clock, the state), or an API error"},
			{exitUsage, "usage error"},
			{exitRefused, "nothing answers at the URL (nothing listening, or no betting service at that path), or the shared state cannot be reached"},
		}, interruptedExits...),
		examples: `  # gate a cron run on it
  betplan doctor && betplan run --yes --no-wait plans/greyhounds.yaml
  betplan doctor --format json | jq .checks
  # today's use of the account's limits (betplan.yaml) by the plans in plans/
  betplan doctor plans/
`,
		setup: bindTo((*doctorOptions).bind, runDoctor),
	}
}

func (o *doctorOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "text", "output format: text or json")
	o.state.bind(fs)
	o.state.use = stateExamined // a state out of reach is among its checks
	o.account.bind(fs)
	o.service.bind(fs)
	o.service.refusing = refuseUnreached // a refused token is among its checks
}

func (o *doctorOptions) validate() error {
	if o.Format != "text" && o.Format != "json" {
		return usagef("--format %q: want text or json", o.Format)
	}
	return o.service.validate()
}

// runDoctor is `betplan doctor`. It only reads: no create, no control, no
// lock taken, nothing written to the shared state.
func runDoctor(ctx context.Context, sys *sysIO, o *doctorOptions, args []string) error {
	if len(args) > 1 {
		return usagef("doctor takes at most one plan or folder, got %d", len(args))
	}
	where, err := doctorPlace(args)
	if err != nil {
		return err
	}
	account, err := o.account.loadAccount(sys, where)
	if err != nil {
		return err
	}
	s, err := setUp(ctx, sys, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	since := func(t time.Time) string { return shownClock(s.conn.clock, s.conn.simulated).Stamp(t) }
	rep := engine.ExamineWith(ctx, s.conn.client, s.conn.baseURL, s.conn.clock.Now(), s.shared, since)
	if err := rep.SessionsError; err != nil && !s.conn.client.Answered() && !apiclient.IsUnauthorized(err) {
		// Nothing answered at that URL (no betting service there, or
		// nothing listening): one line says so, not a table of checks
		// that all failed for that reason. A refused token keeps its
		// table: the service is there.
		if why := explainStart(s.conn.baseURL, err); engine.IsRefused(why) {
			return why
		}
	}
	if rep.SessionsError == nil && len(args) == 1 {
		// What will stop a session betting the plans' stakes: no request,
		// the bounds come with the sessions.
		engine.ExaminePlans(rep, doctorPlans(sys, &o.account, args))
	}
	if account != nil {
		layout := local.NewLayout(o.state.StateDir, where, false)
		engine.ExamineAccount(ctx, rep, s.conn.client, s.conn.clock, storeFor(layout, s.shared), s.conn.baseURL, account)
	}
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
		return fmt.Errorf("not ready: %s", strings.Join(rep.Reasons, "; "))
	}
	return nil
}

// doctorPlace is the file whose directory the account file is looked up
// from, and whose local state dir holds the plans' journals: the plan
// given, or a file in the folder given (default the current one).
func doctorPlace(args []string) (string, error) {
	dir := "."
	if len(args) == 1 {
		fi, err := os.Stat(args[0])
		if err != nil {
			return "", usagef("%v", err)
		}
		if !fi.IsDir() {
			return args[0], nil
		}
		dir = args[0]
	}
	return filepath.Join(dir, plan.ConfigFileName), nil
}

func writeDoctorText(w io.Writer, rep *engine.DoctorReport) {
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
				switch {
				case s.MinStake != nil && s.MaxStake != nil:
					fmt.Fprintf(w, ", stakes %s to %s", stakeWords(*s.MinStake), stakeWords(*s.MaxStake))
				case s.MaxStake != nil:
					fmt.Fprintf(w, ", stakes up to %s", stakeWords(*s.MaxStake))
				case s.MinStake != nil:
					fmt.Fprintf(w, ", stakes from %s", stakeWords(*s.MinStake))
				}
				if s.LoginError != "" {
					fmt.Fprintf(w, ", login error: %s", s.LoginError)
				}
				fmt.Fprintln(w)
			}
		}
		if ch.Name == "account" && rep.Account != nil {
			for _, p := range rep.Account.Periods {
				fmt.Fprintf(w, "          %s:\n", p.Words)
				for _, l := range p.Limits {
					fmt.Fprintf(w, "            %-18s %s\n", l.Name, l.Words)
				}
			}
		}
	}
	if rep.Ready {
		fmt.Fprintln(w, "ready")
		return
	}
	fmt.Fprintf(w, "NOT READY: %s\n", strings.Join(rep.Reasons, "; "))
}

// stakeWords is $50 or $2.50.
func stakeWords(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("$%d", int64(v))
	}
	return fmt.Sprintf("$%.2f", v)
}

// doctorPlans are the valid plans among doctor's argument (a plan, or
// the plans of a folder), for their stakes to be compared with the
// sessions' bounds. doctor checks the account, validate the plans: a
// plan that does not load is left out, and said so on stderr.
func doctorPlans(sys *sysIO, account *accountOptions, args []string) []*plan.Plan {
	files, err := account.planArgs(sys, args)
	if err != nil {
		return nil
	}
	var plans []*plan.Plan
	for _, f := range files {
		p, _, diags := plan.LoadSource(f)
		if p == nil || diags.HasErrors() {
			fmt.Fprintf(sys.Stderr, "betplan doctor: %s is not a valid plan (betplan validate %s): its stakes are not compared with the sessions' bounds\n", f, f)
			continue
		}
		plans = append(plans, p)
	}
	return plans
}
