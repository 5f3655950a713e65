package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
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

func onePlanArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", usagef("missing the plan file")
	case 1:
		return args[0], nil
	}
	return "", usagef("expected one plan file, got %d arguments: %s", len(args), strings.Join(args, " "))
}

// engineOptions are the options run, plan, status and cancel share. A
// rehearsal never touches a shared state.
func engineOptions(sys *sysIO, planFile string, state stateOptions, conn *connection) (engine.Options, error) {
	opts := engine.Options{
		Backend:   conn.client,
		Clock:     conn.clock,
		BaseURL:   conn.baseURL,
		Version:   version,
		Simulated: conn.simulated,
		PlanFile:  planFile,
		State:     engine.NewLayout(state.StateDir, planFile, conn.simulated),
		Log:       sys.Stderr,

		TipsterAPIKey: conn.tipsterKey,
	}
	if conn.simulated {
		state.rehearsalNote(sys)
		opts.Store = rehearsalStore(opts.State)
		return opts, nil
	}
	store, err := state.store(sys, conn.insecure, opts.State)
	if err != nil {
		return opts, err
	}
	opts.Store = store
	return opts, nil
}

// confirmer decides how `run` and `cancel` ask before acting on a real
// service: --yes, an interactive yes on a TTY, or a refusal.
func confirmer(sys *sysIO, yes, simulated bool) (func(string) (bool, error), error) {
	if yes || simulated {
		return nil, nil
	}
	if !sys.Interactive {
		return nil, &exitError{code: exitRefused, err: errors.New("refused: " + refusedNoConfirmation)}
	}
	return func(summary string) (bool, error) {
		fmt.Fprintf(sys.Stderr, "%s\nThis acts on real money. Type yes to go on: ", summary)
		line, err := bufio.NewReader(sys.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.TrimSpace(strings.ToLower(line)) == "yes", nil
	}, nil
}

const refusedNoConfirmation = "acting on a real service needs --yes, or an interactive yes on a terminal"

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

// count says "1 error" or "3 errors".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
