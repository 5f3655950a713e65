package cli

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
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
	Verbose        bool
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
			{exitOK, "every bet is final and none failed (with --no-wait: what was ready was created); or the plan's limits did their job (end reason limit: a stop_loss or take_profit reached, a cap that an earlier run of the period already reported, the plan's own odds bound); or the plan is stopped (betplan stop): nothing was created and what it placed was reported"},
			{exitFailed, "the run finished but something failed: a bet failed, was not taken, is in doubt or unresolved, or the poll timeout passed"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "refused: a cap of the limits held a bet back for the first time in its period, bets that cannot fit the limits together, a plan whose money has no bound (without --no-limits), no confirmation, no running bot, another run holds the lock, or the service cannot be reached, is not at that URL, or refuses the credentials"},
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
		colour:       true,
		waitsForLock: true,
		setup:        bindTo((*runOptions).bind, runPlan),
	}
}

func (o *runOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Yes, "yes", false, "do not ask for confirmation before creating bets on a real service")
	fs.BoolVar(&o.NoWait, "no-wait", false, "create what is ready now, record the rest as waiting, and exit")
	fs.BoolVar(&o.rehearsal.Sim, "sim", false, "run against an in-process simulated service with a fast clock")
	o.report.bind(fs)
	o.state.bind(fs)
	o.state.use = stateWrites
	o.account.bind(fs)
	fs.DurationVar(&o.AmbiguousGrace, "ambiguous-grace", 60*time.Second, "how long to look a label up after an ambiguous create, 1s to 1h (warned below --http-timeout)")
	fs.DurationVar(&o.LockTimeout, "lock-timeout", 0, "how long to wait for another run of the plan to finish")
	fs.BoolVar(&o.AllowNoBot, "allow-no-bot", false, "create even when no targeted session has a running bot")
	fs.BoolVar(&o.NoLimits, "no-limits", false, "run for real a plan whose money has no bound (no "+plan.BoundingLimits("nor")+", or a lay without check_max_odds)")
	fs.BoolVar(&o.Verbose, "verbose", false, "list every bet the confirmation asks for, with how its risk was worked out (default one line per race)")
	fs.StringArrayVar(&o.Republish, "republish", nil, "send again the tip `TIP-ID` whose publish has an unknown outcome (it may have reached subscribers, so only this flag sends it again); repeatable")
	o.report.bindFormat(fs)
	o.rehearsal.bindWorld(fs)
	o.rehearsal.Faults.bind(fs, "with --sim: ")
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

// planToRun is what one plan brings to its run: its file and plan, its
// account file, its alerts' targets and the tips --republish sends again
// (each plan its own), and the plans rehearsed with it.
type planToRun struct {
	file      string
	plan      *plan.Plan
	account   *plan.Config
	notify    []notify.Target
	republish []string
	rehearsed []string
	// reportDir is where its reports go when --report-dir says (absolute:
	// the journal keeps it, so a status from another folder writes there).
	reportDir string
}

// engineOptions are the engine's options for one plan of `betplan run`:
// the setup's connection and store, with the run's flags and the test
// hooks on them. It is the one place they are copied, whether a plan
// runs alone or with others; each path then sets only how the run is
// shown and shared (log, live line, question, clock, backend). A
// rehearsal forgets the plan's last rehearsed journal here: each starts
// afresh.
func (o *runOptions) engineOptions(sys *sysIO, s *commandSetup, r planToRun) (engine.Options, error) {
	opts := s.options(r.file)
	opts.Account = r.account
	opts.Notify = r.notify
	opts.Republish = r.republish
	opts.NoWait = o.NoWait
	opts.AllowNoBot = o.AllowNoBot
	opts.Verbose = o.Verbose
	opts.AmbiguousGrace = o.AmbiguousGrace
	opts.LockTimeout = o.LockTimeout
	opts.Checkpoint = checkpointHook(sys)
	opts.Store = storeHook(sys, opts.Store)
	opts.ReportDir = r.reportDir
	if opts.Simulated {
		if err := opts.State.ForgetJournal(r.plan.Name); err != nil {
			return engine.Options{}, err
		}
		opts.RehearsalPlans = r.rehearsed
	}
	return opts, nil
}

// runPlan is `betplan run PLAN`, or `betplan run SAVED` for a saved plan;
// several plans (a directory, a glob, several files) run together.
func runPlan(ctx context.Context, sys *sysIO, o *runOptions, args []string) (err error) {
	files, err := o.account.planArgs(sys, args)
	if err != nil {
		return err
	}
	if w := o.graceWarning(); w != "" {
		fmt.Fprintln(sys.Stderr, w)
	}
	if len(files) > 1 {
		return runPlans(ctx, sys, o, files)
	}
	path, err := onePlanArg(files)
	if err != nil {
		return err
	}
	f := o.report.format
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
	confirm, s, err := setUpConfirmed(ctx, sys, o.Yes, simulate, &o.service, o.state, &o.rehearsal)
	if err != nil {
		alertUnusable(sys, err, []string{p.Name}, [][]notify.Target{targets})
		return err
	}
	defer s.close()
	simulation = s.conn.servesSimulation
	opts, err := o.engineOptions(sys, s, planToRun{file: planPath, plan: p, account: account, notify: targets, republish: o.Republish, rehearsed: []string{p.Name}, reportDir: absReportDir(o.report.Dir)})
	if err != nil {
		return err
	}
	opts.Confirm = confirm
	if opts.Simulated {
		fmt.Fprintf(sys.Stderr, "rehearsing %s on the simulated service at %s (simulated clock)\n", planPath, opts.BaseURL)
	}
	// Only a person at a terminal reads a line redrawn in place; its
	// redraws end with clear, before the reports are written.
	var live *liveTerminal
	if sys.IsTTY && sys.Getenv("CI") == "" {
		live = newLiveTerminal(sys.Stderr, sys.Width, opts.Clock.Now, func() reporters.Clock { return shownClock(s.conn.clock, s.conn.simulated) })
		opts.Live = live.progress
		opts.Log = live
		s.conn.logRetries(live)
		s.conn.retries.onTerminal(live.retrying)
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

// runPlans is `betplan run` of several plans: validated together, then
// run together in one process, each with its own labels, journal, lock,
// stop mark, limits and report, sharing one client (one request budget)
// and one set of reads of the account. A plan whose lock another run
// holds is refused alone.
func runPlans(ctx context.Context, sys *sysIO, o *runOptions, files []string) (err error) {
	f := o.report.format
	plans, err := loadPlans(sys, files)
	if err != nil {
		return o.account.alsoAccounts(sys, files, err)
	}
	simulate := o.rehearsal.Sim
	var simulation func() bool // once connected
	// The plans of the run: a rehearsal's world counts no other.
	rehearsed := make([]string, len(plans))
	for i, p := range plans {
		rehearsed[i] = p.Name
	}
	republish, err := republishByPlan(plans, o.Republish)
	if err != nil {
		return err
	}
	accounts := make([]*plan.Config, len(plans))
	targets := make([][]notify.Target, len(plans))
	for i, p := range plans {
		if err := checkTipster(sys, p, republish[i], simulate); err != nil {
			return fmt.Errorf("%s: %w", files[i], err)
		}
		if accounts[i], err = o.account.loadAccount(sys, files[i]); err != nil {
			return err
		}
		if err := checkMoneyBound(sys, p, accounts[i], files[i], simulate, o.NoLimits); err != nil {
			return err
		}
		ts, hb, aerr := planAlerts(sys, p, accounts[i], simulate)
		if aerr != nil {
			return aerr
		}
		targets[i] = ts
		if hb != "" {
			// Each plan's heartbeat hears how the run of them all exits.
			defer func() { heartbeatUnlessSimulation(ctx, sys, hb, exitCode(err), simulation) }()
		}
	}
	confirm, s, err := setUpConfirmed(ctx, sys, o.Yes, simulate, &o.service, o.state, &o.rehearsal)
	if err != nil {
		alertUnusable(sys, err, rehearsed, targets)
		return err
	}
	defer s.close()
	simulation = s.conn.servesSimulation

	clock := s.conn.clock
	var group *sim.GroupClock
	if manual, ok := clock.(*sim.ManualClock); ok {
		// A rehearsal's clock moves when every plan waits, not by each
		// plan's wait in turn.
		group = sim.NewGroupClock(manual, len(plans))
		clock = group
	}
	account := engine.NewAccount(s.conn.client, clock, 0)
	logs := &planLogs{w: sys.Stderr}
	// Only a person at a terminal reads a line redrawn in place: one line
	// for the account, the plans' log lines above it.
	var live *liveTerminal
	var progress *accountProgress
	if sys.IsTTY && sys.Getenv("CI") == "" {
		live = newLiveTerminal(sys.Stderr, sys.Width, clock.Now, func() reporters.Clock { return shownClock(s.conn.clock, s.conn.simulated) })
		logs.w = live
		progress = newAccountProgress(live.progressAbout)
	}
	// One question for the run, never drawn over by the live line: its
	// yes covers every plan's bets.
	var question *engine.Question
	if confirm != nil {
		if live != nil {
			confirm = live.asking(confirm)
		}
		question = engine.NewQuestion(ctx, confirm, rehearsed)
	}
	opts := make([]engine.Options, len(plans))
	for i, p := range plans {
		var reportDir string
		if o.report.Dir != "" {
			reportDir = absReportDir(filepath.Join(o.report.Dir, p.Name))
		}
		o1, err := o.engineOptions(sys, s, planToRun{file: files[i], plan: p, account: accounts[i], notify: targets[i], republish: republish[i], rehearsed: rehearsed, reportDir: reportDir})
		if err != nil {
			return err
		}
		o1.Log = logs.plan(p.Name)
		o1.Backend = account.PlanTelling(s.conn.retries.hook(o1.Log))
		o1.Clock = clock
		if progress != nil {
			o1.Live = progress.plan(p.Name)
		}
		o1.Question = question
		opts[i] = o1
	}
	groupRuns(plans, opts)
	// The reads the plans share are the account's: their retries are no
	// one plan's.
	accountLog := logs.account()
	s.conn.logRetries(accountLog)
	if live != nil {
		s.conn.retries.onTerminal(live.retrying)
	}
	s.conn.logBudget(accountLog)
	if s.conn.simulated {
		fmt.Fprintf(sys.Stderr, "rehearsing %d plans on the simulated service at %s (simulated clock)\n", len(plans), s.conn.baseURL)
	}

	results := make([]*engine.Result, len(plans))
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if group != nil {
				defer group.Leave()
			}
			results[i], errs[i] = engine.Run(ctx, p, opts[i])
		}()
	}
	wg.Wait()
	logs.flush()
	if live != nil {
		live.clear()
	}
	return finishRuns(sys, o.report, f, plans, opts, results, errs)
}

// republishByPlan deals --republish's tips to the plans that have them;
// a tip no plan has is a usage error.
func republishByPlan(plans []*plan.Plan, ids []string) ([][]string, error) {
	out := make([][]string, len(plans))
	for _, id := range ids {
		found := false
		for i, p := range plans {
			for _, t := range p.Tips {
				if t.ID == id {
					out[i] = append(out[i], id)
					found = true
				}
			}
		}
		if !found {
			return nil, usagef("--republish %s: no plan has a tip %q", id, id)
		}
	}
	return out, nil
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
// nothing stops it putting at risk whatever its bets say. lay, when set,
// is a lay bet with no odds cap: what it can lose has no bound whatever
// the limits.
type unboundedError struct {
	planPath string
	lay      *plan.Bet
}

// Refused makes it a safety refusal: exit 3.
func (e *unboundedError) Refused() bool { return true }

func (e *unboundedError) Error() string {
	if b := e.lay; b != nil {
		return fmt.Sprintf("refused: %s:%d:%d: %s, whatever the limits: set options.check_max_odds: true and options.max_odds (the limits then count %s × (max_odds − 1) on each session), or pass --no-limits",
			e.planPath, b.Line, b.Column, layWithoutCapWords(b), b.AmountField())
	}
	return fmt.Sprintf("refused: %s puts money at risk with no bound: add limits.%s to it (or to the account file %s), or pass --no-limits", e.planPath, plan.BoundingLimits("or"), plan.ConfigFileName)
}

// layWithoutCapWords says what a lay with no odds cap can lose.
func layWithoutCapWords(b *plan.Bet) string {
	return fmt.Sprintf("bet %s lays (%s) without options.check_max_odds, so it can lose %s × (odds − 1) with no bound", b.ID, b.Market, b.AmountField())
}

// checkMoneyBound refuses, before any request, a real run of a plan with
// bets and none of the limits that bound the money at risk, in the plan or
// in the account file, and of a plan with a lay that has no odds cap,
// which no limit can hold before it is placed; a rehearsal or --no-limits
// only warns.
func checkMoneyBound(sys *sysIO, p *plan.Plan, account *plan.Config, planPath string, simulate, noLimits bool) error {
	if len(p.Bets) > 0 && !p.Limits.BoundsMoney() && (account == nil || !account.Limits.BoundsMoney()) {
		if !simulate && !noLimits {
			return &unboundedError{planPath: planPath}
		}
		fmt.Fprintf(sys.Stderr, "warning: %s puts money at risk with no bound (no %s)\n", planPath, plan.BoundingLimits("nor"))
	}
	for _, b := range p.Bets {
		if !b.LayWithoutCap() {
			continue
		}
		if !simulate && !noLimits {
			return &unboundedError{planPath: planPath, lay: b}
		}
		fmt.Fprintf(sys.Stderr, "warning: %s:%d:%d: %s\n", planPath, b.Line, b.Column, layWithoutCapWords(b))
	}
	return nil
}
