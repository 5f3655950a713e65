package engine

import (
	"context"
	"fmt"

	"github.com/betplan/betplan/plan"
)

// Cancel is `betplan cancel`: it cancels the plan's notifications (all,
// or those of the given bet ids) that are not final yet, and returns the
// plan's status afterwards.
func Cancel(ctx context.Context, p *plan.Plan, betIDs []string, opts Options) (*Result, error) {
	r := newTracker(p, opts)
	res := r.newResult(KindStatus, r.clock.Now())
	err := r.runLocked(ctx, func() error {
		if err := r.status(ctx); err != nil {
			return err
		}
		want := map[string]bool{}
		for _, id := range betIDs {
			want[id] = true
		}
		if len(want) > 0 {
			known := map[string]bool{}
			for _, b := range r.plan.Bets {
				known[b.ID] = true
			}
			for id := range want {
				if !known[id] {
					return fmt.Errorf("no bet %q in plan %s", id, r.plan.Name)
				}
			}
		}
		return r.cancelOpen(ctx, want, true)
	})
	r.finish(res, err)
	return res, err
}
