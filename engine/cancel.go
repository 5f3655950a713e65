package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/betplan/betplan/plan"
)

// Cancel is `betplan cancel`: it cancels the plan's notifications (all,
// or those the given ids name) that are not final yet, and returns the
// plan's status afterwards. A bet id names every instance of the bet; an
// instance id ("box1@the-meadows-r5", instance.go) one race's bet of a
// for_each_race bet.
func Cancel(ctx context.Context, p *plan.Plan, ids []string, opts Options) (*Result, error) {
	r := newTracker(p, opts)
	res := r.newResult(KindStatus, r.clock.Now())
	err := r.runLocked(ctx, func() error {
		if err := r.status(ctx); err != nil {
			return err
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for id := range want {
			if err := r.checkCancelID(id); err != nil {
				return err
			}
		}
		return r.cancelOpen(ctx, want, true)
	})
	r.finish(res, err)
	return reported(res, err)
}

// checkCancelID refuses an id that names no bet of the plan, or no
// instance the run knows (from the journal, the service or the races).
func (r *tracker) checkCancelID(id string) error {
	betID, _, inst := strings.Cut(id, "@")
	known := false
	for _, b := range r.plan.Bets {
		known = known || b.ID == betID
	}
	if !known {
		return fmt.Errorf("no bet %q in plan %s", betID, r.plan.Name)
	}
	if !inst {
		return nil
	}
	var names []string
	for _, in := range r.insts {
		if in.bet.ID != betID {
			continue
		}
		if in.matches(id) {
			return nil
		}
		names = append(names, in.name())
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no instance %q of bet %s: it has none", id, betID)
	}
	return fmt.Errorf("no instance %q of bet %s; its instances are: %s", id, betID, strings.Join(names, ", "))
}
