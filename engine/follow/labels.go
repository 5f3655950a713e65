package follow

import (
	"context"
	"fmt"

	"github.com/betplan/betplan/apiclient"
)

// CheckLabels settles, in one list read, whether labels (of the bets
// about to be created this tick) exist on the service: a burst costs a
// page per 100 of the account's notifications instead of a look-up per
// label. The read counts only when it reached the end of the list (every
// notification the account has was seen) within fewer pages than the
// look-ups it replaces; it then gives the notifications carrying each
// label (nil for none). Otherwise it gives nil, and each label is looked
// up on its own. Its error ends the command (Reader.Ends); any other
// failure is logged and gives nil.
func (r *Reader) CheckLabels(ctx context.Context, labels []string, ours Ours) (map[string][]apiclient.Notification, error) {
	if len(labels) < 2 {
		return nil, nil
	}
	seen := map[string][]apiclient.Notification{}
	want := map[string]bool{}
	for _, l := range labels {
		want[l] = true
	}
	firstIDs := map[int64]bool{}
	for page := 1; page < len(labels) && page <= MaxScanPages; page++ {
		p, err := r.ListPage(ctx, page, ours)
		if err != nil {
			if r.Ends != nil {
				if end := r.Ends(err); end != nil {
					return nil, end
				}
			}
			r.logf("label check of %s: list page %d: %v; looking each label up", bets(len(labels)), page, err)
			return nil, nil
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
				r.logf("label check of %s: the account lists %d pages of notifications; looking each label up", bets(len(labels)), p.TotalPages)
				return nil, nil
			}
		}
		if complete {
			found := make(map[string][]apiclient.Notification, len(labels))
			for _, l := range labels {
				found[l] = seen[l] // nil: no notification carries it
			}
			return found, nil
		}
	}
	return nil, nil
}

func bets(n int) string {
	if n == 1 {
		return "1 bet"
	}
	return fmt.Sprintf("%d bets", n)
}
