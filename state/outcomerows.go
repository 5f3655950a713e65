package state

import "context"

// OutcomeRowsReader is a store that keeps each journal's outcome entries
// a second time, in columns (PostgreSQL from schema version 4), so that
// `betplan history` reads them without decoding the entries. Like
// EveryReader it reads every journal of every plan and service, without
// any lock and writing nothing; each journal's Rows is set, not Read.
//
// ReadOutcomeRows hands each journal the records history reads of it
// apart from its outcome entries (those of ops init, service, created and
// adopted, any whose op is not a string, any over the bound), and its
// outcome entries as rows, in the journal's order. ok is false, and
// nothing read, when the store keeps no such rows (an older schema): the
// journals are then to be read with ReadEvery.
type OutcomeRowsReader interface {
	EveryReader
	ReadOutcomeRows(ctx context.Context, each func(StoredJournal) error) (ok bool, err error)
}

// JournalRows are what a journal read by rows is handed, in the
// journal's order; each one's bytes are the store's, valid only during
// the call.
type JournalRows struct {
	// Record is a complete record, as Read hands it.
	Record func(record []byte) error
	// Outcome is an outcome entry read from its columns.
	Outcome func(*OutcomeRow) error
	// Created is a created (or adopted) entry of a bet whose journal
	// also holds an outcome row with an outcome (Outcome set) for its
	// label: all the entry says of the bet is then the outcome's, so
	// only its label is handed on, as the entry spells it (no escapes:
	// an entry whose label has any is a Record).
	Created func(label []byte) error
}

// OutcomeRow is an outcome entry as columns: each field the entry's, nil
// where the entry holds null or nothing. Numbers are their JSON text,
// Sessions the JSON array.
type OutcomeRow struct {
	Label, Bet, Time []byte // the entry's own fields
	// Outcome is set when the entry's outcome is an object; the rest are
	// its fields.
	Outcome                                                   bool
	BetID, Result, Venue, Code, Day, Market, Type, ResultTime []byte
	Accepted, Odds, Profit, Units                             []byte
	Sessions                                                  []byte
}
