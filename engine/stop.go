package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// Stop is `betplan stop PLAN`: it sets the plan's stop mark, takes the
// plan's lock (a running run sees the mark at its next tick or create,
// ends and lets it go; opts.LockTimeout bounds the wait), finds every
// notification of the plan (the journal, and the service by label prefix
// for any the journal lacks) and cancels those not final yet. It returns
// the plan's status afterwards, notification by notification.
func Stop(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	r := newTracker(p, opts)
	r.command = commandStop
	res := r.newResult(KindStatus, r.clock.Now())
	res.Command = "stop"
	host, _ := os.Hostname()
	mark := &state.StopMark{At: r.clock.Now().UTC(), By: state.LockOwner{PID: os.Getpid(), Host: host, PlanFile: opts.PlanFile, Command: commandStop, Since: time.Now().UTC()}}
	err := r.opts.Store.SetStop(ctx, r.planKey(), mark)
	if err == nil {
		r.logf("plan %s: stop mark set; no run of it creates anything more until `betplan stop --resume`", p.Name)
		err = r.runLocked(ctx, func() error {
			if err := r.adoptUnjournalled(ctx); err != nil {
				return err
			}
			if err := r.status(ctx); err != nil {
				return err
			}
			return r.cancelOpen(ctx, nil, false)
		})
	}
	r.finish(res, err)
	return reported(res, err)
}

// Resume clears the plan's stop mark, so runs create again. It reports
// whether there was one.
func Resume(ctx context.Context, p *plan.Plan, opts Options) (bool, error) {
	if err := opts.validate(); err != nil {
		return false, err
	}
	r := newTracker(p, opts)
	mark, err := r.opts.Store.ReadStop(ctx, r.planKey())
	if err != nil || mark == nil {
		return false, err
	}
	return true, r.opts.Store.SetStop(ctx, r.planKey(), nil)
}

// adoptUnjournalled records in the journal every notification of the plan
// the service has (by label prefix) and the journal does not know as
// created: a run with another state dir, or a create whose outcome was
// never recorded. Stop must cancel what exists, not what one journal saw.
func (r *tracker) adoptUnjournalled(ctx context.Context) error {
	found, err := r.follow.ScanPrefix(ctx)
	if err != nil {
		return fmt.Errorf("find the plan's notifications on the service: %w", err)
	}
	for _, n := range found {
		if s := r.journal.State(n.Label); s != nil && s.created() {
			continue
		}
		betID := betIDFromLabel(r.plan.Name, n.Label)
		amount := notificationAmount(&n, plan.AmountFieldFor(n.Type))
		info := notificationRace(&n)
		if err := r.journal.Record(journalEntry{Op: opAdopted, Label: n.Label, BetID: betID, NotificationID: int64(n.ID), Amount: amount, Race: &info}); err != nil {
			return err
		}
		r.logf("found %s: notification %d (label %s) on the service", betID, n.ID, n.Label)
	}
	return nil
}
