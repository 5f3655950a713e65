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

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// historyOptions are the flags of `betplan history`.
type historyOptions struct {
	state    stateOptions
	Insecure bool
	By       []string
	Since    string
	Until    string
	Account  string
	Sim      bool
	Format   string
	Output   string
}

func historyCommand() *command {
	return &command{
		name:    "history",
		args:    "[PLAN|DIR|NAME...]",
		summary: "profit and loss across runs, plans and machines: every journal of the state, summed by plan, day, venue…",
		exits: append([]exitDoc{
			{exitOK, "the history was written"},
			{exitFailed, "a journal could not be read: the rest was written, and the journal is named"},
			{exitUsage, "usage error: an unknown --by field, a bad date or an impossible range"},
			{exitRefused, "the state cannot be reached"},
		}, interruptedExits...),
		examples: `  betplan history
  betplan history --by day --since 2026-11-01 --until 2026-11-30
  betplan history --state postgres://db/betplan --by plan,month --format json
  betplan history plans/ --by venue --format html --output history.html
`,
		setup: bindTo((*historyOptions).bind, showHistory),
	}
}

func (o *historyOptions) bind(fs *pflag.FlagSet) {
	o.state.bind(fs)
	fs.BoolVar(&o.Insecure, "insecure", false, "allow a --state with sslmode=disable that is not loopback")
	fs.StringSliceVar(&o.By, "by", nil, "group rows by these `FIELD`s, a comma list or the flag repeated: "+strings.Join(history.Fields, ", ")+" (default plan)")
	fs.StringVar(&o.Since, "since", "", "only races of this meeting `DAY` (YYYY-MM-DD) and later")
	fs.StringVar(&o.Until, "until", "", "only races of this meeting `DAY` (YYYY-MM-DD) and earlier")
	fs.StringVar(&o.Account, "account", "", "only this account's plans: its name, or the key the journals name it by (default every account, a row each)")
	fs.BoolVar(&o.Sim, "sim", false, "count rehearsals too (run --sim, and runs against betplan sim on this machine)")
	fs.StringVar(&o.Format, "format", "text", "output format: "+strings.Join(history.Formats, ", "))
	fs.StringVar(&o.Output, "output", "", "write to this `FILE` instead of stdout")
}

// query is the options as a history query (--by's commas already split).
func (o *historyOptions) query() history.Query {
	var by []string
	for _, f := range o.By {
		for _, p := range strings.Split(f, ",") {
			if p = strings.TrimSpace(p); p != "" {
				by = append(by, p)
			}
		}
	}
	return history.Query{By: by, Since: o.Since, Until: o.Until, Account: o.Account, Sim: o.Sim}
}

func (o *historyOptions) validate() error {
	if !slices.Contains(history.Formats, o.Format) {
		return usagef("--format is %s, not %q", strings.Join(history.Formats, ", "), o.Format)
	}
	q := o.query()
	if err := q.Validate(); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// showHistory is `betplan history`: it reads the state, never taking a
// plan's lock, and writes the summary.
func showHistory(ctx context.Context, sys *sysIO, o *historyOptions, args []string) error {
	q := o.query()
	dir, plans, err := historyPlans(sys, args)
	if err != nil {
		return err
	}
	q.Plans = plans
	store, err := o.historyStore(sys, dir)
	if err != nil {
		return err
	}
	bets, skipped, err := history.Read(ctx, store)
	if err != nil {
		return err
	}
	s := history.Summarise(bets, q)
	s.Skipped = skipped
	var out bytes.Buffer
	if err := history.Write(&out, o.Format, &s); err != nil {
		return err
	}
	if o.Output != "" {
		if err := os.WriteFile(o.Output, out.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write the history: %w", err)
		}
	} else if _, err := sys.Stdout.Write(out.Bytes()); err != nil {
		return err
	}
	if len(skipped) > 0 {
		names := make([]string, len(skipped))
		for i, k := range skipped {
			names[i] = k.Where + " (" + k.Reason + ")"
		}
		return fmt.Errorf("%d journal(s) could not be read and are not in the totals: %s", len(skipped), strings.Join(names, "; "))
	}
	return nil
}

// historyStore is the state to read: --state's database, or the state
// dir (--state-dir, else the plans' .betplan, else ./.betplan).
func (o *historyOptions) historyStore(sys *sysIO, dir string) (state.EveryReader, error) {
	shared, err := o.state.sharedStore(sys, o.Insecure)
	if err != nil {
		return nil, err
	}
	if shared != nil {
		r, ok := shared.(state.EveryReader)
		if !ok {
			return nil, fmt.Errorf("the state %s cannot list its journals", shared)
		}
		return r, nil
	}
	if o.state.StateDir != "" {
		dir = o.state.StateDir
	}
	if dir == "" {
		dir = ".betplan"
	}
	return local.Store{Layout: local.Layout{Dir: dir}}, nil
}

// historyPlans are the plans the arguments name: a plan file's name, the
// plans of a directory's files, or a plan's name as the state keeps it;
// dir is the state dir beside the first file or directory given.
func historyPlans(sys *sysIO, args []string) (dir string, plans []string, err error) {
	for _, a := range args {
		fi, statErr := os.Stat(a)
		switch {
		case statErr != nil && errors.Is(statErr, os.ErrNotExist) && !strings.ContainsAny(a, `/\.`):
			plans = append(plans, a) // a plan's name
			continue
		case statErr != nil:
			return "", nil, usagef("%v", statErr)
		}
		files := []string{a}
		base := filepath.Dir(a)
		if fi.IsDir() {
			base = a
			files = nil
			for _, pat := range []string{"*.yaml", "*.yml"} {
				m, _ := filepath.Glob(filepath.Join(a, pat))
				files = append(files, m...)
			}
		}
		if dir == "" {
			dir = filepath.Join(base, ".betplan")
		}
		for _, f := range files {
			if fi.IsDir() {
				if p, _, diags := plan.LoadSource(f); p != nil && !diags.HasErrors() {
					plans = append(plans, p.Name)
				} // else not a plan: an account file, say
				continue
			}
			p, err := loadPlan(sys, f)
			if err != nil {
				return "", nil, err
			}
			plans = append(plans, p.Name)
		}
	}
	return dir, plans, nil
}
