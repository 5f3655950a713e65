package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// historyOptions are the flags of `betplan history`.
type historyOptions struct {
	state     stateOptions
	service   serviceOptions
	By        []string
	Since     string
	Until     string
	Account   string
	Sim       bool
	Reconcile bool
	// What --reconcile reads at most: bet records, megabytes, pages.
	ReconcileRecords int
	ReconcileMB      int
	ReconcilePages   int
	Format           string
	Output           string
}

func historyCommand() *command {
	return &command{
		name:    "history",
		args:    "[PLAN|DIR|NAME...]",
		summary: "profit and loss across runs, plans and machines: every journal of the state, summed by plan, day, venue…",
		exits: append([]exitDoc{
			{exitOK, "the history was written"},
			{exitFailed, "a journal could not be read, or a record holds amounts that are not money: the rest was written, and the journal or record is named"},
			{exitUsage, "usage error: an unknown --by field, a bad date or an impossible range"},
			{exitRefused, "the state cannot be reached, or bets of journals that kept no outcome could not be read from the service"},
		}, interruptedExits...),
		examples: `  betplan history
  betplan history --by day --since 2026-11-01 --until 2026-11-30
  betplan history --state postgres://db/betplan --by plan,month --format json
  betplan history plans/ --by venue --format html --output history.html
  betplan history --by reason --since 2026-11-01
`,
		setup: bindTo((*historyOptions).bind, showHistory),
	}
}

func (o *historyOptions) bind(fs *pflag.FlagSet) {
	o.state.bind(fs)
	o.service.bind(fs)
	fs.StringSliceVar(&o.By, "by", nil, "group rows by these `FIELD`s, a comma list or the flag repeated: "+strings.Join(history.Fields, ", ")+" (default plan)")
	fs.StringVar(&o.Since, "since", "", "only races of this meeting `DAY` (YYYY-MM-DD) and later")
	fs.StringVar(&o.Until, "until", "", "only races of this meeting `DAY` (YYYY-MM-DD) and earlier")
	fs.StringVar(&o.Account, "account", "", "only this account's plans: its name, or the key the journals name it by (default every account, a row each)")
	fs.BoolVar(&o.Reconcile, "reconcile", false, "compare the journals with the service's bet records (GET /bet/, back to --since) and list every difference")
	d := history.DefaultReconcileLimits
	fs.IntVar(&o.ReconcileRecords, "reconcile-max-records", d.Records, "--reconcile reads at most `N` bet records")
	fs.IntVar(&o.ReconcileMB, "reconcile-max-mb", int(d.Bytes>>20), "--reconcile reads at most `N` megabytes of bet records")
	fs.IntVar(&o.ReconcilePages, "reconcile-max-pages", d.Pages, "--reconcile reads at most `N` pages of bet records")
	fs.BoolVar(&o.Sim, "sim", false, "show rehearsals instead of real money, by kind: served (betplan sim, which says it is simulated) and in-process (run --sim)")
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
	for _, f := range []struct {
		name string
		v    int
	}{{"--reconcile-max-records", o.ReconcileRecords}, {"--reconcile-max-mb", o.ReconcileMB}, {"--reconcile-max-pages", o.ReconcilePages}} {
		if f.v < 1 {
			return usagef("%s is %d: want 1 or more", f.name, f.v)
		}
	}
	if o.ReconcileMB > 1<<20 {
		return usagef("--reconcile-max-mb is %d: want at most %d (a terabyte)", o.ReconcileMB, 1<<20)
	}
	return o.service.validate()
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
	q.Curves = o.Format == "html"
	rd, err := history.Read(ctx, store, q, o.Reconcile)
	if err != nil {
		return err
	}
	if note := history.PredatingNote(rd.Predating); note != "" {
		fmt.Fprintln(sys.Stderr, note)
	}
	missing, lookupErr := o.completeOldBets(ctx, sys, rd, store)
	for i := range rd.Open {
		if err := rd.Tally.Add(&rd.Open[i]); err != nil {
			return err
		}
	}
	s, err := rd.Tally.Summary()
	if err != nil {
		return err
	}
	s.Skipped = rd.Skipped
	if o.Reconcile {
		if err := o.reconcile(ctx, sys, append(rd.Kept, history.Filter(rd.Open, q)...), q, &s); err != nil {
			return err
		}
	}
	if w := rd.Corrupt.Warning(); w != "" {
		fmt.Fprintln(sys.Stderr, w)
	}
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
	if len(rd.Skipped) > 0 {
		names := make([]string, len(rd.Skipped))
		for i, k := range rd.Skipped {
			names[i] = k.Where + " (" + k.Reason + ")"
		}
		return fmt.Errorf("%d journal(s) could not be read and are not in the totals: %s", len(rd.Skipped), strings.Join(names, "; "))
	}
	if rd.Corrupt.N > 0 {
		return fmt.Errorf("%d corrupt record(s) are not in the totals (named above)", rd.Corrupt.N)
	}
	if len(s.Differences) > 0 {
		return fmt.Errorf("%d difference(s) between the journals and the service's bet records: listed above", len(s.Differences))
	}
	if len(missing) > 0 {
		why := "no service to ask: set --base-url or BETPLAN_BASE_URL, and credentials"
		if lookupErr != nil {
			why = lookupErr.Error()
		}
		return refusef("%d bet(s) of journals that kept no outcome are counted as created, not settled: %s (%s)", len(missing), strings.Join(missing, ", "), why)
	}
	return lookupErr
}

// completeOldBets reads from the service, once, the outcomes of bets whose
// journal kept none (written before outcome entries, or by a run that
// never saw them end), through the outcome cache the state keeps (a file
// of the state dir, a table of PostgreSQL). It returns the labels still
// without one.
func (o *historyOptions) completeOldBets(ctx context.Context, sys *sysIO, rd *history.Reading, store state.EveryReader) ([]string, error) {
	bets := rd.Open
	idx := history.Unresolved(bets, time.Now().UTC().Format("2006-01-02"))
	if len(idx) == 0 {
		return nil, nil
	}
	kept, _ := store.(state.OutcomeCache)
	cache, err := history.OpenCache(ctx, kept)
	if err != nil {
		return labelsOf(bets, idx), err
	}
	var svc history.Lookup
	if o.service.rawBaseURL(sys) != "" {
		conn, err := o.service.connect(ctx, sys, &o.state)
		if err != nil {
			return labelsOf(bets, idx), err
		}
		defer conn.close()
		svc = conn.client
	}
	return history.Complete(ctx, bets, idx, svc, cache, sys.Stderr, &rd.Corrupt)
}

// reconcile compares the bets of q (bets) with the service's bet records.
func (o *historyOptions) reconcile(ctx context.Context, sys *sysIO, bets []history.Bet, q history.Query, s *history.Summary) error {
	conn, err := o.service.connect(ctx, sys, &o.state)
	if err != nil {
		return err
	}
	defer conn.close()
	limits := history.ReconcileLimits{Records: o.ReconcileRecords, Bytes: int64(o.ReconcileMB) << 20, Pages: o.ReconcilePages}
	diffs, read, err := history.Reconcile(ctx, bets, conn.client, q.Since, limits)
	if err != nil {
		return refusef("--reconcile: %v", err)
	}
	s.Differences = diffs
	s.Reconciled = true
	s.Read = &read
	return nil
}

func labelsOf(bets []history.Bet, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = bets[i].Label
	}
	return out
}

// historyStore is the state to read: --state's database, or the state
// dir (--state-dir, else the plans' .betplan, else ./.betplan).
func (o *historyOptions) historyStore(sys *sysIO, dir string) (state.EveryReader, error) {
	shared, err := o.state.sharedStore(sys, o.service.Insecure)
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
