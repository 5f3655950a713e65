package state

import "context"

// EveryReader is a store that reads every journal it keeps, of every plan
// and service, without any lock and writing nothing: `betplan history`
// reads a whole state so, while runs may hold their plans' locks.
type EveryReader interface {
	ReadEvery(ctx context.Context) ([]StoredJournal, error)
}

// StoredJournal is one plan's journal against one service, as a store
// keeps it. A journal that could not be read has Err set and no records:
// the others are read still, and the reader names it.
type StoredJournal struct {
	Name string // the plan's name
	// Where names the journal in messages: its file, or its plan's row.
	Where string
	// Rehearsal marks a journal a rehearsal kept apart (run --sim's own
	// folder of the state dir).
	Rehearsal bool
	Records   [][]byte
	Err       error
}
