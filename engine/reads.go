package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
)

// The follower's reads of the service on the run's clock: the list pages
// that hold open bets, the label look-ups and the pages other plans read;
// what each read shows is applied in poll.go.

// poll reads the plan's open notifications: every one, once a tick, so
// each outcome is seen at the first tick after the service shows it. The
// pages of the notification list that hold them are read (100 a call),
// each once; a page another plan of the run read on this tick serves this
// plan too (adoptListPages, and the account's shared reads).
func (f *follower) poll(ctx context.Context) error {
	if err := f.adoptListPages(ctx); err != nil {
		return err
	}
	now := f.clock.Now()
	why := map[string]bool{}
	var open []*instance
	for _, in := range f.book.insts {
		// A bet cancelled by betplan is read too: sessions may have placed
		// it before the cancel.
		if in.notifID == 0 || in.final || in.readThisTick(f.tickAt) {
			continue
		}
		if in.createdThisTick(f.tickAt) && !f.opts.NoWait && !f.lastLook {
			continue // a --no-wait run's last look includes it
		}
		reason := whyLastLook
		if !f.lastLook {
			reason = in.due()
		}
		why[reason] = true
		open = append(open, in)
	}
	if !f.tickAt.IsZero() {
		ctx = follow.WithSince(ctx, f.tickAt.Add(-f.readSlack()))
	}
	return f.fetch(follow.WithReason(ctx, reasons(why)), open, now)
}

// readSlack is how long before this plan's tick a page another plan of
// the run read still counts as read on this tick: the plans tick together
// (tickGrid), give or take the time one tick's work takes to start. A
// quarter of the interval at most, so an outcome is never seen from a page
// read much more than an interval ago.
func (f *follower) readSlack() time.Duration {
	return min(time.Second, f.interval()/4)
}

// interval is the plan's poll interval (30s when unset).
func (f *follower) interval() time.Duration {
	if f.plan.Poll.Interval > 0 {
		return f.plan.Poll.Interval
	}
	return 30 * time.Second
}

// reasons joins a poll's reasons in a fixed order.
func reasons(set map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(set)), "+")
}

// adoptListPages applies the pages of the notification list that other
// plans of the run read since this plan last looked (and after its own
// last create): a page shows every bet on it, so it is a poll of this
// plan's bets there too, at the time it was read, and they need no read
// of their own until they are due again. A plan running alone has none.
// The list index is left as the plan's own reads set it: an adopted page
// may be older than what the plan last saw of the list's length, and
// would move its predictions back.
func (f *follower) adoptListPages(ctx context.Context) error {
	ap, ok := f.svc.(*accountPlan)
	if !ok {
		return nil
	}
	pages := ap.listPagesSince(f.adoptedAt)
	if len(pages) == 0 {
		return nil
	}
	ours := f.book.notifications()
	for _, sp := range pages {
		if sp.at.After(f.adoptedAt) {
			f.adoptedAt = sp.at
		}
		if sp.n > 1 && sp.page.Previous == nil {
			continue // past the end: the service's page 1 (see follow.Reader.ListPage)
		}
		for i := range sp.page.Results {
			in := ours[int64(sp.page.Results[i].ID)]
			if in == nil || in.final || !in.lastPolled.Before(sp.at) {
				continue
			}
			f.book.polled(in, sp.at, true)
			if err := f.update(ctx, in, &sp.page.Results[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pollLast is the run's last look before it ends unfinished (poll.timeout):
// every open bet is read, due or not, so none ends the run as it was seen
// minutes ago.
func (f *follower) pollLast(ctx context.Context) error {
	f.lastLook = true
	defer func() { f.lastLook = false }()
	return f.poll(ctx)
}

// fetch reads the given notifications (the follow package's poll) and
// applies what the reads showed: a label look-up is a poll of its bet, a
// failed or empty one the bet's trouble; every open bet of the plan a
// read showed is polled, due or not, and updated.
func (f *follower) fetch(ctx context.Context, open []*instance, now time.Time) error {
	open = slices.DeleteFunc(slices.Clone(open), func(in *instance) bool {
		return in.lastPolled.Equal(now) && !now.IsZero() // read already, by a page of this poll
	})
	if len(open) == 0 {
		return nil
	}
	f.want = f.want[:0]
	for _, in := range open {
		f.want = append(f.want, follow.Open{ID: in.notifID, Label: in.label})
	}
	reads, err := f.read.Poll(ctx, f.want, f.ours())
	for _, l := range reads.Lookups {
		in := open[l.Open]
		f.book.polled(in, now, false)
		switch {
		case l.Ended:
		case l.Err != nil:
			f.book.trouble(in, fmt.Sprintf("polling: %v", l.Err), "")
		case !l.Listed:
			f.book.trouble(in, fmt.Sprintf("notification %d with label %s is no longer listed by the service", in.notifID, in.label), "")
		}
	}
	if err != nil {
		return err
	}
	// Every open bet of the plan the reads showed is polled, due or not.
	for _, in := range f.book.insts {
		n := reads.Seen[in.notifID]
		if n == nil || in.notifID == 0 || in.final {
			continue
		}
		f.book.polled(in, now, true)
		if err := f.update(ctx, in, n); err != nil {
			return err
		}
	}
	return nil
}

// ours is the set of the plan's notification ids: a page read shows
// every one of them it holds.
func (f *follower) ours() follow.Ours {
	o := make(follow.Ours, len(f.book.insts))
	for _, in := range f.book.insts {
		if in.notifID != 0 {
			o[in.notifID] = true
		}
	}
	return o
}

// listPage reads page n of the service's notification list, noting where
// the plan's notifications (the book's) stand in it (the journal's claim
// of an old journal reads it).
func (f *follower) listPage(ctx context.Context, n int) (*apiclient.Page[apiclient.Notification], error) {
	return f.read.ListPage(ctx, n, f.ours())
}

// eachPage pages through the service's notification list from its head
// (follow.Reader.EachPage); the tips follow their results on its pages.
func (f *follower) eachPage(ctx context.Context, fn func(page []apiclient.Notification) (more bool)) (failed int, err error) {
	return f.read.EachPage(ctx, f.ours(), fn)
}
