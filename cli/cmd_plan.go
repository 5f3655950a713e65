package cli

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// planOptions are the flags of `betplan plan`.
type planOptions struct {
	Out              string
	DetailedExitcode bool
	Format           string
	Verbose          bool
	rehearsal        rehearsalOptions
	state            stateOptions
	account          accountOptions
	service          serviceOptions
}

func planCommand() *command {
	return &command{
		name:    "plan",
		args:    "PLAN|DIR|GLOB...",
		summary: "show what run would do now, without creating anything",
		exits: append([]exitDoc{
			{exitOK, "the preview was shown (with --detailed-exitcode: nothing to create)"},
			{exitFailed, "the preview could not be made (an API error)"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "the service cannot be reached, is not at that URL, or refuses the credentials"},
			{exitChanges, "with --detailed-exitcode: there is something to create"},
		}, interruptedExits...),
		examples: `  # what would run do now, on the embedded simulated service
  betplan plan --sim examples/saturday-card.yaml
  # save exactly what it would create, for review; run applies it later
  betplan plan --out saturday.plan.json plans/saturday.yaml
  betplan run saturday.plan.json
`,
		colour: true,
		setup:  bindTo((*planOptions).bind, previewPlan),
	}
}

func (o *planOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Out, "out", "", "save the plan to FILE; 'betplan run FILE' then applies exactly that")
	fs.BoolVar(&o.DetailedExitcode, "detailed-exitcode", false, "exit 0 when nothing would be created or published, 4 when something would")
	fs.StringVar(&o.Format, "format", "text", "output format: text, json or markdown")
	fs.BoolVar(&o.Verbose, "verbose", false, "with several plans, say everything of every bet (default: one line a bet, the first refusal of each limit, errors)")
	fs.BoolVar(&o.rehearsal.Sim, "sim", false, "resolve against an in-process simulated service")
	o.rehearsal.bindWorld(fs)
	o.state.bind(fs)
	o.account.bind(fs)
	o.service.bind(fs)
	o.service.rehearsable = true
}

func (o *planOptions) validate() error {
	if f, err := reporters.ParseFormat(o.Format); err != nil || (f != "text" && f != "json" && f != "markdown") {
		return usagef("--format for plan is text, json or markdown, not %q", o.Format)
	}
	return firstError(o.rehearsal.validate, o.service.validate)
}

// previewPlan is `betplan plan PLAN`.
func previewPlan(ctx context.Context, sys *sysIO, o *planOptions, args []string) error {
	files, err := o.account.planArgs(sys, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return previewPlans(ctx, sys, o, files)
	}
	path := files[0]
	f, _ := reporters.ParseFormat(o.Format) // checked by validate
	p, account, err := o.account.loadPlan(sys, path)
	if err != nil {
		return err
	}
	s, err := setUp(ctx, sys, &o.service, o.state, &o.rehearsal)
	if err != nil {
		return err
	}
	defer s.close()
	opts := previewOptions(s, path, account)
	res, saved, err := engine.Preview(ctx, p, opts)
	if err != nil {
		return explainAt(opts.BaseURL, serviceAnswered(opts), err)
	}
	showTimes(res, opts)
	if err := reporters.Write(sys.Stdout, f, res, sys.textOptions()); err != nil {
		return err
	}
	plan.WriteWarningsBrief(sys.Stderr, res.Warnings)
	if o.Out != "" {
		// The plan file is named relative to the saved file, so the saved
		// plan can be applied from any directory.
		if rel, err := relativeTo(o.Out, path); err == nil {
			saved.PlanFile = rel
		}
		if err := engine.WriteSavedPlan(o.Out, saved); err != nil {
			return err
		}
		switch n := len(saved.Creates); n {
		case 0:
			fmt.Fprintf(sys.Stderr, "saved the plan to %s; it has nothing to create\n", o.Out)
		default:
			fmt.Fprintf(sys.Stderr, "saved the plan to %s; 'betplan run %s' applies exactly its %s\n", o.Out, o.Out, count(n, "create"))
		}
	}
	if o.DetailedExitcode && (len(saved.Creates) > 0 || publishesNow(res)) {
		return errChanges
	}
	return nil
}

// previewOptions are the engine's options for a preview of the plan in
// file, alone or among several: it writes no log (what it would do is
// its output), and on a new simulated world it has no journal to read.
func previewOptions(s *commandSetup, file string, account *plan.Config) engine.Options {
	opts := s.options(file)
	opts.Account = account
	opts.Log = nil
	if opts.Simulated {
		opts.State, opts.Store = scratchState(opts.State)
	}
	return opts
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
	s, err := setUp(ctx, sys, &o.service, o.state, &o.rehearsal)
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
	var warnings plan.Diagnostics // said once for all the plans, with their places
	for i, p := range plans {
		planAccount, err := o.account.loadAccount(sys, files[i])
		if err != nil {
			return err
		}
		opts := previewOptions(s, files[i], planAccount)
		s.conn.logRetries(accountLog)
		opts.Backend = account.PlanTelling(s.conn.retries.hook(logs.plan(p.Name)))
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
			to := sys.textOptions()
			to.Brief = len(plans) > 1 && !o.Verbose
			if err := reporters.Write(sys.Stdout, f, res, to); err != nil {
				return err
			}
		}
		changes = changes || len(saved.Creates) > 0 || publishesNow(res)
		warnings = append(warnings, res.Warnings...)
	}
	if wroteJSON {
		fmt.Fprintln(sys.Stdout, "\n]")
	}
	logs.flush()
	plan.WriteWarningsBrief(sys.Stderr, warnings)
	if err := joinFailures(failed); err != nil {
		return err
	}
	if o.DetailedExitcode && changes {
		return errChanges
	}
	return nil
}

// publishesNow reports whether run would publish a tip now.
func publishesNow(res *engine.Result) bool {
	for _, t := range res.Tips {
		if t.Action == engine.ActionPublish {
			return true
		}
	}
	return false
}
