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
			{exitUsage, "usage error, invalid plan, a bet id the plan does not have or an instance id its journal does not know, before any request"},
			{exitRefused, "refused: no confirmation, another run holds the lock, or the service cannot be reached or refuses the credentials"},
		}, interruptedExits...),
		examples: `  # cancel every bet of the plan not yet final, asking first
  betplan cancel plans/saturday.yaml
  # cancel two bets by the ids the plan gives them, without asking
  betplan cancel --yes plans/saturday.yaml flem4-no3 rand2-no1
  # cancel one race's bet of a for_each_race bet, by the id its row shows
  betplan cancel plans/dogs.yaml box1@the-meadows-r5
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

// journal reads the plan's journal before any request to the service:
// from the local state dir, or from the shared state (a database, not the
// service), through the same Store a run uses.
func (o *cancelOptions) journal(ctx context.Context, sys *sysIO, planFile, planName string) func() (*engine.Journal, error) {
	return func() (*engine.Journal, error) {
		base, err := o.service.baseURL(sys)
		if err != nil {
			return nil, err
		}
		store, err := o.state.store(sys, o.service.Insecure, engine.NewLayout(o.state.StateDir, planFile, false))
		if err != nil {
			return nil, err
		}
		return engine.ReadPlanJournal(ctx, store, engine.PlanKey{Name: planName, BaseURL: base})
	}
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
	if err := checkBetIDs(p, args[1:], o.journal(ctx, sys, args[0], p.Name)); err != nil {
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
// have, listing those it has: they are what cancel takes. An instance id
// (box1@the-meadows-r5) must name a for_each_race bet of the plan and an
// instance the plan's journal knows; a new journal (lost, so rebuilt from
// the service by the run) leaves that to the engine.
func checkBetIDs(p *plan.Plan, ids []string, journal func() (*engine.Journal, error)) error {
	bets := map[string]*plan.Bet{}
	var all []string
	for _, b := range p.Bets {
		if bets[b.ID] == nil {
			bets[b.ID] = b
			all = append(all, b.ID)
		}
	}
	for _, id := range ids {
		betID, _, instance := strings.Cut(id, "@")
		b := bets[betID]
		if b == nil {
			hint := ""
			if s := plan.Suggest(betID, all); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return usagef("no bet %q in plan %s%s; its bets are: %s", betID, p.Name, hint, strings.Join(all, ", "))
		}
		if !instance {
			continue
		}
		if b.ForEachRace == nil {
			return usagef("bet %s of plan %s has no for_each_race, so no instances: cancel it as %s", betID, p.Name, betID)
		}
		if !engine.WellFormedInstanceID(id) {
			return usagef("%q is not an instance id: they read %s", id, engine.InstanceIDForm)
		}
		j, err := journal()
		if err != nil {
			return err
		}
		if j == nil || j.Fresh() {
			continue // lost, or nothing created yet: the engine checks against what the service has
		}
		found, known := j.FindInstance(p, id)
		switch {
		case found:
		case len(known) == 0:
			return usagef("no instance %q of bet %s: the journal of plan %s knows none (nothing created yet)", id, betID, p.Name)
		default:
			return usagef("no instance %q of bet %s in the journal of plan %s; it knows: %s", id, betID, p.Name, strings.Join(known, ", "))
		}
	}
	return nil
}
