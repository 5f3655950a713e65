package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
)

// runOptions are the flags of `betplan run`.
type runOptions struct {
	Yes            bool
	NoWait         bool
	AmbiguousGrace time.Duration
	LockTimeout    time.Duration
	AllowNoBot     bool
	NoLimits       bool
	Republish      []string
	rehearsal      rehearsalOptions
	report         reportOptions
	state          stateOptions
	account        accountOptions
	service        serviceOptions
}

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "PLAN|DIR|GLOB...",
		summary: "create the plans' bets exactly once and follow their outcomes",
		exits: append([]exitDoc{
			{exitOK, "every bet is final and none failed (with --no-wait: what was ready was created), or the plan is stopped (betplan stop): nothing was created and what it placed was reported"},
			{exitFailed, "the run finished but something failed: a bet failed, was not taken, is in doubt or unresolved, or the poll timeout passed"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "refused: a limit, a plan whose money has no bound (without --no-limits), no confirmation, no running bot, another run holds the lock, or the service cannot be reached, is not at that URL, or refuses the credentials"},
		}, interruptedExits...),
		examples: `  # rehearse on the embedded simulated service with a fast clock
  betplan run --sim examples/saturday-card.yaml
  # run for real, from a terminal (it asks before the first create)
  export BETPLAN_BASE_URL=https://betting.example.com BETPLAN_TOKEN=...
  betplan run plans/saturday.yaml
  # from cron: create what is ready now and exit
  betplan run --yes --no-wait plans/greyhounds.yaml
  # a tipster plan; --republish sends again a tip whose outcome is unknown
  export BETPLAN_TIPSTER_APIKEY=...
  betplan run --republish flem4-no3 plans/tips.yaml
`,
		colour: true,
		setup:  bindTo((*runOptions).bind, runPlan),
	}
}

func (o *runOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Yes, "yes", false, "do not ask for confirmation before creating bets on a real service")
	fs.BoolVar(&o.NoWait, "no-wait", false, "create what is ready now, record the rest as waiting, and exit")
	fs.BoolVar(&o.rehearsal.Sim, "sim", false, "run against an in-process simulated service with a fast clock")
	o.report.bind(fs)
	o.state.bind(fs)
	o.account.bind(fs)
	fs.DurationVar(&o.AmbiguousGrace, "ambiguous-grace", 60*time.Second, "how long to look a label up after an ambiguous create, 1s to 1h (warned below --http-timeout)")
	fs.DurationVar(&o.LockTimeout, "lock-timeout", 0, "how long to wait for another run of the plan to finish")
	fs.BoolVar(&o.AllowNoBot, "allow-no-bot", false, "create even when no targeted session has a running bot")
	fs.BoolVar(&o.NoLimits, "no-limits", false, "run for real a plan whose money has no bound (no max_total_stake, max_open_stake nor max_loss)")
	fs.StringArrayVar(&o.Republish, "republish", nil, "send again the tip `TIP-ID` whose publish has an unknown outcome (it may have reached subscribers, so only this flag sends it again); repeatable")
	o.report.bindFormat(fs)
	o.rehearsal.bindWorld(fs)
	fs.StringArrayVar(&o.rehearsal.Faults, "fault", nil, "with --sim: "+faultHelp)
	o.service.bind(fs)
	o.service.rehearsable = true
}

// Sane range of --ambiguous-grace: shorter, a create that lands late is
// not found by the look-ups and is sent again; longer, a run waits for
// nothing.
const (
	minAmbiguousGrace = time.Second
	maxAmbiguousGrace = time.Hour
)

func (o *runOptions) validate() error {
	if o.AmbiguousGrace < minAmbiguousGrace || o.AmbiguousGrace > maxAmbiguousGrace {
		return usagef("--ambiguous-grace %v: want at least %v and at most %v (look-ups after an ambiguous create must outlast a slow one)", o.AmbiguousGrace, minAmbiguousGrace, maxAmbiguousGrace)
	}
	if o.LockTimeout < 0 {
		return usagef("--lock-timeout %v: want 0 (do not wait) or more", o.LockTimeout)
	}
	return firstError(o.report.validate, o.rehearsal.validate, o.service.validate)
}

// graceWarning is a warning when the look-ups after an ambiguous create
// end sooner than one create may take to land.
func (o *runOptions) graceWarning() string {
	timeout := o.service.timeout(o.rehearsal.Sim)
	if o.AmbiguousGrace >= timeout {
		return ""
	}
	return fmt.Sprintf("warning: --ambiguous-grace %v is shorter than the HTTP timeout %v: a create that lands late may not be found by the look-ups and be created again", o.AmbiguousGrace, timeout)
}

// checkpointHook gives a run the crash tests' checkpoint; only the tests
// set it, so the release binary can never kill itself.
var checkpointHook = func(*sysIO) func(string) { return nil }

// storeHook lets the crash tests watch a run's store (when its lock is
// lost); only the tests set it.
var storeHook = func(_ *sysIO, s state.Store) state.Store { return s }

// runPlan is `betplan run PLAN`, or `betplan run SAVED` for a saved plan;
// several plans (a directory, a glob, several files) run together.
func runPlan(ctx context.Context, sys *sysIO, o *runOptions, args []string) (err error) {
	files, err := o.account.planArgs(sys, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return runPlans(ctx, sys, o, files)
	}
	path, f, err := o.report.planAndFormat(files)
	if err != nil {
		return err
	}
	simulate := o.rehearsal.Sim
	saved, isSaved, err := engine.ReadSavedPlan(path)
	if err != nil {
		return usagef("%v", err) // the error names the file
	}
	planPath := path
	if isSaved {
		planPath = saved.PlanFile
		if !filepath.IsAbs(planPath) {
			planPath = filepath.Join(filepath.Dir(path), planPath)
		}
	}
	if w := o.graceWarning(); w != "" {
		fmt.Fprintln(sys.Stderr, w)
	}
	p, account, err := o.account.loadPlan(sys, planPath)
	if err != nil {
		return err
	}
	targets, hb, err := planAlerts(sys, p, account, simulate)
	if err != nil {
		return err
	}
	var simulation func() bool // once connected
	if hb != "" {
		// err is the run's result: the heartbeat says how it exits.
		defer func() { heartbeatUnlessSimulation(ctx, sys, hb, exitCode(err), simulation) }()
	}
	if err := checkTipster(sys, p, o.Republish, simulate); err != nil {
		return err
	}
	if err := checkMoneyBound(sys, p, account, planPath, simulate, o.NoLimits); err != nil {
		return err
	}
	// Refused before any request, and before any report is written: the
	// reports of the plan's last run stay as that run wrote them.
	confirm, s, err := setUpConfirmed(sys, o.Yes, simulate, &o.service, o.state, &o.rehearsal)
	if err != nil {
		return err
	}
	defer s.close()
	simulation = s.conn.servesSimulation
	opts := s.options(planPath)
	opts.Account = account
	opts.Confirm = confirm
	opts.NoWait = o.NoWait
	opts.AllowNoBot = o.AllowNoBot
	opts.AmbiguousGrace = o.AmbiguousGrace
	opts.LockTimeout = o.LockTimeout
	opts.Checkpoint = checkpointHook(sys)
	opts.Store = storeHook(sys, opts.Store)
	opts.Republish = o.Republish
	opts.Notify = targets
	opts.ReportDir = absReportDir(o.report.Dir)
	if opts.Simulated {
		if err := opts.State.ForgetJournal(p.Name); err != nil {
			return err
		}
		opts.RehearsalPlans = []string{p.Name}
		fmt.Fprintf(sys.Stderr, "rehearsing %s on the simulated service at %s (simulated clock)\n", planPath, opts.BaseURL)
	}
	// Only a person at a terminal reads a line redrawn in place; its
	// redraws end with clear, before the reports are written.
	var live *liveTerminal
	if sys.IsTTY && sys.Getenv("CI") == "" {
		live = newLiveTerminal(sys.Stderr, sys.Width, opts.Clock.Now, func() reporters.Clock { return shownClock(s.conn.clock, s.conn.simulated) })
		opts.Live = live.progress
		opts.Log = live
		logRetries(s.conn.client, live, opts.Clock, s.conn.simulated)
		s.conn.logBudget(live)
		opts.Confirm = live.asking(opts.Confirm)
	}

	var res *engine.Result
	if isSaved {
		res, err = engine.ApplySaved(ctx, p, saved, opts)
	} else {
		res, err = engine.Run(ctx, p, opts)
	}
	if live != nil {
		live.clear()
	}
	return finishRun(sys, o.report, f, opts, res, err)
}

// checkTipster refuses, before any request, a run of a plan with tips but
// no package key, and a --republish naming no tip of the plan.
func checkTipster(sys *sysIO, p *plan.Plan, republish []string, simulate bool) error {
	ids := map[string]bool{}
	for _, t := range p.Tips {
		ids[t.ID] = true
	}
	for _, id := range republish {
		if !ids[id] {
			if len(ids) == 0 {
				return usagef("--republish %s: the plan has no tips", id)
			}
			return usagef("--republish %s: the plan has no tip %q (tips: %s)", id, id, strings.Join(slices.Sorted(maps.Keys(ids)), ", "))
		}
	}
	if len(p.Tips) > 0 && !simulate && sys.Getenv(tipsterKeyEnv) == "" {
		return usagef("the plan has tips: set %s to the tip package's API key (shown in the tipster dashboard)", tipsterKeyEnv)
	}
	return nil
}

// unboundedError refuses a real run of a plan whose money has no bound:
// nothing stops it putting at risk whatever its bets say.
type unboundedError struct{ planPath string }

// Refused makes it a safety refusal: exit 3.
func (e *unboundedError) Refused() bool { return true }

func (e *unboundedError) Error() string {
	return fmt.Sprintf("refused: %s puts money at risk with no bound: add limits.max_total_stake, max_open_stake or max_loss to it (or to the account file betplan.yaml), or pass --no-limits", e.planPath)
}

// checkMoneyBound refuses, before any request, a real run of a plan with
// bets and none of the limits that bound the money at risk, in the plan or
// in the account file; a rehearsal or --no-limits only warns.
func checkMoneyBound(sys *sysIO, p *plan.Plan, account *plan.Config, planPath string, simulate, noLimits bool) error {
	if len(p.Bets) == 0 || p.Limits.BoundsMoney() || (account != nil && account.Limits.BoundsMoney()) {
		return nil
	}
	if !simulate && !noLimits {
		return &unboundedError{planPath: planPath}
	}
	fmt.Fprintf(sys.Stderr, "warning: %s puts money at risk with no bound (no max_total_stake, max_open_stake nor max_loss)\n", planPath)
	return nil
}
