package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// statusOptions are the flags of `betplan status`.
type statusOptions struct {
	report  reportOptions
	state   stateOptions
	account accountOptions
	service serviceOptions
}

func statusCommand() *command {
	return &command{
		name:    "status",
		args:    "PLAN|DIR|GLOB...",
		summary: "re-read the outcomes of the plans' bets and rewrite the reports",
		exits: append([]exitDoc{
			{exitOK, "the report was rewritten and nothing failed"},
			{exitFailed, "a bet failed, was not taken, is in doubt or unresolved, or an API error"},
			{exitUsage, "usage error or invalid plan, before any request"},
			{exitRefused, "the service cannot be reached, is not at that URL, or refuses the credentials"},
		}, interruptedExits...),
		examples: `  betplan status plans/saturday.yaml
  betplan status --format json plans/saturday.yaml | jq .totals
`,
		colour: true,
		setup:  bindTo((*statusOptions).bind, showStatus),
	}
}

func (o *statusOptions) bind(fs *pflag.FlagSet) {
	o.report.bind(fs)
	o.state.bind(fs)
	o.account.bind(fs)
	o.report.bindFormat(fs)
	o.service.bind(fs)
}

func (o *statusOptions) validate() error { return firstError(o.report.validate, o.service.validate) }

// showStatus is `betplan status PLAN`.
func showStatus(ctx context.Context, sys *sysIO, o *statusOptions, args []string) error {
	files, err := o.account.planArgs(sys, args)
	if err != nil {
		return err
	}
	if len(files) > 1 {
		return showStatuses(ctx, sys, o, files)
	}
	path, f, err := o.report.planAndFormat(files)
	if err != nil {
		return err
	}
	p, account, err := o.account.loadPlan(sys, path)
	if err != nil {
		return err
	}
	s, err := setUp(ctx, sys, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	opts := s.options(path)
	opts.Account = account
	res, err := engine.ReadStatus(ctx, p, opts)
	return finishRun(sys, o.report, f, opts, res, err)
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
	s, err := setUp(ctx, sys, &o.service, o.state, nil)
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
