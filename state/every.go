package state

import (
	"context"
	"runtime"
	"sync"
)

// EveryReader is a store that reads every journal it keeps, of every plan
// and service, without any lock and writing nothing: `betplan history`
// reads a whole state so, while runs may hold their plans' locks.
//
// ReadEvery hands each journal to each; each reads the journal's records
// through Read before it returns, so no journal is ever held whole. A
// store may read up to GOMAXPROCS journals side by side, calling each
// from as many goroutines at once (one journal a call), so each must be
// safe for that; StoredJournal.Seq is a journal's place in the store's
// order. An error from each stops the read (no journal is begun after it)
// and is returned. Given ops, a store may leave out records whose op is
// known and not one of them (a store that can select them cheaply does);
// a record whose op it cannot tell is kept. Nil ops: every record.
type EveryReader interface {
	ReadEvery(ctx context.Context, ops []string, each func(StoredJournal) error) error
}

// StoredJournal is one plan's journal against one service, as a store
// keeps it.
type StoredJournal struct {
	// Seq is the journal's place in the store's order (0, 1, ...): by
	// plan, then as the store keeps a plan's journals.
	Seq  int
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
	// other journals are read still. Read is called at most once, before
	// each returns.
	Read func(record func([]byte) error) error
	// Rows is Read for a journal read by OutcomeRowsReader: nil
	// otherwise. It returns the first error of rows' functions, or why
	// the journal does not read, as Read does.
	Rows func(rows JournalRows) error
}

// SideBySide calls read for each of n journals (i from 0 to n-1), from up
// to GOMAXPROCS goroutines at once (worker says which, from 0 to
// Workers(n)-1, so a store can give each its own connection), and returns
// the first error, once every read begun has returned: no read begins
// after it.
func SideBySide(n int, read func(worker, i int) error) error {
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || next >= n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for w := range Workers(n) {
		wg.Go(func() {
			for i, ok := take(); ok; i, ok = take() {
				if err := read(w, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}

// Workers is how many goroutines SideBySide reads n journals from.
func Workers(n int) int { return max(1, min(n, runtime.GOMAXPROCS(0))) }
