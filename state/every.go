package state

import "context"

// EveryReader is a store that reads every journal it keeps, of every plan
// and service, without any lock and writing nothing: `betplan history`
// reads a whole state so, while runs may hold their plans' locks.
//
// ReadEvery hands each journal to each as soon as it is read, in order,
// so a reader holds one journal at a time, not the whole state; an error
// from each stops the read and is returned. Given ops, a store may leave
// out records whose op is known and not one of them (a store that can
// select them cheaply does); a record whose op it cannot tell is kept.
// Nil ops: every record.
type EveryReader interface {
	ReadEvery(ctx context.Context, ops []string, each func(StoredJournal) error) error
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
