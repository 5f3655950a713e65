package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/betplan/betplan/apiclient"
)

// listPageSize is the page size of every list read: the most the service
// gives in one call.
const listPageSize = 100

// listIndex remembers where the plan's notifications stood in the
// service's list (GET /notification/, newest first) when a page last
// showed them, so a poll can read the one page that holds a due bet
// instead of every page above it. The list only grows at its head, so a
// notification's position moves down by one for every notification
// created after it: the index keeps the list's length as last known (the
// envelope's count, plus the run's own creates since) and, per
// notification, its position and that length when it was seen. A
// prediction is checked against the page it reads; one that missed is
// looked for again on the page the fresh figures point to, then by label.
type listIndex struct {
	total int // the list's length as last known
	at    map[int64]listPos
}

type listPos struct{ pos, total int }

// created notes a notification the run just created: the head of the list.
func (x *listIndex) created(id int64) {
	if x.at == nil {
		x.at = map[int64]listPos{}
	}
	x.total++
	x.at[id] = listPos{pos: 0, total: x.total}
}

// page predicts the page (1-based, listPageSize a page) holding id.
func (x *listIndex) page(id int64) (int, bool) {
	p, ok := x.at[id]
	if !ok {
		return 0, false
	}
	return (p.pos+x.total-p.total)/listPageSize + 1, true
}

// saw records what page number n of the list showed. keep says which
// ids are worth remembering (the plan's).
func (x *listIndex) saw(n int, p *apiclient.Page[apiclient.Notification], keep func(int64) bool) {
	if len(p.Results) == 0 {
		return
	}
	if x.at == nil {
		x.at = map[int64]listPos{}
	}
	first := (n - 1) * listPageSize
	// count is never below 1 and may be absent: what the page shows is a
	// floor on the length.
	x.total = max(int(p.Count), first+len(p.Results))
	for i := range p.Results {
		if id := int64(p.Results[i].ID); keep(id) {
			x.at[id] = listPos{pos: first + i, total: x.total}
		}
	}
}

// listPage reads page n of the service's notifications (newest first)
// and notes where the plan's notifications (ours, built when nil) stand in
// it. A page past the end comes back as page 1 (the service's rule): that
// is reported as no page at all.
func (f *follower) listPage(ctx context.Context, n int, ours map[int64]*instance) (*apiclient.Page[apiclient.Notification], error) {
	p, err := f.svc.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: n, PageSize: listPageSize})
	if err != nil {
		return nil, err
	}
	if n > 1 && p.Previous == nil {
		return &apiclient.Page[apiclient.Notification]{Count: p.Count}, nil
	}
	if ours == nil {
		ours = f.book.notifications()
	}
	f.list.saw(n, p, func(id int64) bool { return ours[id] != nil })
	return p, nil
}

// readPages reads the pages the index predicts for open and hands every
// open notification of the plan they show to seen (due or not: a page
// read is a poll of all it shows). It reports the instances of open it
// did not find. A missed prediction is tried once more on the page the
// fresh figures point to.
func (f *follower) readPages(ctx context.Context, open []*instance, seen map[int64]*apiclient.Notification) ([]*instance, error) {
	read := map[int]bool{}
	todo := slices.Clone(open)
	ours := f.book.notifications()
	// A few bets no page has shown yet (known from the journal,
	// recovered) are looked for on the newest page first rather than by
	// label: found there, their place is known from then on. Many are
	// found by reading the list from its head (fetch's scanFor).
	unknown := 0
	for _, in := range todo {
		if _, ok := f.list.page(in.notifID); !ok {
			unknown++
		}
	}
	for round := range 2 {
		// Even for one notification a page is worth its bytes: it polls
		// the hundred around it.
		pages := map[int]bool{}
		for _, in := range todo {
			n, ok := f.list.page(in.notifID)
			if !ok && round == 0 && unknown <= labelLookupMax {
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
			p, err := f.listPage(ctx, n, ours)
			read[n] = true
			if err != nil {
				return nil, err
			}
			for i := range p.Results {
				if id := int64(p.Results[i].ID); ours[id] != nil {
					seen[id] = &p.Results[i]
				}
			}
		}
		todo = slices.DeleteFunc(todo, func(in *instance) bool { return seen[in.notifID] != nil })
	}
	return todo, nil
}
