package follow

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/betplan/betplan/apiclient"
)

// ListPage reads page n of the service's notifications (newest first)
// and notes where the plan's notifications (ours) stand in it. A page
// past the end comes back as page 1 (the service's rule): that is
// reported as no page at all.
func (r *Reader) ListPage(ctx context.Context, n int, ours Ours) (*apiclient.Page[apiclient.Notification], error) {
	p, err := r.Svc.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: n, PageSize: PageSize})
	if err != nil {
		return nil, err
	}
	if n > 1 && p.Previous == nil {
		return &apiclient.Page[apiclient.Notification]{Count: p.Count}, nil
	}
	r.Index.saw(n, p, ours)
	return p, nil
}

// EachPage pages through GET /notification/ (100 a page, newest first)
// and hands each page to fn until fn returns false, the list ends, or
// MaxScanPages were read. The service answers an out-of-range page with
// page 1, so a page whose first id came round already ends the scan. On
// an error it says which page failed.
func (r *Reader) EachPage(ctx context.Context, ours Ours, fn func(page []apiclient.Notification) (more bool)) (failed int, err error) {
	firstIDs := map[int64]bool{}
	for page := 1; page <= MaxScanPages; page++ {
		p, err := r.ListPage(ctx, page, ours)
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

// Labelled lists the service's notifications whose label keep takes,
// oldest id kept per label, in the order the list first shows each.
func (r *Reader) Labelled(ctx context.Context, ours Ours, keep func(label string) bool) ([]apiclient.Notification, error) {
	byLabel := map[string]apiclient.Notification{}
	var order []string
	_, err := r.EachPage(ctx, ours, func(page []apiclient.Notification) bool {
		for _, n := range page {
			if !keep(n.Label) {
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
func (r *Reader) scanFor(ctx context.Context, open []int64, ours Ours, seen map[int64]*apiclient.Notification) error {
	want := map[int64]bool{}
	minID := open[0]
	for _, id := range open {
		want[id] = true
		minID = min(minID, id)
	}
	failed, err := r.EachPage(ctx, ours, func(page []apiclient.Notification) bool {
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

// ReadPages reads the pages the index predicts for open and hands every
// notification of the plan (ours) they show to seen (due or not: a page
// read is a poll of all it shows). It reports the ids of open it did not
// find. A missed prediction is tried once more on the page the fresh
// figures point to.
func (r *Reader) ReadPages(ctx context.Context, open []int64, ours Ours, seen map[int64]*apiclient.Notification) ([]int64, error) {
	read := map[int]bool{}
	todo := slices.Clone(open)
	// A few bets no page has shown yet (known from the journal,
	// recovered) are looked for on the newest page first rather than by
	// label: found there, their place is known from then on. Many are
	// found by reading the list from its head (Poll's scanFor).
	unknown := 0
	for _, id := range todo {
		if _, ok := r.Index.Page(id); !ok {
			unknown++
		}
	}
	for round := range 2 {
		// Even for one notification a page is worth its bytes: it polls
		// the hundred around it.
		pages := map[int]bool{}
		for _, id := range todo {
			n, ok := r.Index.Page(id)
			if !ok && round == 0 && unknown <= LabelLookupMax {
				n, ok = 1, true
			}
			if ok && !read[n] {
				pages[n] = true
			}
		}
		if len(pages) == 0 {
			break
		}
		for _, n := range slices.Sorted(maps.Keys(pages)) {
			p, err := r.ListPage(ctx, n, ours)
			read[n] = true
			if err != nil {
				return nil, err
			}
			for i := range p.Results {
				if id := int64(p.Results[i].ID); ours[id] {
					seen[id] = &p.Results[i]
				}
			}
		}
		todo = slices.DeleteFunc(todo, func(id int64) bool { return seen[id] != nil })
	}
	return todo, nil
}
