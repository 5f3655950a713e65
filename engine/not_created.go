package engine

import "github.com/betplan/betplan/reason"

// A run keeps in its journal why each bet it decided not to create was not
// created (opNotCreated), so `betplan explain` tells it afterwards from the
// journal alone: the reason, and for a limit the sums it saw then. Bets
// with a create of their own are told by their creating, failed and absent
// entries; a missed window by its own entry.

// keepsNotCreated reports whether a bet not created for code is kept by a
// not_created entry.
func keepsNotCreated(code reason.Code) bool {
	switch code {
	case "", reason.InDoubt, reason.CreateRefused, reason.Unresolved, reason.Missed:
		return false
	}
	in, ok := reason.Of(code)
	return ok && in.Stage == "not created"
}

// keepNotCreated journals, once per decision, that in is not created and
// why; sums are what the limit that held it back saw (nil for another
// reason). A run that decides the same again (a cron run refused by the
// same limit in the same period) writes nothing. A journal that cannot
// take the entry stops the run at its next write, as for an outcome.
func (r *creator) keepNotCreated(in *instance, sums *LimitSums) {
	j := r.hold.journal
	if j == nil || in.notifID != 0 || in.label == "" || !keepsNotCreated(in.why.Code) || r.halt.lockLost() || !j.writable() {
		return
	}
	if j.notCreatedSaid(in.label, in.why) {
		return
	}
	info := in.info
	_ = j.Record(journalEntry{Op: opNotCreated, Label: in.label, BetID: in.bet.ID, Race: &info, Status: string(in.status),
		Code: string(in.why.Code), Limit: in.why.Limit, Scope: string(in.why.Scope), Period: in.why.Period, Error: in.reason,
		Amount: in.amount, AtRisk: in.risk.Amount, Basis: in.risk.Basis, Sums: sums})
}

// keepStopped journals every bet the plan's stop mark held back, once.
func (r *creator) keepStopped() {
	for _, in := range r.book.insts {
		if in.why.Code == reason.Stopped {
			r.keepNotCreated(in, nil)
		}
	}
}
