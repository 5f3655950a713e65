package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// loadPlan loads and validates a plan; any error stops before a request.
func loadPlan(sys *sysIO, path string) (*plan.Plan, error) {
	p, diags := plan.Load(path)
	if len(diags) > 0 {
		src := map[string][]byte{}
		if b, err := os.ReadFile(path); err == nil {
			src[path] = b
		}
		plan.WriteText(sys.Stderr, diags, src)
	}
	if diags.HasErrors() || p == nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s is not a valid plan: %s", path, count(diags.Errors(), "error"))}
	}
	return p, nil
}

// planAndFormat reads the one plan argument and --format of run and status.
func planAndFormat(fs *pflag.FlagSet, args []string) (string, reporters.Format, error) {
	path, err := onePlanArg(args)
	if err != nil {
		return "", "", err
	}
	format, _ := fs.GetString("format")
	f, err := reporters.ParseFormat(format)
	if err != nil {
		return "", "", usagef("%v", err)
	}
	return path, f, nil
}

func onePlanArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", usagef("missing the plan file")
	case 1:
		return args[0], nil
	}
	return "", usagef("expected one plan file, got %d arguments: %s", len(args), strings.Join(args, " "))
}

// engineOptions builds the options shared by run, plan, status and cancel.
func engineOptions(fs *pflag.FlagSet, sys *sysIO, planFile string, conn *connection) engine.Options {
	stateDir, _ := fs.GetString("state-dir")
	opts := engine.Options{
		Service:   conn.client,
		Clock:     conn.clock,
		BaseURL:   conn.baseURL,
		Version:   version,
		Simulated: conn.simulated,
		PlanFile:  planFile,
		StateDir:  stateDir,
		Log:       sys.Stderr,
	}
	if conn.simulated {
		// Rehearsals keep their journal in a sim/ folder of their own, so
		// it never mixes with a real one.
		if stateDir == "" {
			stateDir = filepath.Join(filepath.Dir(planFile), ".betplan")
		}
		opts.StateDir = filepath.Join(stateDir, "sim")
	}
	return opts
}

// reportDir is --report-dir, or report/<plan name>/ in the state dir, so
// plans kept side by side never overwrite each other's reports.
func reportDir(fs *pflag.FlagSet, opts engine.Options, planName string) string {
	if d, _ := fs.GetString("report-dir"); d != "" {
		return d
	}
	dir := opts.StateDir
	if dir == "" {
		dir = filepath.Join(filepath.Dir(opts.PlanFile), ".betplan")
	}
	return filepath.Join(dir, "report", planName)
}

// confirmer decides how `run` and `cancel` ask before acting on a real
// service: --yes, an interactive yes on a TTY, or a refusal.
func confirmer(sys *sysIO, yes, simulated bool) (func(string) (bool, error), error) {
	if yes || simulated {
		return nil, nil
	}
	if !sys.IsTTY {
		return nil, &exitError{code: exitRefused, err: errors.New("refused: acting on a real service needs --yes, or an interactive yes on a terminal")}
	}
	return func(summary string) (bool, error) {
		fmt.Fprintf(sys.Stderr, "%s\nThis places real money. Type yes to go on: ", summary)
		line, err := bufio.NewReader(sys.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.TrimSpace(strings.ToLower(line)) == "yes", nil
	}, nil
}

func runRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	path, f, err := planAndFormat(fs, args)
	if err != nil {
		return err
	}
	simulate, _ := fs.GetBool("sim")
	yes, _ := fs.GetBool("yes")
	saved, isSaved, err := engine.ReadSavedPlan(path)
	if err != nil {
		return usagef("read %s: %v", path, err)
	}
	planPath := path
	if isSaved {
		planPath = saved.PlanFile
		if !filepath.IsAbs(planPath) {
			planPath = filepath.Join(filepath.Dir(path), planPath)
		}
	}
	specs, _ := fs.GetStringArray("fault")
	if len(specs) > 0 && !simulate {
		return usagef("--fault injects faults into the simulated service: use it with --sim")
	}
	faults, err := parseFaults(specs)
	if err != nil {
		return err
	}
	p, err := loadPlan(sys, planPath)
	if err != nil {
		return err
	}
	confirm, err := confirmer(sys, yes, simulate)
	if err != nil {
		// Refused before any request; the report still says what was planned.
		opts := engineOptions(fs, sys, planPath, &connection{baseURL: serviceFlagsOf(fs).resolveBaseURL(sys), clock: engine.RealClock()})
		res := engine.Refused(p, opts, "acting on a real service needs --yes, or an interactive yes on a terminal")
		if werr := writeReports(sys, fs, f, opts, res); werr != nil {
			fmt.Fprintf(sys.Stderr, "betplan: writing reports: %v\n", werr)
		}
		return err
	}
	seed, _ := fs.GetInt64("seed")
	conn, err := serviceFlagsOf(fs).connect(sys, simulate, seed, faults...)
	if err != nil {
		return err
	}
	defer conn.close()

	opts := engineOptions(fs, sys, planPath, conn)
	opts.Confirm = confirm
	opts.NoWait, _ = fs.GetBool("no-wait")
	opts.AllowNoBot, _ = fs.GetBool("allow-no-bot")
	opts.AmbiguousGrace, _ = fs.GetDuration("ambiguous-grace")
	opts.LockTimeout, _ = fs.GetDuration("lock-timeout")
	opts.Checkpoint = crashCheckpoint(sys.Getenv(crashEnv))
	var live *liveTerminal
	if sys.IsTTY && sys.Getenv("CI") == "" {
		live = &liveTerminal{w: sys.Stderr}
		opts.Live = live.progress
		opts.Log = live
	}
	if conn.simulated {
		// Every rehearsal is a new simulated world: an earlier rehearsal's
		// journal names notifications this world never had.
		if err := os.Remove(engine.JournalPath(opts.StateDir, p.Name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		fmt.Fprintf(sys.Stderr, "rehearsing %s on the simulated service at %s (simulated clock)\n", planPath, conn.baseURL)
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
	return finishRun(sys, fs, f, opts, res, err)
}

// finishRun writes every report, whatever happened, and maps the outcome
// to an exit code.
func finishRun(sys *sysIO, fs *pflag.FlagSet, f reporters.Format, opts engine.Options, res *engine.Result, runErr error) error {
	if res != nil {
		if werr := writeReports(sys, fs, f, opts, res); werr != nil {
			fmt.Fprintf(sys.Stderr, "betplan: writing reports: %v\n", werr)
			if runErr == nil {
				runErr = werr
			}
		}
	}
	switch {
	case runErr != nil && engine.IsRefused(runErr):
		return &exitError{code: exitRefused, err: runErr}
	case res != nil && res.EndReason == "refused":
		return &exitError{code: exitRefused, err: fmt.Errorf("refused: %s", res.Error)}
	case runErr != nil:
		return &exitError{code: exitFailed, err: runErr}
	case res != nil && res.Failed():
		return &exitError{code: exitFailed, err: errors.New(failureSummary(res))}
	}
	return nil
}

func failureSummary(res *engine.Result) string {
	var parts []string
	for _, s := range []engine.Status{engine.StatusFailed, engine.StatusNotTaken, engine.StatusUnresolved} {
		if n := res.Totals.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) == 0 {
		return "something failed; see the report"
	}
	return "finished with " + strings.Join(parts, ", ")
}

func writeReports(sys *sysIO, fs *pflag.FlagSet, f reporters.Format, opts engine.Options, res *engine.Result) error {
	color := sys.IsTTY && sys.Getenv("NO_COLOR") == ""
	if err := reporters.Write(sys.Stdout, f, res, reporters.TextOptions{Color: color}); err != nil {
		return err
	}
	dir := reportDir(fs, opts, res.PlanName)
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

// liveTerminal keeps one progress line at the bottom of a terminal; event
// lines print above it.
type liveTerminal struct {
	mu   sync.Mutex
	w    io.Writer
	last string
}

// Write prints an event line above the progress line.
func (l *liveTerminal) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s", b)
	if l.last != "" {
		fmt.Fprint(l.w, l.last)
	}
	return len(b), nil
}

func (l *liveTerminal) progress(p engine.Progress) {
	var parts []string
	for _, s := range engine.Statuses() {
		if n := p.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	line := fmt.Sprintf("%s  %s", p.Now.Format("15:04:05"), strings.Join(parts, ", "))
	if !p.NextRace.IsZero() {
		line += fmt.Sprintf("  next race in %s", p.NextRace.Sub(p.Now).Round(time.Second))
	}
	if !p.NextPoll.IsZero() {
		line += fmt.Sprintf("  next poll %s", p.NextPoll.Format("15:04:05"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = line
	fmt.Fprintf(l.w, "\r\033[K%s", line)
}

func (l *liveTerminal) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = ""
	fmt.Fprint(l.w, "\r\033[K")
}

func planRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	path, err := onePlanArg(args)
	if err != nil {
		return err
	}
	format, _ := fs.GetString("format")
	f, err := reporters.ParseFormat(format)
	if err != nil || (f != "text" && f != "json" && f != "markdown") {
		return usagef("--format for plan is text, json or markdown, not %q", format)
	}
	p, err := loadPlan(sys, path)
	if err != nil {
		return err
	}
	simulate, _ := fs.GetBool("sim")
	seed, _ := fs.GetInt64("seed")
	conn, err := serviceFlagsOf(fs).connect(sys, simulate, seed)
	if err != nil {
		return err
	}
	defer conn.close()
	opts := engineOptions(fs, sys, path, conn)
	opts.Log = nil
	if conn.simulated {
		// A preview on a new simulated world has no journal to read.
		opts.StateDir = filepath.Join(opts.StateDir, "preview-"+strconv.Itoa(os.Getpid()))
	}
	res, saved, err := engine.Preview(ctx, p, opts)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if err := reporters.Write(sys.Stdout, f, res, reporters.TextOptions{Color: sys.IsTTY && sys.Getenv("NO_COLOR") == ""}); err != nil {
		return err
	}
	if out, _ := fs.GetString("out"); out != "" {
		// The plan file is named relative to the saved file, so the saved
		// plan can be applied from any directory.
		if rel, err := relativeTo(out, path); err == nil {
			saved.PlanFile = rel
		}
		if err := engine.WriteSavedPlan(out, saved); err != nil {
			return err
		}
		switch n := len(saved.Creates); n {
		case 0:
			fmt.Fprintf(sys.Stderr, "saved the plan to %s; it has nothing to create\n", out)
		default:
			fmt.Fprintf(sys.Stderr, "saved the plan to %s; 'betplan run %s' applies exactly its %s\n", out, out, count(n, "create"))
		}
	}
	if detailed, _ := fs.GetBool("detailed-exitcode"); detailed && len(saved.Creates) > 0 {
		return &exitError{code: exitChanges}
	}
	return nil
}

func statusRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	path, f, err := planAndFormat(fs, args)
	if err != nil {
		return err
	}
	p, err := loadPlan(sys, path)
	if err != nil {
		return err
	}
	conn, err := serviceFlagsOf(fs).connect(sys, false, 0)
	if err != nil {
		return err
	}
	defer conn.close()
	opts := engineOptions(fs, sys, path, conn)
	res, err := engine.Outcomes(ctx, p, opts)
	return finishRun(sys, fs, f, opts, res, err)
}

func cancelRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan file")
	}
	p, err := loadPlan(sys, args[0])
	if err != nil {
		return err
	}
	yes, _ := fs.GetBool("yes")
	confirm, err := confirmer(sys, yes, false)
	if err != nil {
		return err
	}
	conn, err := serviceFlagsOf(fs).connect(sys, false, 0)
	if err != nil {
		return err
	}
	defer conn.close()
	opts := engineOptions(fs, sys, args[0], conn)
	opts.Confirm = confirm
	res, err := engine.Cancel(ctx, p, args[1:], opts)
	return finishRun(sys, fs, reporters.Format("text"), opts, res, err)
}

func unlockRun(_ context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	path, err := onePlanArg(args)
	if err != nil {
		return err
	}
	p, err := loadPlan(sys, path)
	if err != nil {
		return err
	}
	base, _ := fs.GetString("base-url")
	if base == "" {
		base = sys.Getenv("BETPLAN_BASE_URL")
	}
	if base != "" {
		// The lock is keyed by the base URL as the client normalises it.
		c, err := apiclient.New(base, apiclient.WithInsecure(), apiclient.WithTokenCache(""))
		if err != nil {
			return usagef("%v", err)
		}
		base = c.BaseURL()
	}
	force, _ := fs.GetBool("force")
	lockPath := engine.LockPath(engine.DefaultLockDir(), p.Name, base)
	owner, err := engine.Unlock(lockPath, force)
	if err != nil {
		var le *engine.LockedError
		if errors.As(err, &le) {
			return &exitError{code: exitRefused, err: fmt.Errorf("%v; it is live: stop that run, or pass --force", err)}
		}
		return &exitError{code: exitFailed, err: err}
	}
	fmt.Fprintf(sys.Stdout, "removed lock %s (last held by %s)\n", lockPath, owner)
	return nil
}

// relativeTo names target relative to the directory of file.
func relativeTo(file, target string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	return filepath.Rel(dir, abs)
}
