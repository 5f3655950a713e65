package follow

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
)

// listService is an account's notification list, newest first, as GET
// /notification/ pages it: ids ascending in order of creation.
type listService struct {
	Service // only ListNotifications is called
	ids     []int64
	pages   []int // the pages read, in order
}

func (s *listService) add(n int) {
	for range n {
		s.ids = append(s.ids, int64(len(s.ids)+1))
	}
}

func (s *listService) ListNotifications(_ context.Context, o apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	s.pages = append(s.pages, o.Page)
	total := len(s.ids)
	p := &apiclient.Page[apiclient.Notification]{Count: apiclient.Int(max(total, 1))}
	first := (o.Page - 1) * o.PageSize
	if first >= total {
		first, o.Page = 0, 1 // out of range: page 1, as the service answers
	}
	if o.Page > 1 {
		prev := "previous"
		p.Previous = &prev
	}
	for i := first; i < min(first+o.PageSize, total); i++ {
		p.Results = append(p.Results, apiclient.Notification{ID: apiclient.Int(s.ids[total-1-i])})
	}
	return p, nil
}

// The plan's notifications are ids 1 to 300 (its own creates); the punter
// then adds 150 by hand. The first poll of ids 1 to 10 reads the page its
// figures point to (page 3), which is off by the 150 it could not know of;
// that page's count says so, and the page it points to then (page 5) holds
// them. A page past the end is no page, not page 1 again.
func TestListIndexFollowsTheGrowingList(t *testing.T) {
	t.Parallel()
	svc := &listService{}
	r := &Reader{Svc: svc}
	ours := Ours{}
	var open []int64
	for id := int64(1); id <= 300; id++ {
		svc.add(1)
		ours[id] = true
		r.Index.Created(id)
		if id <= 10 {
			open = append(open, id)
		}
	}
	n, ok := r.Index.Page(1)
	require.True(t, ok)
	assert.Equal(t, 3, n, "the oldest of 300 is on the third page")
	n, _ = r.Index.Page(300)
	assert.Equal(t, 1, n)
	_, ok = r.Index.Page(999)
	assert.False(t, ok, "an id never seen has no place")

	svc.add(150)
	seen := map[int64]*apiclient.Notification{}
	rest, err := r.ReadPages(context.Background(), open, ours, seen)
	require.NoError(t, err)
	assert.Empty(t, rest)
	assert.Equal(t, []int{3, 5}, svc.pages, "a miss, then the page the count points to")
	for id := int64(1); id <= 10; id++ {
		assert.NotNil(t, seen[id], "id %d", id)
	}
	// What the two pages showed is polled too: ids 1 to 50 (page 5) and
	// 51 to 150 (page 3 after the shift).
	assert.Len(t, seen, 150)
	n, _ = r.Index.Page(280)
	assert.Equal(t, 2, n, "an id no page showed since moves down with the count: 170 newer")

	svc.pages = nil
	p, err := r.ListPage(context.Background(), 6, ours)
	require.NoError(t, err)
	assert.Empty(t, p.Results, "past the end")
	assert.Equal(t, []int{6}, svc.pages)
}
