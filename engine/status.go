package engine

import (
	"context"
	"fmt"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// ReadStatus is `betplan status`: it re-reads the outcomes of the plan's
// labels (from the journal, or from the service by label prefix when the
// journal is gone) and returns a fresh result. It creates nothing and
// takes no lock.
func ReadStatus(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	r := newTracker(p, opts)
	res := r.newResult(KindStatus, r.clock.Now())
	res.Running = r.liveRun(ctx)
	err := r.status(ctx)
	r.finish(res, err)
	if err == nil {
		res.EndReason = EndCompleted
	}
	return reported(res, err)
}

func (r *tracker) status(ctx context.Context) error {
	if r.journal == nil { // cancel holds the journal open already
		j, err := r.journals.readJournal(ctx)
		if err != nil {
			return err
		}
		r.journal = j
	}
	j := r.journal
	if err := r.res.refresh(ctx); err != nil {
		return err
	}
	if j.Fresh() {
		found, err := r.follow.ScanPrefix(ctx)
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
			r.book.add(n.Label, newFound(b, n, notificationAmount(n, b.AmountField())))
		}
	}
	if err := r.res.expand(); err != nil {
		return err
	}
	r.res.followJournal()
	// Bets not created yet read as waiting, or skipped once their race began.
	now := r.clock.Now()
	for _, in := range r.book.insts {
		if in.status == StatusWaiting && in.notifID == 0 {
			if s := j.State(in.label); s != nil && s.Pending {
				r.book.wait(in, "an earlier create may have landed; the next run looks the label up")
			} else if !in.resolved() || !now.Before(in.start()) {
				r.book.end(in, StatusSkipped, reason.Said(reason.RaceStarted, "not created before its "+in.what()+" started"))
			} else if why := notInField(in); why != "" {
				// As run words it: a vacant box is skipped, not waiting.
				r.book.end(in, StatusSkipped, reason.Said(reason.Scratched, why+": not created"))
			} else if why := r.create.checkBot(in); why != "" {
				// As run words its refusal; the bet waits for a run that
				// can create it.
				r.book.wait(in, "not created: "+why)
			} else {
				r.book.wait(in, "not created yet")
			}
		}
	}
	if err := r.follow.Poll(ctx); err != nil {
		return err
	}
	if err := r.tips.statusTips(ctx); err != nil {
		return err
	}
	return r.follow.CompleteRecords(ctx)
}
