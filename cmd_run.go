package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// runOptions are the flags of `betplan run`.
type runOptions struct {
	Yes            bool
	NoWait         bool
	AmbiguousGrace time.Duration
	LockTimeout    time.Duration
	AllowNoBot     bool
	Republish      []string
	rehearsal      rehearsalOptions
	report         reportOptions
	state          stateOptions
	service        serviceOptions
}

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "PLAN",
		summary: "create the plan's bets exactly once and follow their outcomes",
		exits: append([]exitDoc{
			{exitOK, "every bet is final and none failed (with --no-wait: what was ready was created)"},
			{exitFailed, "the run finished but something failed: a bet failed, was not taken, is in doubt or unresolved, or the poll timeout passed"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "refused: a limit, no confirmation, no running bot, another run holds the lock, or the service cannot be reached or refuses the credentials"},
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
	fs.DurationVar(&o.AmbiguousGrace, "ambiguous-grace", 60*time.Second, "how long to look a label up after an ambiguous create")
	fs.DurationVar(&o.LockTimeout, "lock-timeout", 0, "how long to wait for another run of the plan to finish")
	fs.BoolVar(&o.AllowNoBot, "allow-no-bot", false, "create even when no targeted session has a running bot")
	fs.StringArrayVar(&o.Republish, "republish", nil, "send again the tip `TIP-ID` whose publish has an unknown outcome (it may have reached subscribers, so only this flag sends it again); repeatable")
	o.report.bindFormat(fs)
	o.rehearsal.bindWorld(fs)
	fs.StringArrayVar(&o.rehearsal.Faults, "fault", nil, "with --sim: "+faultHelp)
	o.service.bind(fs)
	o.service.rehearsable = true
}

// checkpointHook gives a run the crash tests' checkpoint; only the tests
// set it, so the release binary can never kill itself.
var checkpointHook = func(*sysIO) func(string) { return nil }

// runPlan is `betplan run PLAN`, or `betplan run SAVED` for a saved plan.
func runPlan(ctx context.Context, sys *sysIO, o *runOptions, args []string) (err error) {
	path, f, err := o.report.planAndFormat(args)
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
	if len(o.rehearsal.Faults) > 0 && !simulate {
		return usagef("--fault injects faults into the simulated service: use it with --sim")
	}
	faults, err := parseFaults(o.rehearsal.Faults)
	if err != nil {
		return err
	}
	p, err := loadPlan(sys, planPath)
	if err != nil {
		return err
	}
	targets, err := alertTargets(sys, p, simulate)
	if err != nil {
		return err
	}
	hb, err := heartbeatURL(sys, p, simulate)
	if err != nil {
		return err
	}
	if hb != "" {
		// err is the run's result: the heartbeat says how it exits.
		defer func() { heartbeat(ctx, sys, hb, exitCodeOf(err)) }()
	}
	if err := checkTipster(sys, p, o.Republish, simulate); err != nil {
		return err
	}
	// Refused before any request, and before any report is written: the
	// reports of the plan's last run stay as that run wrote them.
	confirm, err := confirmer(sys, o.Yes, simulate)
	if err != nil {
		return err
	}
	conn, err := o.service.connectOrRehearse(sys, simulate, o.rehearsal.World, faults...)
	if err != nil {
		return err
	}
	defer conn.close()

	opts, err := engineOptions(sys, planPath, o.state, conn)
	if err != nil {
		return err
	}
	opts.Confirm = confirm
	opts.NoWait = o.NoWait
	opts.AllowNoBot = o.AllowNoBot
	opts.AmbiguousGrace = o.AmbiguousGrace
	opts.LockTimeout = o.LockTimeout
	opts.Checkpoint = checkpointHook(sys)
	opts.Republish = o.Republish
	opts.Notify = targets
	if conn.simulated {
		if err := opts.State.ForgetJournal(p.Name); err != nil {
			return err
		}
		fmt.Fprintf(sys.Stderr, "rehearsing %s on the simulated service at %s (simulated clock)\n", planPath, conn.baseURL)
	}
	// Only a person at a terminal reads a line redrawn in place; its
	// redraws end with clear, before the reports are written.
	var live *liveTerminal
	if sys.IsTTY && sys.Getenv("CI") == "" {
		live = newLiveTerminal(sys.Stderr, sys.Width, opts.Clock.Now)
		opts.Live = live.progress
		opts.Log = live
		logRetries(conn.client, live, opts.Clock)
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
	var locked *engine.LockedError
	if errors.As(err, &locked) {
		return &exitError{code: exitRefused, err: fmt.Errorf("refused: %v: wait for that run to end, or pass --lock-timeout 30m to wait for it", locked)}
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
