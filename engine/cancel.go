package engine

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
)

// Cancel is `betplan cancel`: it cancels the plan's notifications (all,
// or those the given ids name) that are not final yet, and returns the
// plan's status afterwards. A bet id names every instance of the bet; an
// instance id ("box1@the-meadows-r5", instance.go) one race's bet of a
// for_each_race bet.
func Cancel(ctx context.Context, p *plan.Plan, ids []string, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	r := newTracker(p, opts)
	res := r.newResult(KindStatus, r.clock.Now())
	res.Command = "cancel"
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
		if err := r.cancelOpen(ctx, want, true); err != nil {
			return err
		}
		// A stopped plan's cancel says so: nothing more is created until
		// it is resumed, whatever was left to cancel.
		if r.hold.lease != nil {
			if mark, err := r.hold.lease.Stopped(); err == nil && mark != nil {
				r.halt.stopped = mark
			}
		}
		return nil
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
	for _, in := range r.book.insts {
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

// AccountCanceller is what CancelAccount needs of the service;
// *apiclient.Client satisfies it.
type AccountCanceller interface {
	Notifications(ctx context.Context, opts apiclient.ListNotificationsOptions) iter.Seq2[*apiclient.Notification, error]
	CancelNotification(ctx context.Context, id int64) error
}

// AccountCancel is what CancelAccount did with one notification: Err is
// nil when it was cancelled.
type AccountCancel struct {
	Notification *apiclient.Notification
	Err          error
}

// CancelAccount is `betplan stop --all`: it cancels every notification of
// the account, whoever created it, that can still be cancelled: not
// cancelled, deleted or resulted, and its race not started at now (the
// service refuses those anyway). each hears of every cancel tried, as it
// happens. A listing that fails ends it with an error that says so.
func CancelAccount(ctx context.Context, c AccountCanceller, now time.Time, each func(AccountCancel)) (cancelled, failed int, err error) {
	for n, err := range c.Notifications(ctx, apiclient.ListNotificationsOptions{}) {
		if err != nil {
			return cancelled, failed, &AccountListError{Err: err}
		}
		start := n.Tip.Competition.StartTime.Time
		if bool(n.IsCanceled) || bool(n.IsDeleted) || n.Resulted() || (!start.IsZero() && !now.Before(start)) {
			continue
		}
		if err := c.CancelNotification(ctx, int64(n.ID)); err != nil {
			if ctx.Err() != nil {
				return cancelled, failed, ctx.Err()
			}
			each(AccountCancel{Notification: n, Err: err})
			failed++
			continue
		}
		each(AccountCancel{Notification: n})
		cancelled++
	}
	return cancelled, failed, nil
}

// AccountListError is the account's notifications that could not be
// listed, so not every one was cancelled.
type AccountListError struct{ Err error }

func (e *AccountListError) Error() string {
	return "list the account's notifications: " + e.Err.Error()
}
func (e *AccountListError) Unwrap() error { return e.Err }

// cancelOpen cancels the notifications of the tracked instances that are
// not final yet (only those of the bets in want, when given), journals
// each cancel, and reads the outcomes again.
func (r *tracker) cancelOpen(ctx context.Context, want map[string]bool, confirm bool) error {
	var targets []*instance
	for _, in := range r.book.insts {
		if in.notifID == 0 || in.final || in.status == StatusCanceled || (len(want) > 0 && !in.matchesAny(want)) {
			continue
		}
		targets = append(targets, in)
	}
	if len(targets) == 0 {
		r.logf("nothing to cancel")
		return nil
	}
	if confirm && r.opts.Confirm != nil {
		ok, err := r.opts.Confirm(r.cancelQuestion(targets))
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
			r.book.trouble(in, fmt.Sprintf("cancel: %v", err), "")
			r.logf("could not cancel %s: notification %d: %v", in.name(), in.notifID, err)
			continue
		}
		if err := r.journal.Record(journalEntry{Op: opCanceled, Label: in.label, NotificationID: in.notifID}); err != nil {
			return err
		}
		r.book.wait(in, "cancel requested")
		r.book.readAgain(in) // read it again below
		r.logf("cancelled %s: notification %d", in.name(), in.notifID)
	}
	return r.follow.Poll(ctx)
}

// cancelQuestion asks before a cancel, naming each bet it cancels and what
// it has at risk: "Cancel 2 bets of plan "a" on URL, $15.00 at risk:
// a1 (Flemington R1, $12.00 stake, $12.00 at risk), …? What sessions
// placed already stays on."
func (r *tracker) cancelQuestion(targets []*instance) string {
	var total book.Total
	parts := make([]string, 0, len(targets))
	for i, in := range targets {
		b := r.money.betResult(in)
		total.Add(b.AtRisk)
		if i == idsShown {
			parts = append(parts, fmt.Sprintf("and %d more", len(targets)-idsShown))
			continue
		}
		if i > idsShown {
			continue
		}
		amount := ""
		if in.amount > 0 {
			amount = fmt.Sprintf("%s %s, ", usd(in.amount), in.bet.AmountField())
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s%s at risk)", in.name(), raceWords(in.info), amount, usd(b.AtRisk)))
	}
	return fmt.Sprintf("Cancel %d %s of plan %q on %s, %s at risk: %s? What sessions placed already stays on.",
		len(targets), plural(len(targets), "bet", "bets"), r.plan.Name, r.opts.BaseURL, usd(total.Dollars()), strings.Join(parts, ", "))
}
