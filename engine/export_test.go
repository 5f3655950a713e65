package engine

// What the store tests (package engine_test) write into journals.
type JournalEntry = journalEntry

const (
	OpCreating = opCreating
	OpCreated  = opCreated
	OpAbsent   = opAbsent
	OpCanceled = opCanceled
)
