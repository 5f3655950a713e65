package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/betplan/betplan/state"
)

// A journal belongs to one service and one account on it: its init entry
// names them, and a run against another refuses it rather than apply,
// count or report another service's bets. A journal an earlier betplan
// kept per plan, whatever the service, names neither: it is moved into a
// service's journal only once the service shows it knows the journal's
// bets (claimLegacy), so a rehearsal's journal never leaks into a real
// run and a real journal is still found after an upgrade.

// openJournal replays the journal the lease holds, open for writing. A
// new journal takes over the plan's legacy journal when it is this
// service's (claimLegacy), else begins with its init entry naming the
// service and account.
func (r *journalKeeper) openJournal(ctx context.Context, lease state.Lease) (*Journal, error) {
	where := r.opts.Store.String()
	j, err := replayRecords(where, lease.Records(), lease)
	if err != nil {
		return nil, err
	}
	j.repaired = lease.Repaired()
	switch {
	case j.fresh:
		claim, err := r.claimLegacy(ctx)
		if err != nil {
			return nil, err
		}
		if claim != nil && claim.ours != nil {
			if err := r.setAside(ctx, claim); err != nil {
				return nil, err
			}
			if err := r.takeOver(ctx, j, claim.lj, claim.kept, claim.ours.lineage, 0); err != nil {
				return nil, err
			}
		}
	case j.service == "":
		if err := r.resumeTakeOver(ctx, j); err != nil {
			return nil, err
		}
	}
	if err := j.begin(lease.Earlier(), r.owner()); err != nil {
		return nil, err
	}
	if err := r.checkOwner(where, j); err != nil {
		return j, err
	}
	return j, r.reconcileIntents(j, lease)
}

// reconcileIntents has j note its sends in this host's intent file, when
// the lease's store keeps one, and records again each send the file shows
// that j does not know (intent.go).
func (r *journalKeeper) reconcileIntents(j *Journal, lease state.Lease) error {
	keeper, ok := lease.(state.IntentKeeper)
	if !ok || keeper.Intents() == nil {
		return nil
	}
	j.useIntents(keeper.Intents())
	lost, err := j.reconcileIntents()
	if err != nil {
		return fmt.Errorf("this host's intent file of the plan: %w", err)
	}
	for _, line := range lost {
		r.logf("%s", line)
	}
	return nil
}

// readJournal replays the plan's journal without its lock (status, plan):
// the legacy journal when it is this service's and no journal of the
// service was begun yet.
func (r *journalKeeper) readJournal(ctx context.Context) (*Journal, error) {
	j, err := ReadPlanJournal(ctx, r.opts.Store, r.key)
	if err != nil {
		return nil, err
	}
	if j.fresh {
		claim, err := r.claimLegacy(ctx)
		if err != nil {
			return nil, err
		}
		if claim != nil && claim.ours != nil {
			j = claim.ours
		}
	}
	return j, r.checkOwner(r.opts.Store.String(), j)
}

// takeOver copies the legacy journal's entries, from the one at index
// from, into the service's new journal, in order and with their lineage
// (a saved plan still matches), then names the service and account, then
// retires the legacy file. A crash in between leaves the new journal with
// the legacy's lineage and no service named: the next run resumes the
// copy (resumeTakeOver).
func (r *journalKeeper) takeOver(ctx context.Context, j *Journal, lj *state.LegacyJournal, records [][]byte, lineage string, from int) error {
	j.lineage = lineage
	for i := from; i < len(records); i++ {
		b := records[i]
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return &state.BadJournalError{Path: lj.Where, Line: i + 1, Reason: fmt.Sprintf("record %d does not read (%v)", i+1, err)}
		}
		if err := j.append(e); err != nil {
			return err
		}
	}
	if j.lineage == "" {
		return nil // nothing with a lineage: begin starts it
	}
	o := r.owner()
	if err := j.append(journalEntry{Op: opService, Service: o.service, Account: o.account, AccountName: o.name, Error: "moved from " + lj.Where}); err != nil {
		return err
	}
	j.fresh = false
	if err := r.opts.Store.(state.LegacyStore).RetireLegacy(ctx, r.key, lj); err != nil {
		r.logf("journal %s copied into %s, this service's journal, but not renamed: %v", lj.Where, lj.Suggested, err)
		return nil
	}
	r.logf("journal %s moved into %s, this service's journal", lj.Where, lj.Suggested)
	return nil
}

// resumeTakeOver finishes a take-over a crash cut short: a journal that
// names no service, whose entries are the first ones of the legacy
// journal of the same lineage, gets the rest of them. A journal begun by
// this betplan names its service in its init entry, so this reads the
// legacy journal only after such a crash (or for a store's journal begun
// before journals named their service, which has no legacy one).
func (r *journalKeeper) resumeTakeOver(ctx context.Context, j *Journal) error {
	ls, ok := r.opts.Store.(state.LegacyStore)
	if !ok || r.opts.Simulated || j.lineage == "" {
		return nil
	}
	lj, err := ls.LegacyJournal(ctx, r.key)
	if err != nil || lj == nil {
		return err
	}
	old, err := replayRecords(lj.Where, lj.Records, nil)
	if err != nil {
		return err
	}
	kept := keptRecords(lj)
	copied := int(j.Serial())
	if old.lineage != j.lineage || copied > len(kept) {
		return nil
	}
	r.logf("journal %s: resuming its move into %s, cut short after %d of its %d records", lj.Where, lj.Suggested, copied, len(kept))
	return r.takeOver(ctx, j, lj, kept, j.lineage, copied)
}

// keptRecords are the records of a legacy journal its move takes: all but
// those of the labels it set aside.
func keptRecords(lj *state.LegacyJournal) [][]byte {
	aside := map[string]bool{}
	for _, b := range lj.SetAside {
		var e journalEntry
		if json.Unmarshal(b, &e) == nil && e.Label != "" {
			aside[e.Label] = true
		}
	}
	var kept [][]byte
	for _, b := range lj.Records {
		var e journalEntry
		if json.Unmarshal(b, &e) == nil && aside[e.Label] {
			continue
		}
		kept = append(kept, b)
	}
	return kept
}

// setAside keeps the records of the labels the service does not list in
// a file of their own, before any record is moved, and names it in one
// line.
func (r *journalKeeper) setAside(ctx context.Context, c *legacyClaim) error {
	if len(c.aside) == 0 {
		return nil
	}
	where, err := r.opts.Store.(state.LegacyStore).SetAside(ctx, r.key, c.lj, c.aside)
	if err != nil {
		return err
	}
	r.logf("journal %s (kept before journals were per service): %s not listed by %s (a rehearsal's, or another service's): set aside in %s, neither followed nor counted",
		c.lj.Where, strings.Join(c.asideWhy, ", "), state.ServiceIdentity(r.opts.BaseURL), where)
	return nil
}
