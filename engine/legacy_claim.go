package engine

import (
	"context"
	"fmt"

	"github.com/betplan/betplan/engine/state"
)

// legacyLookups bounds the labels looked up to attribute a legacy journal:
// one listed is proof enough, a few missing are too.
const legacyLookups = 5

// claimLegacy reads the plan's journal from before journals were kept per
// service and says whether it is this service's: ours is it replayed
// (read-only) when it is, nil when it is not or there is none. Only the
// service can tell:
//   - a bet it says was created (notification id and label) is listed by
//     this service under that id: ours (labels are the plan's own, so a
//     bet listed under one is this plan's bet on this service whichever
//     journal wrote it); none of the few looked up is: not ours (a
//     rehearsal's, or another service's);
//   - a create it left in doubt is listed by label: ours.
//
// A journal that created nothing, left nothing in doubt and published
// nothing has nothing to lose: it is left alone. Otherwise (a create in
// doubt that no service lists, or tips only: the service lists no tips) it cannot be
// told, and the command is refused with how to say: adopting another
// service's records, or creating or publishing this one's twice, are both
// worse than a question. The lock files cannot tell: every run of this
// betplan, refused ones too, writes the lock of the service it points at.
func (r *tracker) claimLegacy(ctx context.Context) (*state.LegacyJournal, *Journal, error) {
	ls, ok := r.opts.Store.(state.LegacyStore)
	if !ok || r.opts.Simulated {
		return nil, nil, nil
	}
	lj, err := ls.LegacyJournal(ctx, r.planKey())
	if err != nil || lj == nil {
		return nil, nil, err
	}
	old, err := replayRecords(lj.Where, lj.Records, nil)
	if err != nil {
		return nil, nil, err
	}
	var created, pending []labelEntry
	for _, e := range old.states() {
		switch {
		case e.created():
			created = append(created, e)
		case e.Pending:
			pending = append(pending, e)
		}
	}
	if len(created) == 0 && len(pending) == 0 && len(old.pubKeys) == 0 {
		// It created and published nothing: nothing to find or lose (its
		// alerts' outbox, at worst, says something again).
		return lj, nil, nil
	}
	service := ServiceIdentity(r.opts.BaseURL)
	if len(created) > 0 {
		listed, missing, err := r.lookUpLegacy(ctx, last(created, legacyLookups), true)
		if err != nil {
			return nil, nil, err
		}
		if listed != "" {
			r.logf("journal %s (kept before journals were per service): %s, so it is this service's", lj.Where, listed)
			return lj, old, nil
		}
		r.logf("journal %s (kept before journals were per service) is not this service's: %s is not listed by %s (a rehearsal's, or another service's); this run keeps a journal of its own and leaves it alone",
			lj.Where, missing, service)
		return lj, nil, nil
	}
	if len(pending) > 0 {
		listed, _, err := r.lookUpLegacy(ctx, last(pending, legacyLookups), false)
		if err != nil {
			return nil, nil, err
		}
		if listed != "" {
			r.logf("journal %s (kept before journals were per service): %s, so it is this service's", lj.Where, listed)
			return lj, old, nil
		}
	}
	return nil, nil, &UnattributedJournalError{Path: lj.Where, Service: service, Suggested: lj.Suggested}
}

// UnattributedJournalError is a journal from before journals were kept
// per service that nothing shows to be this service's or another's:
// nothing was created, and the reports stay as they were.
type UnattributedJournalError struct {
	Path      string
	Service   string
	Suggested string // where it goes if it is this service's
}

// Refused says nothing was sent to create.
func (e *UnattributedJournalError) Refused() bool { return true }

func (e *UnattributedJournalError) Error() string {
	return fmt.Sprintf("refused: journal %s was kept by an earlier betplan for every service alike, and nothing shows whether it was %s's: if it was, rename it to %s; if it was a rehearsal's, delete it; then run again",
		e.Path, e.Service, e.Suggested)
}

// lookUpLegacy looks labels up on the service: listed says how one was
// found ("" when none was), missing names one that was not. byID needs
// the notification the journal names, not just its label.
func (r *tracker) lookUpLegacy(ctx context.Context, entries []labelEntry, byID bool) (listed, missing string, err error) {
	for _, e := range entries {
		ns, err := r.svc.NotificationsByLabel(ctx, e.label)
		if err != nil {
			return "", "", fmt.Errorf("find out whose journal the plan's old journal is: look up label %s: %w", e.label, err)
		}
		for _, n := range ns {
			if n.Label != e.label {
				continue
			}
			if !byID {
				return fmt.Sprintf("label %s it left in doubt is listed as notification %d", e.label, n.ID), "", nil
			}
			if int64(n.ID) == e.NotificationID {
				return fmt.Sprintf("notification %d with label %s is listed by this service", n.ID, e.label), "", nil
			}
		}
		if missing == "" {
			missing = fmt.Sprintf("notification %d with label %s", e.NotificationID, e.label)
		}
	}
	return "", missing, nil
}

// last is the last n of s.
func last[T any](s []T, n int) []T {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
