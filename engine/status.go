package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/betplan/betplan/plan"
)

// Outcomes is `betplan status`: it re-reads the outcomes of the plan's
// labels (from the journal, or from the service by label prefix when the
// journal is gone) and returns a fresh result. It creates nothing and
// takes no lock.
func Outcomes(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	r := newRun(p, opts)
	res := r.newResult(KindStatus, r.clock.Now())
	err := r.status(ctx)
	r.finish(res, err)
	if err == nil {
		res.EndReason = "completed"
	}
	return res, err
}

func (r *run) status(ctx context.Context) error {
	if r.journal == nil { // cancel holds the journal open already
		j, err := ReadJournal(JournalPath(r.opts.StateDir, r.plan.Name))
		if err != nil {
			return err
		}
		r.journal = j
	}
	j := r.journal
	if err := r.refresh(ctx); err != nil {
		return err
	}
	if j.Fresh() {
		found, err := r.scanPrefix(ctx)
		if err != nil {
			return fmt.Errorf("find the plan's bets on the service: %w", err)
		}
		bets := map[string]*plan.Bet{}
		for _, b := range r.plan.Bets {
			bets[b.ID] = b
		}
		for i := range found {
			n := &found[i]
			b := bets[betIDFromLabel(r.plan.Name, n.Label)]
			if b == nil {
				continue
			}
			in := &instance{bet: b, label: n.Label, status: StatusCreated, notifID: int64(n.ID), notif: n,
				info: RaceInfo{Venue: n.Tip.Competition.Name.First(), Code: n.Tip.Competition.Code,
					EventNumber: int(n.Tip.Competition.EventNumber), Start: n.Tip.Competition.StartTime.Time}}
			in.amount = float64(n.Stake)
			if b.AmountField() == "target_profit" {
				in.amount = float64(n.TargetProfit)
			}
			r.byLabel[n.Label] = in
			r.insts = append(r.insts, in)
		}
	}
	if err := r.expand(); err != nil {
		return err
	}
	r.followJournal()
	// Bets not created yet read as waiting, or skipped once their race began.
	now := r.clock.Now()
	for _, in := range r.insts {
		if in.status == StatusWaiting && in.notifID == 0 {
			if s := j.State(in.label); s != nil && s.Pending {
				in.reason = "an earlier create may have landed; the next run looks the label up"
			} else if in.race == nil || !now.Before(in.race.StartTime.Time) {
				in.status, in.final = StatusSkipped, true
				in.reason = "not created before its race started"
			} else {
				in.reason = "not created yet"
			}
		}
	}
	return r.poll(ctx)
}

// Cancel is `betplan cancel`: it cancels the plan's notifications (all,
// or those of the given bet ids) that are not final yet, and returns the
// plan's status afterwards.
func Cancel(ctx context.Context, p *plan.Plan, betIDs []string, opts Options) (*Result, error) {
	r := newRun(p, opts)
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
		var targets []*instance
		for _, in := range r.insts {
			if in.notifID == 0 || in.final || in.status == StatusCanceled || (len(want) > 0 && !want[in.bet.ID]) {
				continue
			}
			targets = append(targets, in)
		}
		if len(targets) == 0 {
			r.logf("nothing to cancel")
			return nil
		}
		if r.opts.Confirm != nil {
			ok, err := r.opts.Confirm(fmt.Sprintf("Cancel %d notifications of plan %q on %s?", len(targets), r.plan.Name, r.opts.BaseURL))
			if err != nil {
				return err
			}
			if !ok {
				return &RefusedError{Reason: "cancel was not confirmed"}
			}
		}
		for _, in := range targets {
			if err := r.svc.CancelNotification(ctx, in.notifID); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				in.err = fmt.Sprintf("cancel: %v", err)
				continue
			}
			if err := r.journal.Record(journalEntry{Op: opCanceled, Label: in.label, NotificationID: in.notifID}); err != nil {
				return err
			}
			in.reason = "cancel requested"
			in.lastPolled = time.Time{} // read it again below
			r.logf("cancelled %s: notification %d", in.bet.ID, in.notifID)
		}
		return r.poll(ctx)
	})
	r.finish(res, err)
	return res, err
}
