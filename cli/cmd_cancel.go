package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// cancelOptions are the flags of `betplan cancel`.
type cancelOptions struct {
	Yes     bool
	state   stateOptions
	service serviceOptions
}

func cancelCommand() *command {
	return &command{
		name:    "cancel",
		args:    "PLAN [BET-ID...] | PLAN|DIR|GLOB...",
		summary: "cancel the plan's notifications that can still be cancelled",
		exits: append([]exitDoc{
			{exitOK, "the notifications asked for were cancelled, or nothing was left to cancel"},
			{exitFailed, "a cancel failed, or a bet failed or is in doubt"},
			{exitUsage, "usage error, invalid plan, a bet id the plan does not have or an instance id its journal does not know, before any request"},
			{exitRefused, "refused: no confirmation, another run holds the lock, or the service cannot be reached or refuses the credentials"},
		}, interruptedExits...),
		examples: `  # cancel every bet of the plan not yet final, asking first
  betplan cancel plans/saturday.yaml
  # cancel two bets by the ids the plan gives them, without asking
  betplan cancel --yes plans/saturday.yaml flem4-no3 rand2-no1
  # cancel one race's bet of a for_each_race bet, by the id its row shows
  betplan cancel plans/dogs.yaml box1@the-meadows-r5
  # cancel every bet not yet final of every plan in a folder
  betplan cancel plans/
`,
		colour: true,
		setup:  bindTo((*cancelOptions).bind, cancelBets),
	}
}

func (o *cancelOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Yes, "yes", false, "do not ask for confirmation")
	o.state.bind(fs)
	o.state.use = stateWrites
	o.service.bind(fs)
}

func (o *cancelOptions) validate() error { return o.service.validate() }

// checkIDs refuses, before any request to the service, an id the plan or
// its journal does not know: a usage error that lists what they have.
func (o *cancelOptions) checkIDs(ctx context.Context, sys *sysIO, p *plan.Plan, planFile string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	opts, err := stateOnly(sys, &o.service, o.state, planFile)
	if err != nil {
		return err
	}
	err = engine.CheckCancelIDs(ctx, p, ids, opts)
	var bad *engine.CancelIDError
	if errors.As(err, &bad) {
		return usagef("%v", bad)
	}
	return err
}

// cancelBets is `betplan cancel PLAN [BET-ID...]`.
func cancelBets(ctx context.Context, sys *sysIO, o *cancelOptions, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan file")
	}
	if severalPlans(args) {
		files, err := (&accountOptions{}).planArgs(sys, args)
		if err != nil {
			return err
		}
		return cancelPlans(ctx, sys, o, files)
	}
	p, err := loadPlan(sys, args[0])
	if err != nil {
		return err
	}
	if err := o.checkIDs(ctx, sys, p, args[0], args[1:]); err != nil {
		return err
	}
	confirm, s, err := setUpConfirmed(ctx, sys, o.Yes, false, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	opts := s.options(args[0])
	opts.Confirm = confirm
	res, err := engine.Cancel(ctx, p, args[1:], opts)
	return finishRun(sys, reportOptions{}, reporters.Format("text"), opts, res, err)
}

// severalPlans tells cancel's two forms apart: a folder or a glob first,
// or nothing but plan files, names several plans (every bet of each);
// else the first argument is the plan and the rest its bet ids.
func severalPlans(args []string) bool {
	if info, err := os.Stat(args[0]); err == nil && info.IsDir() {
		return true
	} else if err != nil && strings.ContainsAny(args[0], "*?[") {
		return true
	}
	if len(args) < 2 {
		return false
	}
	for _, a := range args {
		if ext := filepath.Ext(a); ext != ".yaml" && ext != ".yml" {
			return false
		}
	}
	return true
}

// cancelPlans is `betplan cancel` of several plans: every plan validated
// first, then each plan's open bets cancelled in turn (each asked for
// apart), through one client.
func cancelPlans(ctx context.Context, sys *sysIO, o *cancelOptions, files []string) error {
	plans, err := loadPlans(sys, files)
	if err != nil {
		return err
	}
	confirm, s, err := setUpConfirmed(ctx, sys, o.Yes, false, &o.service, o.state, nil)
	if err != nil {
		return err
	}
	defer s.close()
	opts, results, errs, err := s.inTurn(ctx, plans, files, func(i int, opts *engine.Options) error {
		if confirm != nil {
			name := plans[i].Name
			opts.Confirm = func(summary string) (bool, error) { return confirm(fmt.Sprintf("[%s] %s", name, summary)) }
		}
		return nil
	}, func(p *plan.Plan, opts engine.Options) (*engine.Result, error) {
		return engine.Cancel(ctx, p, nil, opts)
	})
	if err != nil {
		return err
	}
	return finishRuns(sys, reportOptions{}, reporters.FormatText, plans, opts, results, errs)
}
