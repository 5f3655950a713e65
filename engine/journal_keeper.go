package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// The journal keeper, and whose journal it is: the service and account a
// journal was kept for, and the refusal of another's. Opening a journal,
// and taking over an old one, build on it (legacy.go, legacy_claim.go).

// journalKeeper opens and reads a plan's journal for a command: whose it
// is, the old journal's claim, a takeover of another machine's.
type journalKeeper struct {
	opts *Options
	plan *plan.Plan
	key  state.PlanKey
	svc  Backend
	logf func(format string, args ...any)
	// listPage reads a page of the service's notification list, as the
	// command's list index keeps it.
	listPage func(ctx context.Context, n int) (*apiclient.Page[apiclient.Notification], error)
}

// owner is this run's service and account.
func (r *journalKeeper) owner() journalOwner {
	o := journalOwner{account: accountKey(r.opts.ServiceAccount), name: r.opts.ServiceAccount}
	switch {
	case r.opts.Simulated:
		o.service = local.RehearsalService // a new port every time
	case r.opts.BaseURL != "":
		o.service = state.ServiceIdentity(r.opts.BaseURL)
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

// AccountKey is how a journal names the account called name (its init
// entry's account), for readers of journals that match one.
func AccountKey(name string) string { return accountKey(name) }

// othersJournal says why a journal is not this run's: kept for another
// service, or another account on it; "" when it is (or does not say).
func (o journalOwner) othersJournal(j *Journal) string {
	switch {
	case o.otherService(j):
		return fmt.Sprintf("it was kept for the service at %s, not %s", j.service, o.service)
	case o.otherAccount(j):
		return "it was kept for another account on " + o.service
	}
	return ""
}

// otherService reports whether j says it was kept for another service.
func (o journalOwner) otherService(j *Journal) bool {
	// (a journal names its service as betplan then worked it out:
	// 0.0.0.0, say, before every spelling of loopback was one)
	return j.service != "" && o.service != "" && j.service != o.service && state.ServiceIdentity(j.service) != o.service
}

// otherAccount reports whether j says it was kept for another account.
func (o journalOwner) otherAccount(j *Journal) bool {
	return j.account != "" && o.account != "" && j.account != o.account
}

// checkOwner refuses a journal kept for another service or account, in
// words that say whose it is and what to do.
func (r *journalKeeper) checkOwner(where string, j *Journal) error {
	o := r.owner()
	why := o.othersJournal(j)
	switch {
	case why == "":
		return nil
	case !o.otherService(j):
		// Journals begun before they named their account keep its key
		// alone: whose it is cannot be said.
		whose, as := "another account", "the account that ran it"
		if j.accountName != "" && accountKey(j.accountName) == j.account {
			whose, as = "account "+j.accountName, j.accountName
		}
		why = fmt.Sprintf("the journal of plan %s in %s belongs to %s on %s, but this run is account %s (BETPLAN_TOKEN, or BETPLAN_EMAIL): run the plan as %s, or give %s a state dir of its own (--state-dir)",
			r.plan.Name, where, whose, o.service, o.name, as, o.name)
	default:
		why = fmt.Sprintf("the journal of plan %s in %s is not this run's: %s; give each account a state dir of its own (--state-dir)", r.plan.Name, where, why)
	}
	return &ForeignJournalError{Reason: why}
}

// ForeignJournalError is a journal kept for another service or account:
// nothing of it is applied, counted or reported, and the reports stay as
// they were.
type ForeignJournalError struct{ Reason string }

// Refused says nothing was sent to create.
func (e *ForeignJournalError) Refused() bool { return true }

func (e *ForeignJournalError) Error() string { return "refused: " + e.Reason }
