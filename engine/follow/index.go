package follow

import "github.com/betplan/betplan/apiclient"

// Index remembers where the plan's notifications stood in the service's
// list (GET /notification/, newest first) when a page last showed them,
// so a poll can read the one page that holds a due bet instead of every
// page above it. The list only grows at its head, so a notification's
// position moves down by one for every notification created after it:
// the index keeps the list's length as last known (the envelope's count,
// plus the run's own creates since) and, per notification, its position
// and that length when it was seen. A prediction is checked against the
// page it reads; one that missed is looked for again on the page the
// fresh figures point to, then by label.
type Index struct {
	total int // the list's length as last known
	at    map[int64]listPos
}

type listPos struct{ pos, total int }

// Created notes a notification the run just created: the head of the list.
func (x *Index) Created(id int64) {
	if x.at == nil {
		x.at = map[int64]listPos{}
	}
	x.total++
	x.at[id] = listPos{pos: 0, total: x.total}
}

// Page predicts the page (1-based, PageSize a page) holding id.
func (x *Index) Page(id int64) (int, bool) {
	p, ok := x.at[id]
	if !ok {
		return 0, false
	}
	return (p.pos+x.total-p.total)/PageSize + 1, true
}

// saw records what page number n of the list showed, remembering the
// plan's ids (ours).
func (x *Index) saw(n int, p *apiclient.Page[apiclient.Notification], ours Ours) {
	if len(p.Results) == 0 {
		return
	}
	if x.at == nil {
		x.at = map[int64]listPos{}
	}
	first := (n - 1) * PageSize
	// count is never below 1 and may be absent: what the page shows is a
	// floor on the length.
	x.total = max(int(p.Count), first+len(p.Results))
	for i := range p.Results {
		if id := int64(p.Results[i].ID); ours[id] {
			x.at[id] = listPos{pos: first + i, total: x.total}
		}
	}
}
