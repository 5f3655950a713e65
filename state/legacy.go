package state

import "context"

// LegacyStore is a store that may hold a plan's journal written by a
// betplan that kept one journal per plan whatever the service. Such a
// journal is never taken as the service's on sight: the engine asks the
// service whether it knows the journal's bets (ClaimLegacy), and only a
// journal shown to be the service's is moved into its journal.
type LegacyStore interface {
	// LegacyJournal reads the plan's journal from before journals were
	// kept per service; nil when there is none.
	LegacyJournal(ctx context.Context, key PlanKey) (*LegacyJournal, error)
	// RetireLegacy renames the legacy journal once its records are in the
	// service's journal: no other service's run considers it again.
	RetireLegacy(ctx context.Context, key PlanKey, j *LegacyJournal) error
	// SetAside keeps records of the legacy journal the service showed not
	// to be its own in a file of their own for the service, durably,
	// before any record is moved, and returns where.
	SetAside(ctx context.Context, key PlanKey, j *LegacyJournal, records [][]byte) (string, error)
}

// LegacyJournal is a journal with no service recorded.
type LegacyJournal struct {
	// Where names it in messages (a file path).
	Where string
	// Records are its whole records, in order.
	Records [][]byte
	// Suggested is where it would go if it was this service's journal,
	// for a message that tells the user how to say so.
	Suggested string
	// SetAside are the records set aside for this service by a move cut
	// short (SetAside), so that the move resumes as it began.
	SetAside [][]byte
}
