package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
)

// stopOptions are the flags of `betplan stop`.
type stopOptions struct {
	All         bool
	SessionsOff bool
	Resume      bool
	Yes         bool
	Wait        time.Duration
	state       stateOptions
	service     serviceOptions
}

func stopCommand() *command {
	return &command{
		name:    "stop",
		args:    "[PLAN...]",
		summary: "the kill switch: stop plans creating, cancel what they created, turn sessions off",
		exits: append([]exitDoc{
			{exitOK, "everything asked for was stopped, cancelled or turned off"},
			{exitFailed, "something could not be stopped, cancelled or turned off (see the message)"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "refused: no confirmation, or the service or the shared state cannot be used"},
		}, interruptedExits...),
		examples: `  # stop two plans creating and cancel what they created
  betplan stop --yes plans/saturday.yaml plans/greyhounds.yaml
  # everything, now: every open notification and every session's bot
  betplan stop --yes --all --sessions-off
  # let the plans create again
  betplan stop --resume plans/saturday.yaml
`,
		setup: bindTo((*stopOptions).bind, stopPlans),
	}
}

func (o *stopOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.All, "all", false, "also cancel every open notification of the account, whoever created it")
	fs.BoolVar(&o.SessionsOff, "sessions-off", false, "also turn every bookmaker session off (its bot stops placing)")
	fs.BoolVar(&o.Resume, "resume", false, "clear the plans' stop marks instead, so their runs create again")
	fs.BoolVar(&o.Yes, "yes", false, "do not ask for confirmation")
	fs.DurationVar(&o.Wait, "wait", 2*time.Minute, "how long to wait for a running run of a plan to see the stop and let its lock go")
	o.state.bind(fs)
	o.state.use = stateWrites
	o.service.bind(fs)
	o.service.refusing = refuseNotService // the stop mark is set in an outage too
}

func (o *stopOptions) validate() error {
	if o.Resume && (o.All || o.SessionsOff) {
		return usagef("--resume clears plans' stop marks; it does not go with --all or --sessions-off")
	}
	if o.Wait < 0 {
		return usagef("--wait %v: want 0 (do not wait) or more", o.Wait)
	}
	return o.service.validate()
}

// stopPlans is `betplan stop`. The order matters when money is moving:
// sessions off first (the bots stop placing at once), then each plan
// stopped and its notifications cancelled, then the rest of the account.
func stopPlans(ctx context.Context, sys *sysIO, o *stopOptions, args []string) error {
	if len(args) > 0 {
		// A folder or a glob names its plans, as for validate and run.
		files, err := (&accountOptions{}).planArgs(sys, args)
		if err != nil {
			return err
		}
		args = files
	}
	if o.Resume {
		return resumePlans(ctx, sys, o, args)
	}
	if len(args) == 0 && !o.All && !o.SessionsOff {
		return usagef("name the plans to stop, or pass --all or --sessions-off")
	}
	for _, path := range args {
		if _, err := loadPlan(sys, path); err != nil {
			return err
		}
	}
	confirm, s, err := setUpConfirmed(ctx, sys, o.Yes, false, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	conn := s.conn
	if confirm != nil {
		ok, err := confirm(stopSummary(o, args, conn.baseURL))
		if err != nil {
			return err
		}
		if !ok {
			return refusef("refused: stop was not confirmed")
		}
	}

	var failed []error
	if o.SessionsOff {
		if err := sessionsOff(ctx, sys.Stdout, conn.client); err != nil {
			failed = append(failed, err)
		}
	}
	for _, path := range args {
		if err := stopPlan(ctx, sys, o, s, path); err != nil {
			failed = append(failed, err)
		}
	}
	if o.All {
		if err := cancelAccount(ctx, sys.Stdout, conn.client, conn.clock.Now()); err != nil {
			failed = append(failed, err)
		}
	}
	return joinFailures(failed)
}

func stopSummary(o *stopOptions, plans []string, base string) string {
	var what []string
	if o.SessionsOff {
		what = append(what, "turn every bookmaker session off")
	}
	if len(plans) > 0 {
		what = append(what, fmt.Sprintf("stop plans %s from creating and cancel their open notifications", strings.Join(plans, ", ")))
	}
	if o.All {
		what = append(what, "cancel every open notification of the account")
	}
	return fmt.Sprintf("On %s: %s.", base, strings.Join(what, "; "))
}

// stopPlan stops one plan and prints its status afterwards, bet by bet,
// into its reports as `status` would.
func stopPlan(ctx context.Context, sys *sysIO, o *stopOptions, s *commandSetup, path string) error {
	p, err := loadPlan(sys, path)
	if err != nil {
		return err
	}
	opts := s.options(path)
	opts.LockTimeout = o.Wait
	res, err := engine.Stop(ctx, p, opts)
	var locked *state.LockedError
	if errors.As(err, &locked) {
		return refusef("plan %s is stopped (its runs create nothing more), but %v did not let the lock go within %s: run `betplan stop %s` again to cancel what it created",
			p.Name, locked.Owner, o.Wait, path)
	}
	return finishRun(sys, reportOptions{}, reporters.Format("text"), opts, res, err)
}

// resumePlans clears the stop marks of the named plans.
func resumePlans(ctx context.Context, sys *sysIO, o *stopOptions, args []string) error {
	if len(args) == 0 {
		return usagef("--resume needs the plans to resume")
	}
	for _, path := range args {
		opts, err := stateOnly(sys, &o.service, o.state, path)
		if err != nil {
			return err
		}
		if opts.BaseURL == "" {
			return usagef("no service: set --base-url or BETPLAN_BASE_URL (a stop mark is per plan and service)")
		}
		p, err := loadPlan(sys, path)
		if err != nil {
			return err
		}
		had, err := engine.Resume(ctx, p, opts)
		switch {
		case err != nil:
			return fmt.Errorf("plan %s: %w", p.Name, err)
		case had:
			fmt.Fprintf(sys.Stdout, "plan %s: resumed; its runs create again\n", p.Name)
		default:
			fmt.Fprintf(sys.Stdout, "plan %s: was not stopped\n", p.Name)
		}
	}
	return nil
}

// sessionsOff turns every session off and prints each account's outcome;
// the service reports partial failure inside a 200.
func sessionsOff(ctx context.Context, w io.Writer, c *apiclient.Client) error {
	res, err := c.ControlAllSessions(ctx, false)
	if err != nil {
		fmt.Fprintf(w, "sessions: could not turn them off: %v\n", err)
		return fmt.Errorf("turn sessions off: %w", err)
	}
	bad := 0
	for _, a := range res.Results {
		fmt.Fprintf(w, "session %s %s: %s", a.AccountID, a.DisplayName, orDash(a.Status))
		if a.Message != "" {
			fmt.Fprintf(w, " (%s)", a.Message)
		}
		fmt.Fprintln(w)
		if !strings.EqualFold(a.Status, "success") {
			bad++
		}
	}
	fmt.Fprintf(w, "sessions: %s\n", orDash(res.Message))
	if bad > 0 || (res.Status != "" && !strings.EqualFold(res.Status, "success")) {
		if bad == 1 {
			return errors.New("1 session was not turned off")
		}
		return fmt.Errorf("%d sessions were not turned off", bad)
	}
	return nil
}

// cancelAccount cancels every notification of the account that can still
// be cancelled, saying what happened to each.
func cancelAccount(ctx context.Context, w io.Writer, c *apiclient.Client, now time.Time) error {
	cancelled, bad, err := engine.CancelAccount(ctx, c, now, func(a engine.AccountCancel) {
		n := a.Notification
		what := fmt.Sprintf("notification %d (%s R%d, label %q)", n.ID, n.Tip.Competition.Name.First(), n.Tip.Competition.EventNumber, n.Label)
		if a.Err != nil {
			fmt.Fprintf(w, "could not cancel %s: %v\n", what, a.Err)
			return
		}
		if placed := float64(n.TotalAccepted); placed > 0 {
			// The bookmakers keep what sessions placed before the cancel.
			fmt.Fprintf(w, "cancelled %s: $%.2f already placed stays on; nothing more will be placed\n", what, placed)
		} else {
			fmt.Fprintf(w, "cancelled %s\n", what)
		}
	})
	var listing *engine.AccountListError
	if errors.As(err, &listing) {
		fmt.Fprintf(w, "account: listing notifications failed: %v\n", listing.Err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "account: %s cancelled", count(cancelled, "notification"))
	if bad > 0 {
		fmt.Fprintf(w, ", %d could not be", bad)
	}
	fmt.Fprintln(w)
	if bad > 0 {
		return fmt.Errorf("%s could not be cancelled", count(bad, "notification"))
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
