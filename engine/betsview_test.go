package engine

import (
	"reflect"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// TestBetsViewSeesEachChange: the bets as expressions read them are built
// once for the decisions of a tick, and a bet that moves between two of
// them is seen by the second: created, then settled as a poll shows it,
// then settled with no new read of the service (which leaves the limits'
// sums as they were: the view keys on every change, not on theirs).
func TestBetsViewSeesEachChange(t *testing.T) {
	t.Parallel()
	a, c := &plan.Bet{ID: "a"}, &plan.Bet{ID: "c"}
	start := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	b := newBook()
	ina := newWaiting(a, RaceInfo{Venue: "Randwick", Code: "Galloping", EventNumber: 3, Start: start}, "bp:a", 10)
	inc := newWaiting(c, RaceInfo{Venue: "Randwick", Code: "Galloping", EventNumber: 4, Start: start.Add(30 * time.Minute)}, "bp:c", 10)
	b.add(ina.label, ina)
	b.add(inc.label, inc)
	m := &money{plan: &plan.Plan{Bets: []*plan.Bet{a, c}}, book: b}
	now := start.Add(-10 * time.Minute)
	seen := func() plan.BetEnv {
		t.Helper()
		e, ok := m.betEnvs(inc.info, now)["a"].(*plan.BetEnv)
		if !ok {
			t.Fatalf("bets.a is %T", m.betEnvs(inc.info, now)["a"])
		}
		return *e
	}
	if got := seen().Status; got != string(StatusWaiting) {
		t.Fatalf("before anything: a is %s", got)
	}
	first, again := m.betEnvs(inc.info, now), m.betEnvs(inc.info, now)
	if reflect.ValueOf(first).UnsafePointer() != reflect.ValueOf(again).UnsafePointer() {
		t.Fatal("two decisions with nothing changed between them built the bets twice")
	}

	b.created(ina, 7, now)
	if got := seen().Status; got != string(StatusCreated) {
		t.Fatalf("after its create: a is %s", got)
	}
	b.observe(ina, &apiclient.Notification{ID: 7, TotalAccepted: 10})
	b.settled(ina, "lost")
	if got := seen(); got.Status != string(StatusSettled) || got.Accepted != 10 {
		t.Fatalf("after a poll showed it settled: a is %s, accepted %v", got.Status, got.Accepted)
	}
	version := b.version
	b.complete(ina, StatusCanceled, reason.Said(reason.Cancelled, "cancelled on the service"))
	if b.version != version {
		t.Fatal("the test wants a change the limits' version does not count")
	}
	if got := seen().Status; got != string(StatusCanceled) {
		t.Fatalf("after it ended with no read of the service: a is %s", got)
	}

	// The clock moves within a tick: minutes_to_start with it.
	if got := seen().Race.MinutesToStart; got != 10 {
		t.Fatalf("minutes_to_start %v at 10 minutes out", got)
	}
	built := m.betEnvs(inc.info, now)
	now = now.Add(90 * time.Second)
	if got := seen().Race.MinutesToStart; got != 8.5 {
		t.Fatalf("minutes_to_start %v at 8.5 minutes out", got)
	}
	if reflect.ValueOf(built).UnsafePointer() != reflect.ValueOf(m.betEnvs(inc.info, now)).UnsafePointer() {
		t.Fatal("the clock moved and the bets were built again")
	}
}

// TestByStartSortsOnceAWhile: the book's bets by start are sorted once
// while the book holds the same bets, and sorted again when one is added
// or a start moves.
func TestByStartSortsOnceAWhile(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	b := newBook()
	late := newWaiting(&plan.Bet{ID: "late"}, RaceInfo{Start: start.Add(time.Hour)}, "bp:late", 1)
	b.add(late.label, late)
	soon := newWaiting(&plan.Bet{ID: "soon"}, RaceInfo{Start: start}, "bp:soon", 1)
	b.add(soon.label, soon)
	first := b.byStart()
	if len(first) != 2 || first[0] != soon {
		t.Fatalf("by start: %v", ids(first))
	}
	b.created(soon, 1, start)
	if again := b.byStart(); &again[0] != &first[0] {
		t.Fatal("a create sorted the bets again")
	}
	sooner := newWaiting(&plan.Bet{ID: "sooner"}, RaceInfo{Start: start.Add(-time.Hour)}, "bp:sooner", 1)
	b.add(sooner.label, sooner)
	if got := b.byStart(); len(got) != 3 || got[0] != sooner || len(first) != 2 || first[0] != soon {
		t.Fatalf("after an add: %v, the order handed out before %v", ids(got), ids(first))
	}
	late.info.Start = start.Add(-2 * time.Hour)
	b.outdated() // as the resolver says when it moves a start
	if got := b.byStart(); got[0] != late {
		t.Fatalf("after a start moved: %v", ids(got))
	}
}

func ids(insts []*instance) []string {
	out := make([]string, len(insts))
	for i, in := range insts {
		out[i] = in.bet.ID
	}
	return out
}
