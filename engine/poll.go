package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// maxScanPages bounds one list scan of GET /notification/.
const maxScanPages = 50

// labelLookupMax is how many due notifications are polled one label at a
// time; more are found through list pages (100 a call).
const labelLookupMax = 10

// slowPollEvery is how often a notification whose race has not started is
// polled: before the start only the take-up can change.
const slowPollEvery = 15 * time.Minute

// unresultedAfter is how long after its start a notification nothing was
// placed on may stay unresulted before it counts as not taken.
const unresultedAfter = 2 * time.Hour

// due reports whether an open notification should be polled now: never
// polled yet, its race has started (the result is coming), or it was last
// polled a while ago.
func (in *instance) due(now time.Time) bool {
	switch {
	case in.lastPolled.IsZero(), in.info.Start.IsZero(), !now.Before(in.info.Start):
		return true
	}
	return now.Sub(in.lastPolled) >= slowPollEvery
}

// poll refreshes the open notifications that are due. Every bet on one
// race is resulted together, so while a race is running one notification
// of it is probed; the others are read once the probe shows a result. A
// set larger than the list pages needed to cover it is read through list
// pages (100 a call) instead of one look-up per label.
func (r *run) poll(ctx context.Context) error {
	now := r.clock.Now()
	groups := map[string][]*instance{}
	var keys []string
	for _, in := range r.insts {
		if in.notifID == 0 || in.final || in.status == StatusCanceled || !in.due(now) {
			continue
		}
		k := raceKey(in)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], in)
	}
	var batch, probes []*instance
	for _, k := range keys {
		g := groups[k]
		if len(g) > 1 && r.probing(g, now) {
			probes = append(probes, g[0])
			continue
		}
		batch = append(batch, g...)
	}
	if err := r.fetch(ctx, append(batch, probes...), now); err != nil {
		return err
	}
	// A probe that came back resulted: read the rest of its race now.
	var rest []*instance
	for _, p := range probes {
		if p.notif != nil && p.notif.Resulted() {
			rest = append(rest, groups[raceKey(p)][1:]...)
		}
	}
	return r.fetch(ctx, rest, now)
}

// probing reports whether a race's group can be represented by a probe:
// the race has started, none of the group is resulted yet and every
// member was polled before (its take-up is known).
func (r *run) probing(g []*instance, now time.Time) bool {
	for _, in := range g {
		if in.lastPolled.IsZero() || in.info.Start.IsZero() || now.Before(in.info.Start) || (in.notif != nil && in.notif.Resulted()) {
			return false
		}
	}
	return true
}

func raceKey(in *instance) string {
	return fmt.Sprintf("%s|%s|%d|%d", normalizeVenue(in.info.Venue), in.info.Code, in.info.EventNumber, in.info.Start.Unix())
}

// fetch reads the given notifications and applies them.
func (r *run) fetch(ctx context.Context, open []*instance, now time.Time) error {
	if len(open) == 0 {
		return nil
	}
	seen := map[int64]*apiclient.Notification{}
	if len(open) > labelLookupMax && r.pagesToCover(open) < len(open) {
		if err := r.scanFor(ctx, open, seen); err != nil {
			return err
		}
	}
	for _, in := range open {
		in.lastPolled = now
		n, ok := seen[in.notifID]
		if !ok {
			ns, err := r.svc.NotificationsByLabel(ctx, in.label)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				in.err = fmt.Sprintf("polling: %v", err)
				continue
			}
			for i := range ns {
				if int64(ns[i].ID) == in.notifID {
					n = &ns[i]
				}
			}
			if n == nil {
				in.err = fmt.Sprintf("notification %d with label %s is no longer listed by the service", in.notifID, in.label)
				continue
			}
		}
		if in.err != "" && strings.HasPrefix(in.err, "polling:") {
			in.err = ""
		}
		if err := r.update(ctx, in, n); err != nil {
			return err
		}
	}
	return nil
}

// pagesToCover estimates how many list pages (newest first) reach the
// oldest of open: at least the plan's own notifications from there on.
func (r *run) pagesToCover(open []*instance) int {
	minID := open[0].notifID
	for _, in := range open {
		minID = min(minID, in.notifID)
	}
	n := 0
	for _, in := range r.insts {
		if in.notifID >= minID {
			n++
		}
	}
	return (n + 99) / 100
}

// scanFor pages through GET /notification/ (newest first) until every open
// id was seen, the list ends, or the pages are older than the oldest open
// notification.
func (r *run) scanFor(ctx context.Context, open []*instance, seen map[int64]*apiclient.Notification) error {
	want := map[int64]bool{}
	minID := open[0].notifID
	for _, in := range open {
		want[in.notifID] = true
		minID = min(minID, in.notifID)
	}
	firstIDs := map[int64]bool{}
	for page := 1; page <= maxScanPages && len(want) > 0; page++ {
		p, err := r.svc.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: page, PageSize: 100})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.logf("poll: list notifications page %d: %v", page, err)
			return nil // fall back to label look-ups
		}
		if len(p.Results) == 0 {
			return nil
		}
		// An out-of-range page comes back as page 1: stop on a repeat.
		if firstIDs[int64(p.Results[0].ID)] {
			return nil
		}
		firstIDs[int64(p.Results[0].ID)] = true
		below := true
		for i := range p.Results {
			n := &p.Results[i]
			id := int64(n.ID)
			if want[id] {
				seen[id] = n
				delete(want, id)
			}
			if id >= minID {
				below = false
			}
		}
		if p.Next == nil || below {
			return nil
		}
	}
	return nil
}

// update applies a fresh notification to its instance and, once it is
// resulted, reads its per-session records (one call, once).
func (r *run) update(ctx context.Context, in *instance, n *apiclient.Notification) error {
	in.notif = n
	if in.info.Start.IsZero() && !n.Tip.Competition.StartTime.IsZero() {
		in.info.Start = n.Tip.Competition.StartTime.Time
	}
	switch {
	case bool(n.IsCanceled) && float64(n.TotalAccepted) == 0:
		in.status, in.final = StatusCanceled, true
		in.reason = "cancelled before any session placed it"
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && !in.info.Start.IsZero() && r.clock.Now().After(in.info.Start.Add(unresultedAfter)):
		// A notification the service never matched to a race is never
		// resulted; nothing was placed, so nothing is left to follow.
		in.status, in.final = StatusNotTaken, true
		in.reason = fmt.Sprintf("no session placed it and the service had not resulted it %s after the start", unresultedAfter)
		return nil
	case !n.Resulted():
		if n.TotalAccepted > 0 {
			in.status = StatusPlaced
			in.reason = fmt.Sprintf("$%.2f accepted at average odds %.2f; awaiting the result", float64(n.TotalAccepted), float64(n.AverageOdds))
		} else {
			in.status = StatusCreated
			in.reason = "no session has placed it yet"
		}
		return nil
	}
	recs, err := r.svc.BetsByNotification(ctx, in.notifID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		in.err = fmt.Sprintf("reading bet records: %v", err)
		return nil // try again next tick
	}
	in.records = in.records[:0]
	var errs []string
	accepted := false
	for i := range recs {
		rec := &recs[i]
		in.records = append(in.records, Record{
			Bookie:       string(rec.Bookie),
			DisplayName:  rec.DisplayName,
			Amount:       float64(rec.Amount),
			Odds:         float64(rec.CurrentOdds),
			SubmitResult: rec.SubmitResult,
			SubmitError:  rec.SubmitError,
			Status:       rec.Status,
			Profit:       float64(rec.Profit),
		})
		if rec.Accepted() {
			accepted = true
		} else if rec.Failed() {
			errs = append(errs, fmt.Sprintf("%s: %s", rec.DisplayName, rec.SubmitError))
		}
	}
	in.final = true
	in.err = ""
	switch {
	case accepted || n.TotalAccepted > 0:
		in.status = StatusSettled
		in.reason = settledReason(n)
	case len(errs) > 0 && len(errs) == len(recs):
		in.status = StatusFailed
		in.reason = "every session errored: " + strings.Join(errs, "; ")
	default:
		in.status = StatusNotTaken
		in.reason = "no session placed it before the race"
		if len(recs) == 0 {
			in.reason = "no session acted on it by race start (no running bot matched, or the race was not found)"
		}
	}
	r.logf("%s %s: %s", in.status, in.bet.ID, in.reason)
	return nil
}

func settledReason(n *apiclient.Notification) string {
	result := n.Tip.Competition.Result
	p := float64(n.Profit)
	switch {
	case p > 0:
		return fmt.Sprintf("won $%.2f (result %s)", p, result)
	case p < 0:
		return fmt.Sprintf("lost $%.2f (result %s)", -p, result)
	}
	return fmt.Sprintf("returned the stake (result %s)", result)
}
