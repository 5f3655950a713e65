package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// maxScanPages bounds one list scan of GET /notification/.
const maxScanPages = 50

// eachPage pages through GET /notification/ (100 a page, newest first)
// and hands each page to fn until fn returns false, the list ends, or
// maxScanPages were read. The service answers an out-of-range page with
// page 1, so a page whose first id came round already ends the scan. On
// an error it says which page failed.
func (f *follower) eachPage(ctx context.Context, fn func(page []apiclient.Notification) (more bool)) (failed int, err error) {
	firstIDs := map[int64]bool{}
	for page := 1; page <= maxScanPages; page++ {
		p, err := f.listPage(ctx, page, nil)
		if err != nil {
			return page, err
		}
		if len(p.Results) == 0 || firstIDs[int64(p.Results[0].ID)] {
			return 0, nil
		}
		firstIDs[int64(p.Results[0].ID)] = true
		if !fn(p.Results) || p.Next == nil {
			return 0, nil
		}
	}
	return 0, nil
}

// scanPrefix lists the service's notifications carrying the plan's label
// prefix, oldest id kept per label.
func (f *follower) scanPrefix(ctx context.Context) ([]apiclient.Notification, error) {
	prefix := LabelPrefix(f.plan.Name)
	byLabel := map[string]apiclient.Notification{}
	var order []string
	_, err := f.eachPage(ctx, func(page []apiclient.Notification) bool {
		for _, n := range page {
			if !strings.HasPrefix(n.Label, prefix) || betIDFromLabel(f.plan.Name, n.Label) == "" {
				continue
			}
			old, ok := byLabel[n.Label]
			if !ok {
				order = append(order, n.Label)
			}
			if !ok || n.ID < old.ID {
				byLabel[n.Label] = n
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	out := make([]apiclient.Notification, 0, len(order))
	for _, l := range order {
		out = append(out, byLabel[l])
	}
	return out, nil
}

// scanFor reads list pages until every open id was seen, or the pages are
// older than the oldest open notification.
func (f *follower) scanFor(ctx context.Context, open []*instance, seen map[int64]*apiclient.Notification) error {
	want := map[int64]bool{}
	minID := open[0].notifID
	for _, in := range open {
		want[in.notifID] = true
		minID = min(minID, in.notifID)
	}
	failed, err := f.eachPage(ctx, func(page []apiclient.Notification) bool {
		below := true
		for i := range page {
			n := &page[i]
			id := int64(n.ID)
			if want[id] {
				seen[id] = n
				delete(want, id)
			}
			if id >= minID {
				below = false
			}
		}
		return len(want) > 0 && !below
	})
	if err != nil {
		return fmt.Errorf("list notifications page %d: %w", failed, err)
	}
	return nil
}

// betIDFromLabel finds which bet of the plan a label belongs to.
func betIDFromLabel(planName, label string) string {
	rest, ok := strings.CutPrefix(label, LabelPrefix(planName))
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return ""
	}
	return rest[:i]
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
func (f *follower) checkLabels(ctx context.Context, now time.Time) error {
	f.labelsSeen = nil
	var labels []string
	for _, in := range f.book.insts {
		if f.wouldCreate(in, now) {
			labels = append(labels, in.label)
		}
	}
	if len(labels) < 2 {
		return nil
	}
	seen := map[string][]apiclient.Notification{}
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	firstIDs := map[int64]bool{}
	for page := 1; page < len(labels) && page <= maxScanPages; page++ {
		p, err := f.listPage(ctx, page, nil)
		if err != nil {
			if refused := tokenRefused(err); refused != nil {
				return refused
			}
			f.logf("label check of %d %s: list page %d: %v; looking each label up", len(labels), plural(len(labels), "bet", "bets"), page, err)
			return nil
		}
		// An out-of-range page comes back as page 1: the list ended.
		complete := len(p.Results) == 0 || firstIDs[int64(p.Results[0].ID)]
		if !complete {
			firstIDs[int64(p.Results[0].ID)] = true
			for _, n := range p.Results {
				if want[n.Label] {
					seen[n.Label] = append(seen[n.Label], n)
				}
			}
			complete = p.Next == nil
			// The envelope says how long the list is: a list the budget
			// cannot cover is not read on (count is never below 1 and may
			// be absent, so only a larger total stops the read).
			if !complete && page == 1 && int(p.TotalPages) >= len(labels) {
				f.logf("label check of %d %s: the account lists %d pages of notifications; looking each label up", len(labels), plural(len(labels), "bet", "bets"), p.TotalPages)
				return nil
			}
		}
		if complete {
			f.labelsSeen = make(map[string][]apiclient.Notification, len(labels))
			for _, l := range labels {
				f.labelsSeen[l] = seen[l] // nil: no notification carries it
			}
			return nil
		}
	}
	return nil
}

// wouldCreate reports, without side effects, whether decide would look
// in's label up to create it now.
func (f *follower) wouldCreate(in *instance, now time.Time) bool {
	if in.status != StatusWaiting || f.host.stopReason() != "" || !in.resolved() || !now.Before(in.start()) {
		return false
	}
	if s := f.host.currentJournal().State(in.label); s != nil && !s.decidedOnly() {
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

// recordsSkew is how much older than its notification a bet record's
// created_at may read, and how far out of order records made together may
// be listed (the service stamps both; this allows for rounding, for two
// clocks behind it and for one take-up's records sharing a moment).
const recordsSkew = time.Minute

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
	created := func(in *instance) time.Time {
		if in.notif != nil && !in.notif.CreatedAt.IsZero() {
			return in.notif.CreatedAt.Time
		}
		return in.createdAt
	}
	if len(want) > 1 {
		ids := make(map[int64]bool, len(want))
		oldest := created(want[0])
		for _, in := range want {
			ids[in.notifID] = true
			if c := created(in); !c.IsZero() && c.Before(oldest) {
				oldest = c
			}
		}
		byNotif := map[int64][]apiclient.BetRecord{}
		var reached time.Time // the oldest record time read so far
		ended := false
		firstIDs := map[int64]bool{}
		for page := 1; page < len(want)*sharedBy(f.svc) && page <= maxScanPages; page++ {
			p, err := f.svc.ListBets(ctx, apiclient.ListBetsOptions{Page: page, PageSize: 100})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if refused := tokenRefused(err); refused != nil {
					return refused
				}
				f.logf("bet records: list page %d: %v; reading them one bet at a time", page, err)
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
				f.logf("bet records: bet history is not listed newest first; reading them one bet at a time")
				reached, ended = time.Time{}, false
				break
			}
			if p.Next == nil || (!reached.IsZero() && reached.Before(oldest.Add(-2*recordsSkew))) {
				ended = p.Next == nil
				break
			}
		}
		for _, in := range want {
			c := created(in)
			if ended || (!reached.IsZero() && !c.IsZero() && reached.Before(c.Add(-2*recordsSkew))) {
				// The list is newest first: a page's records keep the
				// order they were made in, oldest last.
				recs := byNotif[in.notifID]
				if len(recs) == 0 {
					continue // it was placed, so it has records: read them on their own
				}
				slices.Reverse(recs)
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
