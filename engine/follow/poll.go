package follow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Open is an open bet a tick reads: its notification and its label.
type Open struct {
	ID    int64
	Label string
}

// Lookup is what the label look-up of an open bet the pages did not show
// found.
type Lookup struct {
	Open int // the bet's place in the poll's open
	ID   int64
	// Err is why the look-up failed; it is tried again at the next poll.
	Err error
	// Listed reports that the label's notifications include the bet's:
	// false without Err, the service no longer lists it.
	Listed bool
	// Ended marks the look-up whose failure ended the poll (the error
	// Poll returns).
	Ended bool
}

// Reads is what one poll showed.
type Reads struct {
	// Seen is every notification of the plan the reads showed, open and
	// due or not: a page read is a poll of all it shows.
	Seen map[int64]*apiclient.Notification
	// Lookups are the label look-ups made, in the order of open.
	Lookups []Lookup
}

// Poll is one tick's read of the plan's open bets, the polling rule's
// reading: the pages the index points to come first (one call reads a
// hundred, and every notification of the plan a page shows is seen with
// it); what they did not show is found through list pages from the head
// when that is cheaper, else by one label look-up each. A failed list
// read is logged and the look-ups stand in. Its error ends the command (see Reader.Ends); the reads
// made before it are returned with it.
func (r *Reader) Poll(ctx context.Context, open []Open, ours Ours) (Reads, error) {
	reads := Reads{Seen: map[int64]*apiclient.Notification{}}
	seen := reads.Seen
	r.ids = r.ids[:0]
	for _, o := range open {
		r.ids = append(r.ids, o.ID)
	}
	ids := r.ids
	rest, err := r.ReadPages(ctx, ids, ours, seen)
	if err != nil {
		if stop := r.stop(ctx, err); stop != nil {
			return reads, stop
		}
		r.logf("poll: %v", err) // fall back to label look-ups
		rest = slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return seen[id] != nil })
	}
	if len(rest) > LabelLookupMax && ours.pagesToCover(rest) < len(rest) {
		if err := r.scanFor(ctx, rest, ours, seen); err != nil {
			if stop := r.stop(ctx, err); stop != nil {
				return reads, stop
			}
			r.logf("poll: %v", err) // fall back to label look-ups
		}
	}
	for i, o := range open {
		if seen[o.ID] != nil {
			continue
		}
		ns, err := r.Svc.NotificationsByLabel(ctx, o.Label)
		if err != nil {
			if stop := r.stop(ctx, err); stop != nil {
				reads.Lookups = append(reads.Lookups, Lookup{Open: i, ID: o.ID, Ended: true})
				return reads, stop
			}
			reads.Lookups = append(reads.Lookups, Lookup{Open: i, ID: o.ID, Err: err})
			continue
		}
		for i := range ns {
			if int64(ns[i].ID) == o.ID {
				seen[o.ID] = &ns[i]
			}
		}
		reads.Lookups = append(reads.Lookups, Lookup{Open: i, ID: o.ID, Listed: seen[o.ID] != nil})
	}
	return reads, nil
}

// pagesToCover is how many list pages from the head hold every
// notification of the plan from the oldest of open on: the fewest pages
// a read from the head costs.
func (o Ours) pagesToCover(open []int64) int {
	minID := open[0]
	for _, id := range open {
		minID = min(minID, id)
	}
	n := 0
	for id := range o {
		if id >= minID {
			n++
		}
	}
	return (n + PageSize - 1) / PageSize
}

// Why a notification is polled: the reasons due gives, and the run's
// other reads of the list. A read carries its reason in its context
// (WithReason), so a test can count the calls by what asked for them.
const (
	whyFirst    = "first poll"
	whyOpen     = "open bet"
	whyLastLook = "last look"
)

// due reports why an open notification is polled on a tick of the plan's
// interval: every open bet is read once a tick, so each outcome is seen
// at the first tick after the service shows it, whether it lands before
// the listed start (a scratching, a start in the wrong time zone) or
// after. The pages that hold the plan's open bets are what a tick reads
// (fetch), a hundred bets a call, so reading them all costs no more than
// reading a few.
func due(b Bet) string {
	if b.LastPolled().IsZero() {
		return whyFirst
	}
	return whyOpen
}

// createdThisTick reports whether the notification was created on the
// run's current tick: its sessions have had no time to answer, so its
// first poll is the next tick's.
func createdThisTick(b Bet, tick time.Time) bool {
	return !tick.IsZero() && !b.CreatedAt().IsZero() && !b.CreatedAt().Before(tick)
}

// readThisTick reports whether the notification was read since the tick
// began (a look-up that adopted it, a page another plan of the run read):
// polling it again would tell nothing.
func readThisTick(b Bet, tick time.Time) bool {
	return !tick.IsZero() && !b.LastPolled().IsZero() && !b.LastPolled().Before(tick)
}

// Poll reads the plan's open notifications: every one, once a tick, so
// each outcome is seen at the first tick after the service shows it. The
// pages of the notification list that hold them are read (100 a call),
// each once; a page another plan of the run read on this tick serves this
// plan too (adoptListPages, and the account's shared reads).
func (f *Follower) Poll(ctx context.Context) error {
	if err := f.adoptListPages(ctx); err != nil {
		return err
	}
	now := f.clock.Now()
	why := map[string]bool{}
	var open []Bet
	for b := range f.book.Bets() {
		// A bet cancelled by betplan is read too: sessions may have placed
		// it before the cancel.
		if b.NotifID() == 0 || b.Final() || readThisTick(b, f.tickAt) {
			continue
		}
		if createdThisTick(b, f.tickAt) && !f.noWait && !f.lastLook {
			continue // a --no-wait run's last look includes it
		}
		reason := whyLastLook
		if !f.lastLook {
			reason = due(b)
		}
		why[reason] = true
		open = append(open, b)
	}
	if !f.tickAt.IsZero() {
		ctx = WithSince(ctx, f.tickAt.Add(-f.readSlack()))
	}
	return f.fetch(WithReason(ctx, reasons(why)), open, now)
}

// readSlack is how long before this plan's tick a page another plan of
// the run read still counts as read on this tick: the plans tick together
// (the account's tick grid), give or take the time one tick's work takes
// to start. A quarter of the interval at most, so an outcome is never
// seen from a page read much more than an interval ago.
func (f *Follower) readSlack() time.Duration {
	return min(time.Second, f.interval/4)
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
func (f *Follower) adoptListPages(ctx context.Context) error {
	pages := f.host.SharedPages(f.adoptedAt)
	if len(pages) == 0 {
		return nil
	}
	ours := make(map[int64]Bet, f.book.Len())
	for b := range f.book.Bets() {
		if id := b.NotifID(); id != 0 {
			ours[id] = b
		}
	}
	for _, sp := range pages {
		if sp.At.After(f.adoptedAt) {
			f.adoptedAt = sp.At
		}
		if sp.N > 1 && sp.Page.Previous == nil {
			continue // past the end: the service's page 1 (see Reader.ListPage)
		}
		for i := range sp.Page.Results {
			b := ours[int64(sp.Page.Results[i].ID)]
			if b == nil || b.Final() || !b.LastPolled().Before(sp.At) {
				continue
			}
			f.book.Polled(b, sp.At, true)
			if err := f.update(ctx, b, &sp.Page.Results[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// PollLast is the run's last look before it ends unfinished (poll.timeout):
// every open bet is read, due or not, so none ends the run as it was seen
// minutes ago.
func (f *Follower) PollLast(ctx context.Context) error {
	f.lastLook = true
	defer func() { f.lastLook = false }()
	return f.Poll(ctx)
}

// fetch reads the given notifications (Reader.Poll) and applies what the
// reads showed: a label look-up is a poll of its bet, a failed or empty
// one the bet's trouble; every open bet of the plan a read showed is
// polled, due or not, and updated.
func (f *Follower) fetch(ctx context.Context, open []Bet, now time.Time) error {
	open = slices.DeleteFunc(slices.Clone(open), func(b Bet) bool {
		return b.LastPolled().Equal(now) && !now.IsZero() // read already, by a page of this poll
	})
	if len(open) == 0 {
		return nil
	}
	f.want = f.want[:0]
	for _, b := range open {
		f.want = append(f.want, Open{ID: b.NotifID(), Label: b.Label()})
	}
	reads, err := f.read.Poll(ctx, f.want, f.ours())
	for _, l := range reads.Lookups {
		b := open[l.Open]
		f.book.Polled(b, now, false)
		switch {
		case l.Ended:
		case l.Err != nil:
			f.book.Trouble(b, fmt.Sprintf("polling: %v", l.Err))
		case !l.Listed:
			f.book.Trouble(b, fmt.Sprintf("notification %d with label %s is no longer listed by the service", b.NotifID(), b.Label()))
		}
	}
	if err != nil {
		return err
	}
	// Every open bet of the plan the reads showed is polled, due or not.
	for b := range f.book.Bets() {
		n := reads.Seen[b.NotifID()]
		if n == nil || b.NotifID() == 0 || b.Final() {
			continue
		}
		f.book.Polled(b, now, true)
		if err := f.update(ctx, b, n); err != nil {
			return err
		}
	}
	return nil
}
