package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/state"
)

// legacyClaim is what the service shows of a legacy journal that is this
// service's: the records it takes, and those it sets aside.
type legacyClaim struct {
	lj   *state.LegacyJournal
	ours *Journal // the records taken, replayed read-only
	kept [][]byte // the records taken, in order
	// aside are the records of the labels set aside, in order, and
	// asideWhy says why, one phrase per label.
	aside    [][]byte
	asideWhy []string
}

// claimLegacy reads the plan's journal from before journals were kept per
// service and says what of it is this service's: claim.ours is the records
// taken, replayed (read-only), nil when none is or there is none. Only the
// service can tell, and it is asked about every bet of the journal (by
// list pages or label look-ups, whichever takes fewer calls), for such a
// journal could mix a real run's bets with a rehearsal's:
//   - a bet it says was created (notification id and label) is taken when
//     the service lists that label under that id (labels are the plan's
//     own, so a bet listed under one is this plan's bet on this service
//     whichever journal wrote it);
//   - a create it left in doubt is taken when its label is listed;
//   - a label the service does not list is set aside (in a file of its
//     own) once its own look-up shows it absent: nothing is followed,
//     counted or reported on the strength of a record the service does
//     not show, and until that look-up the legacy journal still counts
//     whole toward the account's limits;
//   - a label the service lists under another notification than the one
//     the journal names is a contradiction, refused with how to settle it.
//
// A journal that created nothing, left nothing in doubt and published
// nothing has nothing to lose: it is left alone, as is one no bet of which
// the service lists when it created some (a rehearsal's, or another
// service's). Otherwise (a create in doubt that no service lists, or tips
// only: the service lists no tips) it cannot be told, and the command is
// refused with how to say: adopting another service's records, or
// creating or publishing this one's twice, are both worse than a
// question. The lock files cannot tell: every run of this betplan,
// refused ones too, writes the lock of the service it points at.
func (r *journalKeeper) claimLegacy(ctx context.Context) (*legacyClaim, error) {
	ls, ok := r.opts.Store.(state.LegacyStore)
	if !ok || r.opts.Simulated {
		return nil, nil
	}
	lj, err := ls.LegacyJournal(ctx, r.key)
	if err != nil || lj == nil {
		return nil, err
	}
	claim := &legacyClaim{lj: lj}
	old, err := replayRecords(lj.Where, lj.Records, nil)
	if err != nil {
		return nil, err
	}
	var created, pending, labels []string
	states := map[string]labelEntry{}
	for _, e := range old.states() {
		states[e.label] = e
		labels = append(labels, e.label)
		switch {
		case e.created():
			created = append(created, e.label)
		case e.Pending:
			pending = append(pending, e.label)
		}
	}
	if len(created) == 0 && len(pending) == 0 && len(old.pubs.order) == 0 {
		// It created and published nothing: nothing to find or lose (its
		// alerts' outbox, at worst, says something again).
		return claim, nil
	}
	service := state.ServiceIdentity(r.opts.BaseURL)
	listed, err := r.labelsOnService(ctx, labels)
	if err != nil {
		return nil, err
	}
	take := map[string]bool{}
	var proof, missing string
	var asideWhy []string
	for _, label := range labels {
		e := states[label]
		ns := listed[label]
		switch {
		case len(ns) == 0:
			why := "label " + label
			if e.created() {
				why = fmt.Sprintf("notification %d with label %s", e.NotificationID, label)
				if missing == "" {
					missing = why
				}
			}
			asideWhy = append(asideWhy, why)
		case e.created():
			var ids []string
			for _, n := range ns {
				if int64(n.ID) == e.NotificationID {
					ids = nil
					break
				}
				ids = append(ids, fmt.Sprint(n.ID))
			}
			if ids != nil {
				return nil, &ForeignJournalError{Reason: fmt.Sprintf("journal %s, kept by an earlier betplan for every service alike, says bet %s (label %s) is notification %d, but %s lists that label as notification %s: move the journal aside once you know whose it is, then run again",
					lj.Where, e.BetID, label, e.NotificationID, service, strings.Join(ids, ", "))}
			}
			take[label] = true
			if proof == "" {
				proof = fmt.Sprintf("notification %d with label %s is listed by this service", e.NotificationID, label)
			}
		default:
			take[label] = true
			if proof == "" && e.Pending {
				proof = fmt.Sprintf("label %s it left in doubt is listed as notification %d", label, ns[0].ID)
			}
		}
	}
	if proof == "" {
		if len(created) > 0 {
			r.logf("journal %s (kept before journals were per service) is not this service's: %s is not listed by %s (a rehearsal's, or another service's); this run keeps a journal of its own and leaves it alone",
				lj.Where, missing, service)
			return claim, nil
		}
		return nil, &UnattributedJournalError{Path: lj.Where, Service: service, Suggested: lj.Suggested}
	}
	r.logf("journal %s (kept before journals were per service): %s, so it is this service's", lj.Where, proof)
	for i, b := range lj.Records {
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, &state.BadJournalError{Path: lj.Where, Line: i + 1, Reason: fmt.Sprintf("record %d does not read (%v)", i+1, err)}
		}
		if e.Label != "" && !take[e.Label] {
			claim.aside = append(claim.aside, b)
			continue
		}
		claim.kept = append(claim.kept, b)
	}
	claim.asideWhy = asideWhy
	if claim.ours, err = replayRecords(lj.Where, claim.kept, nil); err != nil {
		return nil, err
	}
	return claim, nil
}

// labelsOnService is what the service lists under each label: read from
// the whole notification list when it has fewer pages than there are
// labels, else by a look-up per label. A label the list does not show is
// looked up on its own too: only a look-up sets a record aside.
func (r *journalKeeper) labelsOnService(ctx context.Context, labels []string) (map[string][]apiclient.Notification, error) {
	out := make(map[string][]apiclient.Notification, len(labels))
	todo := labels
	if listed, ok, err := r.listLabels(ctx, labels); err != nil {
		return nil, err
	} else if ok {
		todo = nil
		for _, l := range labels {
			if ns := listed[l]; len(ns) > 0 {
				out[l] = ns
			} else {
				todo = append(todo, l)
			}
		}
	}
	for _, l := range todo {
		ns, err := r.svc.NotificationsByLabel(ctx, l)
		if err != nil {
			return nil, fmt.Errorf("find out what of the plan's old journal is this service's: look up label %s: %w", l, err)
		}
		for _, n := range ns {
			if n.Label == l {
				out[l] = append(out[l], n)
			}
		}
	}
	return out, nil
}

// listLabels reads the whole notification list for labels when it takes
// fewer pages than there are labels; ok is false when it did not (the
// list is longer, or ends past maxScanPages).
func (r *journalKeeper) listLabels(ctx context.Context, labels []string) (map[string][]apiclient.Notification, bool, error) {
	if len(labels) < 2 {
		return nil, false, nil
	}
	want := make(map[string]bool, len(labels))
	for _, l := range labels {
		want[l] = true
	}
	seen := map[string][]apiclient.Notification{}
	firstIDs := map[int64]bool{}
	for page := 1; page < len(labels) && page <= maxScanPages; page++ {
		p, err := r.listPage(ctx, page)
		if err != nil {
			return nil, false, fmt.Errorf("find out what of the plan's old journal is this service's: list notifications page %d: %w", page, err)
		}
		// An out-of-range page comes back as page 1: the list ended.
		if len(p.Results) == 0 || firstIDs[int64(p.Results[0].ID)] {
			return seen, true, nil
		}
		firstIDs[int64(p.Results[0].ID)] = true
		for _, n := range p.Results {
			if want[n.Label] {
				seen[n.Label] = append(seen[n.Label], n)
			}
		}
		if p.Next == nil {
			return seen, true, nil
		}
		if page == 1 && int(p.TotalPages) >= len(labels) {
			return nil, false, nil
		}
	}
	return nil, false, nil
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
