package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/betplan/betplan/plan"
)

// loadPlan loads and validates a plan; any error stops before a request.
func loadPlan(sys *sysIO, path string) (*plan.Plan, error) {
	p, data, diags := plan.LoadSource(path)
	writePlanDiags(sys, diags, map[string][]byte{path: data})
	if diags.HasErrors() || p == nil {
		return nil, invalidf("%s is not a valid plan: %s", path, count(diags.Errors(), "error"))
	}
	return p, nil
}

// writePlanDiags shows what loading plans found, for a command that acts
// on them: errors with their source lines, and warnings (when there is no
// error) one line each, with their places: validate shows them in full.
func writePlanDiags(sys *sysIO, diags plan.Diagnostics, src map[string][]byte) {
	if diags.HasErrors() {
		plan.WriteText(sys.Stderr, diags, src)
		return
	}
	plan.WriteWarningsBrief(sys.Stderr, diags)
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

// confirmer decides how `run` and `cancel` ask before acting on a real
// service: --yes, an interactive yes on a TTY, or a refusal. A service that
// says it is a simulation (served reports it, once connected) is asked the
// same, in words that say what it claims: the claim alone never skips the
// question.
func confirmer(sys *sysIO, yes, simulated bool, served func() bool) (func(string) (bool, error), error) {
	if yes || simulated {
		return nil, nil
	}
	if !sys.Interactive {
		return nil, refusef("refused: %s", refusedNoConfirmation)
	}
	return func(summary string) (bool, error) {
		stake := "This acts on real money."
		if served != nil && served() {
			stake = "The service says it is a simulation (betplan sim on this machine); if it is not, this acts on real money."
		}
		fmt.Fprintf(sys.Stderr, "%s\n%s Type yes (or y) to go on: ", summary, stake)
		line, err := bufio.NewReader(sys.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		switch strings.TrimSpace(strings.ToLower(line)) {
		case "yes", "y":
			return true, nil
		}
		return false, nil
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
