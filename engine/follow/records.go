package follow

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// recordsSkew is how much older than its notification a bet record's
// created_at may read, and how far out of order records made together may
// be listed (the service stamps both; this allows for rounding, for two
// clocks behind it and for one take-up's records sharing a moment).
const recordsSkew = time.Minute

// Want is a bet whose per-session records are to be read: its
// notification and when it was created (zero: not known).
type Want struct {
	ID      int64
	Created time.Time
}

// ReadRecords reads, in list pages, the per-session records of the bets
// in want. Bet history lists every session's record newest first (100 a
// page), so one page holds the records of many bets: pages are read until
// they reach records older than the oldest of these bets, which then has
// all of its records in hand. It gives, in the order of want, the records
// of each bet the pages covered, in the order they were made (nil for a
// bet they did not cover, and for one they covered without a record: it
// was placed, so it has records, to be read on their own); what it gives
// is good until the next call. shared is how many plans share the account's reads: it
// widens the pages a read may take. A failed page is logged and ends the
// read with what was covered; its error ends the command (Reader.Ends).
func (r *Reader) ReadRecords(ctx context.Context, want []Want, shared int) ([][]apiclient.BetRecord, error) {
	if len(want) < 2 {
		return nil, nil
	}
	ids := make(map[int64]bool, len(want))
	oldest := want[0].Created
	for _, w := range want {
		ids[w.ID] = true
		if c := w.Created; !c.IsZero() && c.Before(oldest) {
			oldest = c
		}
	}
	byNotif := map[int64][]apiclient.BetRecord{}
	var reached time.Time // the oldest record time read so far
	ended := false
	firstIDs := map[int64]bool{}
	for page := 1; page < len(want)*shared && page <= MaxScanPages; page++ {
		p, err := r.Svc.ListBets(ctx, apiclient.ListBetsOptions{Page: page, PageSize: PageSize})
		if err != nil {
			if stop := r.stop(ctx, err); stop != nil {
				return nil, stop
			}
			r.logf("bet records: list page %d: %v; reading them one bet at a time", page, err)
			break
		}
		if len(p.Results) == 0 || firstIDs[int64(p.Results[0].ID)] {
			ended = true
			break
		}
		firstIDs[int64(p.Results[0].ID)] = true
		newestFirst := true
		for _, rec := range p.Results {
			if id, err := strconv.ParseInt(string(rec.Notification), 10, 64); err == nil && ids[id] {
				byNotif[id] = append(byNotif[id], rec)
			}
			t := rec.CreatedAt.Time
			// Records made together (one take-up) may come in any
			// order among themselves.
			if t.IsZero() || (!reached.IsZero() && t.After(reached.Add(recordsSkew))) {
				newestFirst = false
			}
			if !t.IsZero() && (reached.IsZero() || t.Before(reached)) {
				reached = t
			}
		}
		if !newestFirst {
			// The coverage rule needs the history newest first, with
			// times: without them, every bet's records are read on
			// their own.
			r.logf("bet records: bet history is not listed newest first; reading them one bet at a time")
			reached, ended = time.Time{}, false
			break
		}
		if p.Next == nil || (!reached.IsZero() && reached.Before(oldest.Add(-2*recordsSkew))) {
			ended = p.Next == nil
			break
		}
	}
	covered := slices.Grow(r.covered[:0], len(want))[:len(want)]
	clear(covered)
	r.covered = covered
	for i, w := range want {
		c := w.Created
		if ended || (!reached.IsZero() && !c.IsZero() && reached.Before(c.Add(-2*recordsSkew))) {
			// The list is newest first: a page's records keep the
			// order they were made in, oldest last.
			recs := byNotif[w.ID]
			if len(recs) == 0 {
				continue
			}
			slices.Reverse(recs)
			covered[i] = recs
		}
	}
	return covered, nil
}

// Records reads the per-session records of one notification.
func (r *Reader) Records(ctx context.Context, id int64) ([]apiclient.BetRecord, error) {
	return r.Svc.BetsByNotification(ctx, id)
}

// CompleteRecords reads the per-session records of settled bets that
// still lack them, and of placed bets whose placement is not read yet. A
// bet some session refused while another placed it costs no read more:
// the refusals' words are in its records (a placed bet's reasons cost no
// request).
func (f *Follower) CompleteRecords(ctx context.Context) error {
	defer f.host.KeepPlacements(ctx)
	return f.placementErrorsKept(func() error {
		return f.readRecords(ctx, func(b Bet) bool { return b.NeedRecords() || b.NeedPlacement() })
	})
}

// ReadPlacements reads the records of bets newly seen placed: who placed
// them, who refused and why, and when (pollers call it after each poll).
func (f *Follower) ReadPlacements(ctx context.Context) error {
	defer f.host.KeepPlacements(ctx)
	return f.placementErrorsKept(func() error {
		return f.readRecords(ctx, func(b Bet) bool { return b.NeedPlacement() })
	})
}

// placementErrorsKept runs read, and leaves a placed bet whose records
// could not be read without an error: its placement is known from the
// notification, the records are read again at the next poll.
func (f *Follower) placementErrorsKept(read func() error) error {
	before := map[Bet]string{}
	for b := range f.book.Bets() {
		if b.NeedPlacement() && !b.NeedRecords() {
			before[b] = b.Err()
		}
	}
	err := read()
	for b, e := range before {
		if b.NeedPlacement() {
			if f.book.PlacementUnread(b, e) {
				f.logPlacementLine(b)
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
func (f *Follower) readRecords(ctx context.Context, need func(Bet) bool) error {
	var want []Bet
	for b := range f.book.Bets() {
		if need(b) && b.NotifID() != 0 {
			want = append(want, b)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if len(want) > 1 {
		ws := f.wantRecords[:0]
		for _, b := range want {
			w := Want{ID: b.NotifID(), Created: b.CreatedAt()}
			if c := b.NotifCreatedAt(); !c.IsZero() {
				w.Created = c
			}
			ws = append(ws, w)
		}
		f.wantRecords = ws
		covered, err := f.read.ReadRecords(ctx, ws, f.host.SharedBy())
		if err != nil {
			return err
		}
		for i, b := range want {
			if recs := covered[i]; recs != nil {
				f.applyRecords(b, recs)
			}
		}
	}
	for _, b := range want {
		if !need(b) {
			continue
		}
		if _, err := f.records(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// records reads the notification's per-session records into b; nil
// records and a nil error mean the read failed and is tried again on the
// next poll.
func (f *Follower) records(ctx context.Context, b Bet) ([]apiclient.BetRecord, error) {
	recs, err := f.read.Records(ctx, b.NotifID())
	if err != nil {
		if stop := f.read.stop(ctx, err); stop != nil {
			return nil, stop
		}
		f.book.Trouble(b, fmt.Sprintf("reading bet records: %v", err))
		return nil, nil
	}
	f.applyRecords(b, recs)
	if recs == nil {
		recs = []apiclient.BetRecord{}
	}
	return recs, nil
}
