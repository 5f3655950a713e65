package cli

import (
	"os"
	"testing"

	"github.com/betplan/betplan/internal/docgen"
	"github.com/betplan/betplan/internal/golden"
)

// The docs' generated parts (internal/docgen) come from the definitions
// help prints: this package's commands, exit codes and environment, and
// the values of the packages below it. TestGeneratedDocs compares them
// with the checked-in docs; with -update it writes them, which is what
// go generate runs. The directive sits beside reference(), in the package
// that holds the commands, so it follows them if they move.
//go:generate go test -run ^TestGeneratedDocs$ -update .

// TestGeneratedDocs: every generated part of the docs (the command
// reference in docs/commands/, the exit-code, environment, limit, reason
// and alert-event tables, the expression reference) is exactly what the
// Go values give. After changing a command, a flag or one of those lists,
// run `go generate ./...` and review the diff.
func TestGeneratedDocs(t *testing.T) {
	t.Parallel()
	files, err := docgen.Generate(".", reference())
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		golden.Check(t, path, want)
	}
	stale, err := docgen.Stale(".", files)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range stale {
		if golden.Updating() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is no command's page: run go generate ./... to remove it", path)
	}
}

// commandGuides are the docs pages that explain the task each command
// serves, from docs/: each command's reference page links to its own.
var commandGuides = map[string]string{
	"validate": "plans.md#checking-a-plan-betplan-validate",
	"plan":     "running.md#running-for-real",
	"diff":     "reviewing.md#what-a-change-does-betplan-diff",
	"fmt":      "reviewing.md#one-layout-betplan-fmt",
	"run":      "running.md",
	"serve":    "running.md#always-on-betplan-serve",
	"status":   "running.md#where-a-run-keeps-its-state-and-reports",
	"history":  "history.md#profit-and-loss-betplan-history",
	"explain":  "history.md#what-happened-to-my-bet-betplan-explain",
	"cancel":   "running.md#cancelling-bets-betplan-cancel",
	"stop":     "running.md#the-kill-switch-betplan-stop",
	"doctor":   "running.md#before-a-run-betplan-doctor",
	"notify":   "alerts.md#trying-the-targets",
	"unlock":   "running.md#running-on-several-machines",
	"schema":   "plans.md#the-examples",
	"sim":      "rehearsing.md#a-simulated-service-to-point-everything-at-betplan-sim",
	"version":  "install.md",
}

// reference is what the command line knows of itself, for the docs.
func reference() *docgen.Reference {
	ref := &docgen.Reference{}
	for _, c := range commands() {
		exits := make([]docgen.Exit, len(c.exits))
		for i, e := range c.exits {
			exits[i] = docgen.Exit{Code: e.code, Brief: e.text}
		}
		ref.Commands = append(ref.Commands, docgen.Command{
			Name:     c.name,
			Args:     c.args,
			Summary:  c.summary,
			Flags:    c.helpFlags(),
			Examples: c.examples,
			Exits:    exits,
			Guide:    commandGuides[c.name],
		})
	}
	for _, e := range exitCodes {
		ref.Exits = append(ref.Exits, docgen.Exit{Code: e.code, Brief: e.brief, Detail: e.detail})
	}
	for _, v := range environment {
		ref.Environment = append(ref.Environment, docgen.Variable{Name: v.name, Flag: v.flag, Brief: v.brief, Detail: v.detail})
	}
	return ref
}
