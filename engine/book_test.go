package engine

import (
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// TestBookTakesEachMovedBetOnce: a bet that moves several times between
// two takes (observed, placed and settled in one read) is taken once, and
// not again until it moves again.
func TestBookTakesEachMovedBetOnce(t *testing.T) {
	t.Parallel()
	b := newBook()
	in := newWaiting(&plan.Bet{ID: "a"}, RaceInfo{}, "bp:a", 5)
	b.add(in.label, in)
	if got := b.takeChanged(); len(got) != 0 {
		t.Fatalf("before the alerts listen: took %d", len(got))
	}
	b.watch()
	if got := b.takeChanged(); len(got) != 1 || got[0] != in {
		t.Fatalf("watch: took %v, want the one bet the book holds", got)
	}
	b.created(in, 7, time.Now())
	if got := b.takeChanged(); len(got) != 1 {
		t.Fatalf("created: took %d, want 1", len(got))
	}
	b.observe(in, &apiclient.Notification{ID: 7})
	b.placing(in, time.Now(), []string{"s"}, 5)
	b.settled(in, "won")
	got := b.takeChanged()
	if len(got) != 1 || got[0] != in {
		t.Fatalf("placed and settled in one read: took %d bets, want it once", len(got))
	}
	if in.status != StatusSettled || in.placedAt.IsZero() {
		t.Fatalf("took it at %s, placed at %v", in.status, in.placedAt)
	}
	if got := b.takeChanged(); len(got) != 0 {
		t.Fatalf("nothing moved since: took %d", len(got))
	}
}
