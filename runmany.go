package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
)

// planArgs expands the plan arguments of run, plan, status, cancel and
// stop as validate does (a directory to its plan files, a glob to its
// matches), leaving the account file out (by its name, or as --config or
// $BETPLAN_CONFIG names it) and each plan once.
func (a *accountOptions) planArgs(sys *sysIO, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, usagef("missing the plan file")
	}
	files, err := planFiles(args)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if a.isAccountFile(sys, f) {
			if slices.Contains(args, f) {
				return nil, usagef("%s is the account file, not a plan", f)
			}
			continue
		}
		key := filepath.Clean(f)
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no plan files in %v (%s is the account file, not a plan)", args, plan.ConfigFileName)
	}
	return out, nil
}

// loadPlans loads and validates every plan before anything is done with
// any: each problem is printed at its file:line:col, and one invalid plan
// stops them all. Two plans may not share a name: a plan's name keys its
// journal, lock and reports.
func loadPlans(sys *sysIO, files []string) ([]*plan.Plan, error) {
	plans := make([]*plan.Plan, len(files))
	bad := 0
	var warnings plan.Diagnostics
	for i, path := range files {
		if _, isSaved, err := engine.ReadSavedPlan(path); err == nil && isSaved {
			return nil, usagef("%s is a saved plan: apply it alone (betplan run %s)", path, path)
		}
		p, data, diags := plan.LoadSource(path)
		if p == nil && plan.LooksLikeAccountFile(data) {
			diags = plan.Diagnostics{strayAccountFile(path)}
		}
		if diags.HasErrors() {
			plan.WriteText(sys.Stderr, diags, map[string][]byte{path: data})
		} else {
			warnings = append(warnings, diags...)
		}
		if diags.HasErrors() || p == nil {
			bad++
			continue
		}
		plans[i] = p
	}
	// The plans of a directory often share a warning: once, with its places.
	plan.WriteWarningsBrief(sys.Stderr, warnings)
	if bad > 0 {
		return nil, invalidf("%s of %d not valid: no plan was run", count(bad, "plan"), len(files))
	}
	byName := map[string]string{}
	for i, p := range plans {
		if other, ok := byName[p.Name]; ok {
			return nil, invalidf("%s and %s are both named %q: each plan needs its own name (it keys the plan's journal, lock and reports)", other, files[i], p.Name)
		}
		byName[p.Name] = files[i]
	}
	return plans, nil
}

// runPlans is `betplan run` of several plans: validated together, then
// run together in one process, each with its own labels, journal, lock,
// stop mark, limits and report, sharing one client (one request budget)
// and one set of reads of the account. A plan whose lock another run
// holds is refused alone.
func runPlans(ctx context.Context, sys *sysIO, o *runOptions, files []string) (err error) {
	f, err := reporters.ParseFormat(o.report.Format)
	if err != nil {
		return usagef("%v", err)
	}
	if w := o.graceWarning(); w != "" {
		fmt.Fprintln(sys.Stderr, w)
	}
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
	confirm, s, err := setUpConfirmed(sys, o.Yes, simulate, &o.service, o.state, &o.rehearsal)
	if err != nil {
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
		o1 := s.options(files[i])
		o1.Log = logs.plan(p.Name)
		o1.Backend = account.PlanTelling(retryLines(o1.Log, clock, s.conn.simulated))
		o1.Account = accounts[i]
		o1.Notify = targets[i]
		o1.Clock = clock
		o1.NoWait = o.NoWait
		o1.AllowNoBot = o.AllowNoBot
		o1.AmbiguousGrace = o.AmbiguousGrace
		o1.LockTimeout = o.LockTimeout
		o1.Checkpoint = checkpointHook(sys)
		o1.Republish = republish[i]
		if progress != nil {
			o1.Live = progress.plan(p.Name)
		}
		o1.Question = question
		if o.report.Dir != "" {
			o1.ReportDir = absReportDir(filepath.Join(o.report.Dir, p.Name))
		}
		if o1.Simulated {
			if err := o1.State.ForgetJournal(p.Name); err != nil {
				return err
			}
			o1.RehearsalPlans = rehearsed
		}
		opts[i] = o1
	}
	groupRuns(plans, opts)
	// The reads the plans share are the account's: their retries are no
	// one plan's.
	accountLog := logs.account()
	logRetries(s.conn.client, accountLog, clock, s.conn.simulated)
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

// finishRuns writes each plan's reports and the summary across plans, and
// ends the command with the worst outcome: a refusal of any plan or bet
// (exit 3), else a failure (exit 1).
func finishRuns(sys *sysIO, ro reportOptions, f reporters.Format, plans []*plan.Plan, opts []engine.Options, results []*engine.Result, errs []error) error {
	var outcomes []error
	var ran []*engine.Result
	for i, p := range plans {
		res, runErr := results[i], errs[i]
		var locked *state.LockedError
		if errors.As(runErr, &locked) || errors.Is(runErr, engine.ErrNotConfirmed) {
			// Nothing was done for this plan: its reports stay as they were.
			outcomes = append(outcomes, refusef("%s: %v", p.Name, runErr))
			if res != nil {
				ran = append(ran, res)
			}
			continue
		}
		if res != nil {
			showTimes(res, opts[i])
			ran = append(ran, res)
			dir := defaultReportDir(opts[i], res.PlanName)
			if ro.Dir != "" {
				dir = filepath.Join(ro.Dir, res.PlanName)
			} else if res.ReportDir != "" {
				dir = res.ReportDir // where the plan's run wrote them
			}
			if _, werr := reporters.WriteDir(dir, res); werr != nil {
				fmt.Fprintf(sys.Stderr, "betplan: [%s] writing reports: %v\n", p.Name, werr)
				if runErr == nil {
					runErr = werr
				}
			} else if ro.Dir == "" {
				fmt.Fprintf(sys.Stderr, "[%s] reports written to %s\n", p.Name, dir)
			}
		}
		sayStopped(sys, res)
		if err := runOutcome(opts[i], res, runErr); err != nil {
			outcomes = append(outcomes, prefixed(p.Name, err))
		}
	}
	if err := writeSummary(sys, ro, f, ran); err != nil {
		fmt.Fprintf(sys.Stderr, "betplan: writing the summary: %v\n", err)
		outcomes = append(outcomes, err)
	}
	return joinFailures(outcomes)
}

// prefixed names the plan an outcome is about, keeping what kind of
// ending it is.
func prefixed(name string, err error) error {
	return &planFailure{plan: name, err: err}
}

// planFailure is how one plan of a run ended, named by the plan; its
// kind (refused, failed) is its error's.
type planFailure struct {
	plan string
	err  error
}

func (e *planFailure) Error() string { return e.plan + ": " + e.err.Error() }
func (e *planFailure) Unwrap() error { return e.err }

// writeSummary prints the summary across plans on stdout in format f,
// and with --report-dir writes it there in every format.
func writeSummary(sys *sysIO, ro reportOptions, f reporters.Format, results []*engine.Result) error {
	s := reporters.NewSummary(results)
	var err error
	switch f {
	case reporters.FormatJSON:
		err = reporters.WriteSummaryJSON(sys.Stdout, s)
	case reporters.FormatMarkdown:
		err = reporters.WriteSummaryMarkdown(sys.Stdout, s)
	case reporters.FormatJUnit:
		err = reporters.WriteSummaryJUnit(sys.Stdout, results)
	case reporters.FormatHTML:
		err = reporters.WriteSummaryHTML(sys.Stdout, s)
	default:
		err = reporters.WriteSummaryText(sys.Stdout, s)
	}
	if err != nil {
		return err
	}
	if ro.Dir != "" {
		if _, err := reporters.WriteSummaryDir(ro.Dir, results); err != nil {
			return err
		}
		fmt.Fprintf(sys.Stderr, "reports written to %s (a folder per plan, and the summary)\n", ro.Dir)
	}
	if path := sys.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := reporters.AppendSummaryStep(path, s); err != nil {
			return fmt.Errorf("GitHub step summary: %w", err)
		}
	}
	return nil
}

// showStatuses is `betplan status` of several plans: each plan's
// outcomes read in turn through one client and one set of reads, each
// plan's reports rewritten, and the summary across plans.
func showStatuses(ctx context.Context, sys *sysIO, o *statusOptions, files []string) error {
	f, err := reporters.ParseFormat(o.report.Format)
	if err != nil {
		return usagef("%v", err)
	}
	plans, err := loadPlans(sys, files)
	if err != nil {
		return o.account.alsoAccounts(sys, files, err)
	}
	s, err := setUp(sys, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	opts, results, errs, err := s.inTurn(ctx, plans, files, func(i int, opts *engine.Options) (err error) {
		opts.Account, err = o.account.loadAccount(sys, files[i])
		return err
	}, func(p *plan.Plan, opts engine.Options) (*engine.Result, error) {
		return engine.ReadStatus(ctx, p, opts)
	})
	if err != nil {
		return err
	}
	return finishRuns(sys, o.report, f, plans, opts, results, errs)
}

// previewPlans is `betplan plan` of several plans: every plan validated
// first, then each previewed in turn on stdout; in JSON, one array of
// the plans' documents, so stdout stays one document a program reads.
func previewPlans(ctx context.Context, sys *sysIO, o *planOptions, files []string) error {
	if o.Out != "" {
		return usagef("--out saves one plan: name one plan file, not %d", len(files))
	}
	f, _ := reporters.ParseFormat(o.Format) // checked by validate
	plans, err := loadPlans(sys, files)
	if err != nil {
		return o.account.alsoAccounts(sys, files, err)
	}
	s, err := setUp(sys, &o.service, o.state, &o.rehearsal)
	if err != nil {
		return err
	}
	defer s.close()
	account := engine.NewAccount(s.conn.client, s.conn.clock, 0)
	logs := &planLogs{w: sys.Stderr}
	defer logs.flush()
	accountLog := logs.account()
	changes, wroteJSON := false, false
	var failed []error
	for i, p := range plans {
		opts := s.options(files[i])
		logRetries(s.conn.client, accountLog, s.conn.clock, s.conn.simulated)
		opts.Backend = account.PlanTelling(retryLines(logs.plan(p.Name), s.conn.clock, s.conn.simulated))
		opts.Log = nil
		if opts.Account, err = o.account.loadAccount(sys, files[i]); err != nil {
			return err
		}
		if opts.Simulated {
			// A preview on a new simulated world has no journal to read.
			opts.State, opts.Store = scratchState(opts.State)
		}
		res, saved, err := engine.Preview(ctx, p, opts)
		if err != nil {
			if !s.conn.client.Answered() { // nothing answered: the next plans would say it again
				return explainStart(opts.BaseURL, err)
			}
			failed = append(failed, prefixed(p.Name, explainService(opts.BaseURL, err)))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if f == reporters.FormatJSON {
			// One JSON document on stdout: an array of the plans' own.
			sep := "[\n"
			if wroteJSON {
				sep = ",\n"
			}
			wroteJSON = true
			showTimes(res, opts)
			var doc bytes.Buffer
			if err := reporters.WriteJSON(&doc, res); err != nil {
				return err
			}
			fmt.Fprint(sys.Stdout, sep)
			sys.Stdout.Write(bytes.TrimRight(doc.Bytes(), "\n"))
		} else {
			if i > 0 && f == reporters.FormatText {
				fmt.Fprintln(sys.Stdout)
			}
			showTimes(res, opts)
			if err := reporters.Write(sys.Stdout, f, res, sys.textOptions()); err != nil {
				return err
			}
		}
		changes = changes || len(saved.Creates) > 0 || publishesNow(res)
	}
	if wroteJSON {
		fmt.Fprintln(sys.Stdout, "\n]")
	}
	if err := joinFailures(failed); err != nil {
		return err
	}
	if o.DetailedExitcode && changes {
		return errChanges
	}
	return nil
}

// severalPlans tells cancel's two forms apart: a folder or a glob first,
// or nothing but plan files, names several plans (every bet of each);
// else the first argument is the plan and the rest its bet ids.
func severalPlans(args []string) bool {
	if info, err := os.Stat(args[0]); err == nil && info.IsDir() {
		return true
	} else if err != nil && strings.ContainsAny(args[0], "*?[") {
		return true
	}
	if len(args) < 2 {
		return false
	}
	for _, a := range args {
		if ext := filepath.Ext(a); ext != ".yaml" && ext != ".yml" {
			return false
		}
	}
	return true
}

// cancelPlans is `betplan cancel` of several plans: every plan validated
// first, then each plan's open bets cancelled in turn (each asked for
// apart), through one client.
func cancelPlans(ctx context.Context, sys *sysIO, o *cancelOptions, files []string) error {
	plans, err := loadPlans(sys, files)
	if err != nil {
		return err
	}
	confirm, s, err := setUpConfirmed(sys, o.Yes, false, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	opts, results, errs, err := s.inTurn(ctx, plans, files, func(i int, opts *engine.Options) error {
		if confirm != nil {
			name := plans[i].Name
			opts.Confirm = func(summary string) (bool, error) { return confirm(fmt.Sprintf("[%s] %s", name, summary)) }
		}
		return nil
	}, func(p *plan.Plan, opts engine.Options) (*engine.Result, error) {
		return engine.Cancel(ctx, p, nil, opts)
	})
	if err != nil {
		return err
	}
	return finishRuns(sys, reportOptions{}, reporters.FormatText, plans, opts, results, errs)
}
