package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/betplan/betplan/engine/state"
	"github.com/betplan/betplan/engine/state/local"
)

// A journal belongs to one service and one account on it: its init entry
// names them, and a run against another refuses it rather than apply,
// count or report another service's bets. A journal an earlier betplan
// kept per plan, whatever the service, names neither: it is moved into a
// service's journal only once the service shows it knows the journal's
// bets (claimLegacy), so a rehearsal's journal never leaks into a real
// run and a real journal is still found after an upgrade.

// journalOwner is whose journal it is: the service's identity and a hash
// of the account on it ("" when unknown).
type journalOwner struct{ service, account string }

// owner is this run's service and account.
func (r *tracker) owner() journalOwner {
	o := journalOwner{account: accountKey(r.opts.ServiceAccount)}
	switch {
	case r.opts.Simulated:
		o.service = local.RehearsalService // a new port every time
	case r.opts.BaseURL != "":
		o.service = ServiceIdentity(r.opts.BaseURL)
	}
	return o
}

// accountKey names an account in a journal without showing who it is.
func accountKey(name string) string {
	if name == "" {
		return ""
	}
	h := sha256.Sum256([]byte("betplan account\x00" + name))
	return hex.EncodeToString(h[:])[:16]
}

// othersJournal says why a journal is not this run's: kept for another
// service, or another account on it; "" when it is (or does not say).
func (o journalOwner) othersJournal(j *Journal) string {
	switch {
	case j.service != "" && o.service != "" && j.service != o.service:
		return fmt.Sprintf("it was kept for the service at %s, not %s", j.service, o.service)
	case j.account != "" && o.account != "" && j.account != o.account:
		return "it was kept for another account on " + o.service + " than the one this token (or login) names"
	}
	return ""
}

// checkOwner refuses a journal kept for another service or account.
func (r *tracker) checkOwner(where string, j *Journal) error {
	if why := r.owner().othersJournal(j); why != "" {
		return &ForeignJournalError{Reason: fmt.Sprintf("the journal of plan %s in %s is not this run's: %s; give each account a state dir of its own (--state-dir)", r.plan.Name, where, why)}
	}
	return nil
}

// ForeignJournalError is a journal kept for another service or account:
// nothing of it is applied, counted or reported, and the reports stay as
// they were.
type ForeignJournalError struct{ Reason string }

// Refused says nothing was sent to create.
func (e *ForeignJournalError) Refused() bool { return true }

func (e *ForeignJournalError) Error() string { return "refused: " + e.Reason }

// openJournal replays the journal the lease holds, open for writing. A
// new journal takes over the plan's legacy journal when it is this
// service's (claimLegacy), else begins with its init entry naming the
// service and account.
func (r *tracker) openJournal(ctx context.Context, lease Lease) (*Journal, error) {
	where := r.opts.Store.String()
	j, err := replayRecords(where, lease.Records(), lease)
	if err != nil {
		return nil, err
	}
	j.repaired = lease.Repaired()
	if j.fresh {
		lj, ours, err := r.claimLegacy(ctx)
		if err != nil {
			return nil, err
		}
		if ours != nil {
			if err := r.takeOver(ctx, j, lj, ours); err != nil {
				return nil, err
			}
		}
	}
	if err := j.begin(lease.Earlier(), r.owner()); err != nil {
		return nil, err
	}
	return j, r.checkOwner(where, j)
}

// readJournal replays the plan's journal without its lock (status, plan):
// the legacy journal when it is this service's and no journal of the
// service was begun yet.
func (r *tracker) readJournal(ctx context.Context) (*Journal, error) {
	j, err := ReadPlanJournal(ctx, r.opts.Store, r.planKey())
	if err != nil {
		return nil, err
	}
	if j.fresh {
		_, ours, err := r.claimLegacy(ctx)
		if err != nil {
			return nil, err
		}
		if ours != nil {
			j = ours
		}
	}
	return j, r.checkOwner(r.opts.Store.String(), j)
}

// takeOver copies the legacy journal's entries into the service's new
// journal, in order and with their lineage (a saved plan still matches),
// then names the service and account, then retires the legacy file. A
// crash in between leaves the new journal with whatever was copied: the
// legacy file is only read again while no journal of the service exists.
func (r *tracker) takeOver(ctx context.Context, j *Journal, lj *state.LegacyJournal, old *Journal) error {
	j.lineage = old.lineage
	for i, b := range lj.Records {
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return &BadJournalError{Path: lj.Where, Line: i + 1, Reason: fmt.Sprintf("record %d does not read (%v)", i+1, err)}
		}
		if err := j.append(e); err != nil {
			return err
		}
	}
	if j.lineage == "" {
		return nil // nothing with a lineage: begin starts it
	}
	o := r.owner()
	if err := j.append(journalEntry{Op: opService, Service: o.service, Account: o.account, Error: "moved from " + lj.Where}); err != nil {
		return err
	}
	j.fresh = false
	if err := r.opts.Store.(state.LegacyStore).RetireLegacy(ctx, r.planKey(), lj); err != nil {
		r.logf("journal %s copied into %s, this service's journal, but not renamed: %v", lj.Where, lj.Suggested, err)
		return nil
	}
	r.logf("journal %s moved into %s, this service's journal", lj.Where, lj.Suggested)
	return nil
}
