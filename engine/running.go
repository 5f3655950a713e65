package engine

import (
	"context"

	"github.com/betplan/betplan/state"
)

// liveRun is the run holding the plan's lock, as the store reads it
// without taking it (a run starting meanwhile is never refused for the
// look); nil when none is, or the store cannot tell. A status holding it
// for a moment (followHost.KeepPlacements) is no run.
func (r *tracker) liveRun(ctx context.Context) *state.LockOwner {
	if r.opts.Store == nil {
		return nil
	}
	h, err := r.opts.Store.Holder(ctx, r.planKey())
	if err != nil || h == nil || h.Command == statusCommand {
		return nil
	}
	return h
}
