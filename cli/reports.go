package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
)

// finishRun writes every report, whatever happened, and maps the outcome
// to an exit code.
func finishRun(sys *sysIO, ro reportOptions, f reporters.Format, opts engine.Options, res *engine.Result, runErr error) error {
	var locked *state.LockedError
	if errors.As(runErr, &locked) || errors.Is(runErr, engine.ErrNotConfirmed) {
		// Nothing was done (another run holds the lock, or the user said
		// no): the reports stay as they were.
		return runErr
	}
	if !serviceAnswered(opts) {
		if err := runOutcome(opts, res, runErr); err != nil {
			// The run ended before the service answered anything: there
			// is nothing new to report, and the reports of the plan's
			// last run stay as that run wrote them.
			return err
		}
	}
	if res != nil {
		showTimes(res, opts)
		if werr := writeReports(sys, ro, f, opts, res); werr != nil {
			fmt.Fprintf(sys.Stderr, "betplan: writing reports: %v\n", werr)
			if runErr == nil {
				runErr = werr
			}
		}
	}
	sayStopped(sys, res)
	return runOutcome(opts, res, runErr)
}

// finishRuns writes each plan's reports and the summary across plans, and
// ends the command with the worst outcome: a refusal of any plan or bet
// (exit 3), else a failure (exit 1).
func finishRuns(sys *sysIO, ro reportOptions, f reporters.Format, plans []*plan.Plan, opts []engine.Options, results []*engine.Result, errs []error) error {
	// Each report's account counts what every plan ended with, not what
	// stood when its own plan ended.
	engine.ShareAccount(context.Background(), results, opts)
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

// sayStopped ends the run of a stopped plan with the one line that says how
// to resume it: the run is not a failure, it did what the stop asked.
func sayStopped(sys *sysIO, res *engine.Result) {
	if res == nil || res.EndReason != engine.EndStopped {
		return
	}
	fmt.Fprintf(sys.Stderr, "betplan run: plan %s is %s: it creates nothing and follows what it placed; `%s` lets it create again\n", res.PlanName, res.Stopped, engine.ResumeCommand(res.PlanFile))
}

// runOutcome is the error a run's result and error end the command with:
// a refusal, a failure, or nil.
func runOutcome(opts engine.Options, res *engine.Result, runErr error) error {
	var token *engine.TokenRefusedError
	switch {
	case errors.As(runErr, &token):
		// The service refused the token: say how to renew it.
		return explainService(opts.BaseURL, token)
	case runErr != nil && engine.IsRefused(runErr):
		return runErr
	case res != nil && res.EndReason == engine.EndRefused:
		return &engine.RefusedError{Reason: res.Error}
	case runErr != nil && !serviceAnswered(opts):
		return explainStart(opts.BaseURL, runErr)
	case runErr != nil:
		return explainService(opts.BaseURL, runErr)
	case res != nil && res.Failed():
		return errors.New(failureSummary(res))
	}
	return nil
}

// serviceAnswered reports whether the service has answered any request of the
// run with success; a backend that cannot say counts as reached.
func serviceAnswered(opts engine.Options) bool {
	a, ok := opts.Backend.(interface{ Answered() bool })
	return !ok || a.Answered()
}

func failureSummary(res *engine.Result) string {
	var parts []string
	for _, s := range []engine.Status{engine.StatusInDoubt, engine.StatusFailed, engine.StatusNotTaken, engine.StatusUnresolved} {
		if n := res.Totals.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(string(s), "_", " ")))
		}
	}
	if len(parts) == 0 {
		return "something failed; see the report"
	}
	return "finished with " + strings.Join(parts, ", ")
}

// defaultReportDir is where a plan's reports go without --report-dir:
// the real service's in <state-dir>/report/<plan>, a simulated one's (run
// --sim, or a `betplan sim` served by hand, which says so in its
// responses) in <state-dir>/sim/report/<plan>.
func defaultReportDir(opts engine.Options, planName string) string {
	sim, _ := opts.Backend.(interface{ ServesSimulation() bool })
	return opts.State.ReportDirFor(planName, sim != nil && sim.ServesSimulation())
}

// writeReports prints the report on stdout in format f and writes every
// format into the report dir (--report-dir, or the layout's).
func writeReports(sys *sysIO, ro reportOptions, f reporters.Format, opts engine.Options, res *engine.Result) error {
	if err := reporters.Write(sys.Stdout, f, res, sys.textOptions()); err != nil {
		return err
	}
	dir := ro.Dir
	if dir == "" {
		dir = res.ReportDir // where the plan's run wrote them
	}
	if dir == "" {
		dir = defaultReportDir(opts, res.PlanName)
	}
	paths, err := reporters.WriteDir(dir, res)
	if err != nil {
		return err
	}
	if len(paths) > 0 {
		fmt.Fprintf(sys.Stderr, "reports written to %s\n", dir)
	}
	if summary := sys.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		if err := reporters.AppendStepSummary(summary, res); err != nil {
			return fmt.Errorf("GitHub step summary: %w", err)
		}
	}
	return nil
}

// absReportDir is dir made absolute, for a run to keep in the journal:
// a status from another folder writes where the run did.
func absReportDir(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// planAndFormat reads the one plan argument and --format of a command
// that reports a result.
func (ro *reportOptions) planAndFormat(args []string) (string, reporters.Format, error) {
	path, err := onePlanArg(args)
	if err != nil {
		return "", "", err
	}
	f, err := reporters.ParseFormat(ro.Format)
	if err != nil {
		return "", "", usagef("%v", err)
	}
	return path, f, nil
}
