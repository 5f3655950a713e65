package engine

import (
	"sort"
	"time"

	"github.com/betplan/betplan/plan"
)

// What the book answers of its bets: indexes and views over them, for
// the parts that read the service, report and alert.

// nameInstances sets the id of every instance the run holds.
func (b *betBook) nameInstances() {
	refs := make([]instanceRef, len(b.insts))
	for i, in := range b.insts {
		refs[i] = instanceRef{in.bet, in.info}
	}
	for i, id := range instanceIDs(refs) {
		b.insts[i].id = id
	}
}

// hasRace reports whether the run already holds an instance of b on a
// race (an unresolved entry does not count).
func (b *betBook) hasRace(bet *plan.Bet) bool {
	for _, in := range b.insts {
		if in.bet == bet && in.race != nil {
			return true
		}
	}
	return false
}

// eventInstance is the run's instance of an event bet on its event, nil
// while unresolved.
func (b *betBook) eventInstance(bet *plan.Bet) *instance {
	for _, in := range b.insts {
		if in.bet == bet && in.info.Event != nil && in.label != "" {
			return in
		}
	}
	return nil
}

func (b *betBook) waiting() int {
	n := 0
	for _, in := range b.insts {
		if in.status == StatusWaiting {
			n++
		}
	}
	return n
}

func (b *betBook) snapshot() []*instance { return append([]*instance(nil), b.insts...) }

// byStart is the instances with the soonest race first (plan order among
// a race's bets): in a burst, the bet whose race jumps first is created
// first. It also keeps each race's notifications next to each other in the
// service's list, so the pages that poll the races still to run are the
// newest ones. The slice is sorted once until the book's layout moves and
// shared by every caller: they read it, never change it.
func (b *betBook) byStart() []*instance { return b.starts.of(b) }

// placedEntries are the placed entries j lacks for the instances' known
// placement times.
func (b *betBook) placedEntries(j *Journal) []journalEntry {
	var out []journalEntry
	for _, in := range b.insts {
		if in.notifID == 0 || in.placedAt.IsZero() {
			continue
		}
		s := j.State(in.label)
		if s == nil || s.NotificationID != in.notifID {
			continue // not this journal's bet (recovered by label, not adopted yet)
		}
		if !s.PlacedAt.IsZero() && (s.PlacedFromRecords || !in.placedFromRecords) {
			continue // kept already, as well as it will be known
		}
		at := in.placedAt.UTC()
		from := placedFromFirstPoll
		if in.placedFromRecords {
			from = placedFromRecords
		}
		out = append(out, journalEntry{Op: opPlaced, Label: in.label, BetID: in.bet.ID, PlacedAt: &at, PlacedFrom: from})
	}
	return out
}

// sortInstances orders bets as a race card reads: by race (or event)
// start, then as the plan lists them; those with no known start (a race
// never found) come last. The same order whichever way the instances
// were found.
func (b *betBook) sortInstances(bets []*plan.Bet) {
	index := make(map[*plan.Bet]int, len(bets))
	for i, bet := range bets {
		index[bet] = i
	}
	b.edits, b.layout = b.edits+1, b.layout+1
	sort.SliceStable(b.insts, func(i, j int) bool {
		x, y := b.insts[i], b.insts[j]
		if xs, ys := x.info.Start, y.info.Start; !xs.Equal(ys) {
			if xs.IsZero() || ys.IsZero() {
				return ys.IsZero()
			}
			return xs.Before(ys)
		}
		if index[x.bet] != index[y.bet] {
			return index[x.bet] < index[y.bet]
		}
		return x.label < y.label
	})
}

// soonestFirst sorts s by start, soonest first and unknown (zero) starts
// last, keeping s's order among equal starts.
func soonestFirst[T any](s []T, start func(T) time.Time) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := start(s[i]), start(s[j])
		if a.IsZero() || b.IsZero() {
			return !a.IsZero() && b.IsZero()
		}
		return a.Before(b)
	})
}
