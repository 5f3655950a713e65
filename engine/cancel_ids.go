package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// CancelIDError is an id `betplan cancel` cannot take, found before any
// request: a bet the plan does not have, an instance id of a bet with no
// for_each_race or written wrongly, or an instance the journal does not
// know. Its message lists what the plan or the journal has.
type CancelIDError struct{ Msg string }

func (e *CancelIDError) Error() string { return e.Msg }

func cancelIDErrorf(format string, args ...any) error {
	return &CancelIDError{Msg: fmt.Sprintf(format, args...)}
}

// CheckCancelIDs refuses, before any request to the service, an id cancel
// cannot take (a *CancelIDError), listing the bets the plan has: they are
// what cancel takes. An instance id (box1@the-meadows-r5) must name a
// for_each_race bet of the plan and an instance the plan's journal knows;
// the journal is read, from opts' state and never from the service, only
// for such an id. A new journal (lost, so rebuilt from the service by the
// run) leaves that to Cancel, which checks against what the service has.
func CheckCancelIDs(ctx context.Context, p *plan.Plan, ids []string, opts Options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	bets := map[string]*plan.Bet{}
	var all []string
	for _, b := range p.Bets {
		if bets[b.ID] == nil {
			bets[b.ID] = b
			all = append(all, b.ID)
		}
	}
	var journal *Journal
	read := false
	for _, id := range ids {
		betID, _, instance := strings.Cut(id, "@")
		b := bets[betID]
		if b == nil {
			hint := ""
			if s := plan.Suggest(betID, all); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return cancelIDErrorf("no bet %q in plan %s%s; its bets are: %s", betID, p.Name, hint, strings.Join(all, ", "))
		}
		if !instance {
			continue
		}
		if b.ForEachRace == nil {
			return cancelIDErrorf("bet %s of plan %s has no for_each_race, so no instances: cancel it as %s", betID, p.Name, betID)
		}
		if !WellFormedInstanceID(id) {
			return cancelIDErrorf("%q is not an instance id: they read %s", id, InstanceIDForm)
		}
		if !read {
			o := opts
			o.withDefaults()
			j, err := ReadPlanJournal(ctx, o.Store, state.PlanKey{Name: p.Name, BaseURL: o.BaseURL})
			if err != nil {
				return err
			}
			journal, read = j, true
		}
		if journal == nil || journal.Fresh() {
			continue // lost, or nothing created yet
		}
		found, known := journal.FindInstance(p, id)
		switch {
		case found:
		case len(known) == 0:
			return cancelIDErrorf("no instance %q of bet %s: the journal of plan %s knows none (nothing created yet)", id, betID, p.Name)
		default:
			return cancelIDErrorf("no instance %q of bet %s in the journal of plan %s; it knows: %s", id, betID, p.Name, strings.Join(known, ", "))
		}
	}
	return nil
}
