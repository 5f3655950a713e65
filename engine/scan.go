package engine

import (
	"context"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
)

// scanPrefix lists the service's notifications carrying the plan's label
// prefix, oldest id kept per label.
func (f *follower) scanPrefix(ctx context.Context) ([]apiclient.Notification, error) {
	prefix := LabelPrefix(f.plan.Name)
	return f.read.Labelled(ctx, f.ours(), func(label string) bool {
		return strings.HasPrefix(label, prefix) && betIDFromLabel(f.plan.Name, label) != ""
	})
}

// checkLabels settles, in one list read, whether the labels of the bets
// about to be created this tick exist on the service: a burst costs a
// page per 100 of the account's notifications instead of a look-up per
// label. The read counts only when it reached the end of the list (every
// notification the account has was seen) within fewer pages than the
// look-ups it replaces; otherwise each label is looked up on its own, as
// before. What it found is used once, by the next look-up of each label,
// and only this tick. Its error is a TokenRefusedError: a 401 no login
// cured ends the run here, as at any other call; any other failure falls
// back to the look-ups.
func (f *follower) checkLabels(ctx context.Context, now time.Time) (map[string][]apiclient.Notification, error) {
	var labels []string
	for _, in := range f.book.insts {
		if f.wouldCreate(in, now) {
			labels = append(labels, in.label)
		}
	}
	if len(labels) < 2 {
		return nil, nil
	}
	return f.read.CheckLabels(ctx, labels, f.ours())
}

// wouldCreate reports, without side effects, whether decide would look
// in's label up to create it now.
func (f *follower) wouldCreate(in *instance, now time.Time) bool {
	if in.status != StatusWaiting || f.halt.why != "" || !in.resolved() || !now.Before(in.start()) {
		return false
	}
	if s := f.hold.journal.State(in.label); s != nil && !s.decidedOnly() {
		return false // created, pending or known: decide handles it on its own
	}
	if notInField(in) != "" {
		return false // skipped, never created
	}
	if only := f.opts.OnlyLabels; only != nil {
		_, ok := only[in.label]
		return ok
	}
	ready, err := in.bet.Ready(f.res.instanceEnv(in, now))
	return err == nil && ready
}

// completeRecords reads the per-session records of settled bets that
// still lack them, and of placed bets whose placement is not read yet.
func (f *follower) completeRecords(ctx context.Context) error {
	defer f.keepPlacements(ctx)
	return f.placementErrorsKept(func() error {
		return f.readRecords(ctx, func(in *instance) bool { return in.needRecords || in.needPlacement })
	})
}

// readPlacements reads the records of bets newly seen placed: who placed
// them, who refused and why, and when (pollers call it after each poll).
func (f *follower) readPlacements(ctx context.Context) error {
	defer f.keepPlacements(ctx)
	return f.placementErrorsKept(func() error {
		return f.readRecords(ctx, func(in *instance) bool { return in.needPlacement })
	})
}

// placementErrorsKept runs read, and leaves a placed bet whose records
// could not be read without an error: its placement is known from the
// notification, the records are read again at the next poll.
func (f *follower) placementErrorsKept(read func() error) error {
	before := map[*instance]string{}
	for _, in := range f.book.insts {
		if in.needPlacement && !in.needRecords {
			before[in] = in.err
		}
	}
	err := read()
	for in, e := range before {
		if in.needPlacement {
			if f.book.placementUnread(in, e) {
				f.logPlacementLine(in)
			}
		}
	}
	f.logOutcomesDue()
	return err
}

// readRecords reads the per-session records of the bets that need them.
// Bet history lists every session's record newest first
// (100 a page), so one page holds the records of many bets: pages are read
// until they reach records older than the oldest of these bets, which
// then has all of its records in hand. Whatever the pages did not cover
// (a failed page, a long history) is read one notification at a time.
func (f *follower) readRecords(ctx context.Context, need func(*instance) bool) error {
	var want []*instance
	for _, in := range f.book.insts {
		if need(in) && in.notifID != 0 {
			want = append(want, in)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if len(want) > 1 {
		ws := f.wantRecords[:0]
		for _, in := range want {
			w := follow.Want{ID: in.notifID, Created: in.createdAt}
			if in.notif != nil && !in.notif.CreatedAt.IsZero() {
				w.Created = in.notif.CreatedAt.Time
			}
			ws = append(ws, w)
		}
		f.wantRecords = ws
		covered, err := f.read.ReadRecords(ctx, ws, sharedBy(f.svc))
		if err != nil {
			return err
		}
		for i, in := range want {
			if recs := covered[i]; recs != nil {
				f.applyRecords(in, recs)
			}
		}
	}
	for _, in := range want {
		if !need(in) {
			continue
		}
		if _, err := f.records(ctx, in); err != nil {
			return err
		}
	}
	return nil
}
