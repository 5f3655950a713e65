package sim

import (
	"container/heap"
	"time"
)

// The indexes keep every request's cost independent of how many
// notifications and bet records are stored: lookups by id, by user and by
// (user, label) are map reads, lists are slices in creation order that a
// page reads from the end, and the world step pops only the events due
// from a queue ordered by time.

type labelKey struct {
	user  int
	label string
}

// addNotification stores a new notification and indexes it. Its user,
// id and label never change.
func (s *Service) addNotification(n *notification) {
	s.notifications = append(s.notifications, n)
	s.byID[n.ID] = n
	s.byUser[n.UserID] = append(s.byUser[n.UserID], n)
	k := labelKey{n.UserID, n.Label}
	s.byLabel[k] = append(s.byLabel[k], n)
	s.labelCount[n.Label]++
	if at := n.resultAt(); !at.IsZero() {
		s.schedule(event{at: at, settle: true, n: n})
	}
}

func (s *Service) addRecord(n *notification, r *betRecord) {
	n.records = append(n.records, r)
	s.recsByUser[n.UserID] = append(s.recsByUser[n.UserID], r)
}

// event is a change of state due at a time: the bots taking a
// notification up, or its race being resulted.
type event struct {
	at     time.Time
	settle bool
	void   bool // a settle that voids the bet (a scratched selection)
	n      *notification
}

// eventQueue is a min-heap of events: by time, take-ups before resultings
// at the same instant, then by notification id.
type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	if q[i].settle != q[j].settle {
		return !q[i].settle
	}
	return q[i].n.ID < q[j].n.ID
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = event{}
	*q = old[:len(old)-1]
	return e
}

func (s *Service) schedule(e event) { heap.Push(&s.due, e) }

// newestFirst returns item i of list read newest first.
func newestFirst[T any](list []T, i int) T { return list[len(list)-1-i] }
