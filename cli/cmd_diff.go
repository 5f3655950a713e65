package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/plan"
)

// diffOptions are the flags of `betplan diff`.
type diffOptions struct {
	Format string
	Git    string
}

func diffCommand() *command {
	return &command{
		name:    "diff",
		args:    "OLD NEW | --git REF PLAN",
		summary: "show what a change to a plan (or to the account file) does: bets added, removed, changed, and the worst case",
		exits: []exitDoc{
			{exitOK, "no change: the plans create the same bets"},
			{exitUsage, "usage error, or either plan is invalid (the errors of both, with positions)"},
			{exitChanges, "the plans differ"},
		},
		examples: `  betplan diff plans/card.yaml plans/card-v2.yaml
  betplan diff --git origin/main plans/card.yaml
  betplan diff --git origin/main --format markdown plans/card.yaml
  betplan diff --git origin/main betplan.yaml
`,
		setup: bindTo((*diffOptions).bind, diffPlans),
	}
}

func (o *diffOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "text", "output format: text, markdown or json")
	fs.StringVar(&o.Git, "git", "", "compare PLAN as committed at this git `REF` (e.g. origin/main) with the working copy")
}

func (o *diffOptions) validate() error {
	switch o.Format {
	case "text", "markdown", "json":
		return nil
	}
	return usagef("--format is text, markdown or json, not %q", o.Format)
}

// diffPlans is `betplan diff OLD NEW` and `betplan diff --git REF PLAN`.
// Exit codes follow plan --detailed-exitcode: 0 no change, 4 changes, 2
// when either plan is invalid.
func diffPlans(_ context.Context, sys *sysIO, o *diffOptions, args []string) error {
	type source struct {
		name string
		data []byte
	}
	var oldSrc, newSrc source
	if o.Git != "" {
		path, err := onePlanArg(args)
		if err != nil {
			return err
		}
		data, err := gitShow(o.Git, path)
		if err != nil {
			return &invalidError{err}
		}
		oldSrc = source{name: o.Git + ":" + path, data: data}
		newSrc.name = path
	} else {
		if len(args) != 2 {
			return usagef("expected OLD and NEW plan files (or --git REF PLAN), got %d arguments", len(args))
		}
		oldSrc.name, newSrc.name = args[0], args[1]
	}
	// With --git the old side is named REF:PATH, and is an account file
	// when PATH is.
	oldAccount := plan.IsAccountFile(oldSrc.name) || (o.Git != "" && plan.IsAccountFile(newSrc.name))
	if oldAccount || plan.IsAccountFile(newSrc.name) {
		return diffAccounts(sys, o, oldSrc.name, oldAccount, oldSrc.data, newSrc.name)
	}
	read := func(s source) (*plan.Plan, plan.Diagnostics, []byte) {
		if s.data == nil {
			p, data, diags := plan.LoadSource(s.name)
			return p, diags, data
		}
		p, diags := plan.Parse(s.name, s.data)
		return p, diags, s.data
	}
	oldPlan, oldDiags, oldData := read(oldSrc)
	newPlan, newDiags, newData := read(newSrc)
	if oldDiags.HasErrors() || newDiags.HasErrors() {
		all := append(oldDiags, newDiags...)
		plan.WriteText(sys.Stderr, all, map[string][]byte{oldSrc.name: oldData, newSrc.name: newData})
		return invalidf("cannot diff invalid plans: %s", count(all.Errors(), "error"))
	}
	return writeDiff(sys, o, plan.Diff(oldPlan, newPlan))
}

// diffAccounts is diff of two account files: their limits, a loosened
// one as a warning. oldData holds the old file's bytes when it came from
// git, else nil.
func diffAccounts(sys *sysIO, o *diffOptions, oldName string, oldAccount bool, oldData []byte, newName string) error {
	if !oldAccount || !plan.IsAccountFile(newName) {
		return usagef("diff compares two plans or two account files (%s), not one of each", plan.ConfigFileName)
	}
	read := func(name string, data []byte) (*plan.Config, plan.Diagnostics, []byte) {
		if data == nil {
			c, data, diags := plan.LoadConfig(name)
			return c, diags, data
		}
		c, diags := plan.ParseConfig(name, data)
		return c, diags, data
	}
	oldC, oldDiags, oldData := read(oldName, oldData)
	newC, newDiags, newData := read(newName, nil)
	if oldDiags.HasErrors() || newDiags.HasErrors() {
		all := append(oldDiags, newDiags...)
		plan.WriteText(sys.Stderr, all, map[string][]byte{oldName: oldData, newName: newData})
		return invalidf("cannot diff invalid account files: %s", count(all.Errors(), "error"))
	}
	return writeDiff(sys, o, plan.DiffConfig(oldC, newC))
}

// writeDiff writes d in the chosen format; exit 4 when anything changed.
func writeDiff(sys *sysIO, o *diffOptions, d *plan.PlanDiff) error {
	var err error
	switch o.Format {
	case "json":
		err = plan.WriteDiffJSON(sys.Stdout, d)
	case "markdown":
		err = plan.WriteDiffMarkdown(sys.Stdout, d)
	default:
		err = plan.WriteDiffText(sys.Stdout, d, sys.color())
	}
	if err != nil {
		return err
	}
	if d.Changed() {
		return errChanges
	}
	return nil
}

// gitShow reads path as committed at ref without a checkout. git resolves
// "REF:./name" against the directory it runs in, so running it in the
// file's directory works for relative and absolute paths alike.
func gitShow(ref, path string) ([]byte, error) {
	if strings.HasPrefix(ref, "-") {
		return nil, fmt.Errorf("--git %q: a ref cannot start with '-'", ref)
	}
	cmd := exec.Command("git", "show", ref+":./"+filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("git show %s:%s: %s", ref, path, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("--git needs git: %w", err)
	}
	if len(out) > plan.MaxFileSize {
		return nil, fmt.Errorf("%s at %s is larger than %d MiB", path, ref, plan.MaxFileSize>>20)
	}
	return out, nil
}
