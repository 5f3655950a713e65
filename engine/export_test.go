package engine

import (
	"flag"
	"os"
	"testing"
)

// What the store tests (package engine_test) write into journals.
type JournalEntry = journalEntry

const (
	OpCreating = opCreating
	OpCreated  = opCreated
	OpAbsent   = opAbsent
	OpCanceled = opCanceled
)

// Every test checks the limits' running sums against the stakes added up
// afresh, at every use; benchmarks measure the sums alone.
func TestMain(m *testing.M) {
	flag.Parse()
	verifyLedger = flag.Lookup("test.bench").Value.String() == ""
	os.Exit(m.Run())
}
