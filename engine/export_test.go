package engine

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/betplan/betplan/engine/follow"
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

// ListPagesSince is the numbers of the list pages the plan's view of the
// account would adopt (accountPlan.listPagesSince).
func ListPagesSince(b Backend, since time.Time) []int {
	var ns []int
	for _, p := range b.(*accountPlan).listPagesSince(since) {
		ns = append(ns, p.N)
	}
	return ns
}

// ReadReason is why the engine made the read it passes ctx with: the
// poll's reasons ("first poll", "open bet", "last look"), "label check",
// "placement records", "settled records"; "" for a read it did not mark.
func ReadReason(ctx context.Context) string { return follow.Reason(ctx) }
