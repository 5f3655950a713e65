package main

import (
	"context"
	"fmt"
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
		args:    "PLAN [BET-ID...]",
		summary: "cancel the plan's notifications that can still be cancelled",
		exits: append([]exitDoc{
			{exitOK, "the notifications asked for were cancelled, or nothing was left to cancel"},
			{exitFailed, "a cancel failed, or a bet failed or is in doubt"},
			{exitUsage, "usage error, invalid plan or a bet id the plan does not have, before any request"},
			{exitRefused, "refused: no confirmation, another run holds the lock, or the service cannot be reached or refuses the credentials"},
		}, interruptedExits...),
		examples: `  # cancel every bet of the plan not yet final, asking first
  betplan cancel plans/saturday.yaml
  # cancel two bets by the ids the plan gives them, without asking
  betplan cancel --yes plans/saturday.yaml flem4-no3 rand2-no1
`,
		colour: true,
		setup:  bindTo((*cancelOptions).bind, cancelBets),
	}
}

func (o *cancelOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Yes, "yes", false, "do not ask for confirmation")
	o.state.bind(fs)
	o.service.bind(fs)
}

// cancelBets is `betplan cancel PLAN [BET-ID...]`.
func cancelBets(ctx context.Context, sys *sysIO, o *cancelOptions, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan file")
	}
	p, err := loadPlan(sys, args[0])
	if err != nil {
		return err
	}
	if err := checkBetIDs(p, args[1:]); err != nil {
		return err
	}
	confirm, err := confirmer(sys, o.Yes, false)
	if err != nil {
		return err
	}
	conn, err := o.service.connect(sys)
	if err != nil {
		return err
	}
	defer conn.close()
	opts, err := engineOptions(sys, args[0], o.state, conn)
	if err != nil {
		return err
	}
	opts.Confirm = confirm
	res, err := engine.Cancel(ctx, p, args[1:], opts)
	return finishRun(sys, reportOptions{}, reporters.Format("text"), opts, res, err)
}

// checkBetIDs refuses, before any request, a bet id the plan does not
// have, listing those it has: they are what cancel takes.
func checkBetIDs(p *plan.Plan, ids []string) error {
	known := map[string]bool{}
	var all []string
	for _, b := range p.Bets {
		if !known[b.ID] {
			known[b.ID] = true
			all = append(all, b.ID)
		}
	}
	for _, id := range ids {
		if !known[id] {
			hint := ""
			if s := plan.Suggest(id, all); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return usagef("no bet %q in plan %s%s; its bets are: %s", id, p.Name, hint, strings.Join(all, ", "))
		}
	}
	return nil
}
