package state

import "context"

// EveryReader is a store that reads every journal it keeps, of every plan
// and service, without any lock and writing nothing: `betplan history`
// reads a whole state so, while runs may hold their plans' locks.
//
// ReadEvery hands each journal to each, in order, from its own goroutine;
// each reads the journal's records through Read before it returns, so no
// journal is ever held whole. An error from each stops the read and is
// returned. Given ops, a store may leave out records whose op is known
// and not one of them (a store that can select them cheaply does); a
// record whose op it cannot tell is kept. Nil ops: every record.
type EveryReader interface {
	ReadEvery(ctx context.Context, ops []string, each func(StoredJournal) error) error
}

// StoredJournal is one plan's journal against one service, as a store
// keeps it.
type StoredJournal struct {
	Name string // the plan's name
	// Where names the journal in messages: its file, or its plan's row.
	Where string
	// Rehearsal marks a journal a rehearsal kept apart (run --sim's own
	// folder of the state dir).
	Rehearsal bool
	// Read hands the journal's complete records to record one at a time,
	// in order; a record's bytes are the store's, valid only during the
	// call. It returns record's first error, or why the journal does not
	// read (a BadJournalError for damage): records handed on before the
	// damage was found are then to be dropped with the rest, and the
	// others journals are read still. Read is called at most once, before
	// each returns.
	Read func(record func([]byte) error) error
}
