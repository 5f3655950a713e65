package follow

import (
	"context"
	"slices"

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
