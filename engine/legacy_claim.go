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
// (read-only) when it is, nil when it is not or there is none. The
// evidence, strongest first:
//   - a bet it says was created (notification id and label) is listed by
//     this service under that id: ours; none of the few looked up is: not
//     ours (a rehearsal's, or another service's);
//   - a create it left in doubt is listed by label: ours;
//   - with nothing on the service either way, the lock files: this host
//     ran the plan against this service and no other (ours), or against
//     others and never this one (not ours).
//
// Otherwise it cannot be told, and the run is refused with how to say:
// adopting another service's bets, or creating this one's twice, are both
// worse than a question. A journal that created nothing and published
// nothing has nothing to lose: it is left alone.
//
// lease is the lock just taken (its Earlier says whether this host ran the
// plan against this service), nil for a command that takes none.
func (r *tracker) claimLegacy(ctx context.Context, lease Lease) (*state.LegacyJournal, *Journal, error) {
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
	if lease != nil {
		lj.RanHere = lease.Earlier().PID != 0
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
	if len(created) == 0 && len(pending) == 0 && len(old.pubKeys) == 0 && len(old.alerts.order) == 0 {
		return lj, nil, nil // it created nothing: nothing to find or lose
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
	switch {
	case lj.RanHere && !lj.OtherServices:
		r.logf("journal %s (kept before journals were per service): this host ran plan %s against %s and no other service, so it is this service's", lj.Where, r.plan.Name, service)
		return lj, old, nil
	case !lj.RanHere && lj.OtherServices:
		r.logf("journal %s (kept before journals were per service) is not this service's: this host ran plan %s against another service, never %s; this run keeps a journal of its own and leaves it alone", lj.Where, r.plan.Name, service)
		return lj, nil, nil
	}
	return nil, nil, &RefusedError{Reason: fmt.Sprintf("journal %s was kept by an earlier betplan for every service alike, and nothing shows whether it was %s's: if it was, rename it to %s; if it was a rehearsal's, delete it; then run again",
		lj.Where, service, lj.Suggested)}
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
