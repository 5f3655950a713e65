package engine

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// A placement time is kept once: a journal written before placed entries
// existed replays with none, a poll's stand-in gives way once to the
// records' time, and that one never moves.
func TestJournalPlacedAtKeptOnce(t *testing.T) {
	t.Parallel()
	old := [][]byte{
		[]byte(`{"serial":1,"lineage":"ab","time":"2026-11-25T03:00:00Z","op":"init"}`),
		[]byte(`{"serial":2,"lineage":"ab","time":"2026-11-25T03:00:01Z","op":"creating","label":"bp:card:b1","bet":"b1","amount":5}`),
		[]byte(`{"serial":3,"lineage":"ab","time":"2026-11-25T03:00:02Z","op":"created","label":"bp:card:b1","bet":"b1","id":1001,"amount":5}`),
	}
	j, err := replayRecords("test", old, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := j.State("bp:card:b1")
	if !s.PlacedAt.IsZero() || !s.CreatedAt.Equal(time.Date(2026, 11, 25, 3, 0, 2, 0, time.UTC)) {
		t.Fatalf("old journal: placed %v created %v", s.PlacedAt, s.CreatedAt)
	}
	at := func(sec int) *time.Time { t := time.Date(2026, 11, 25, 3, 17, sec, 0, time.UTC); return &t }
	add := func(serial int, e journalEntry) {
		e.Serial, e.Lineage, e.Op, e.Label = int64(serial), "ab", opPlaced, "bp:card:b1"
		j.apply(e)
	}
	add(4, journalEntry{PlacedAt: at(5), PlacedFrom: placedFromFirstPoll})
	add(5, journalEntry{PlacedAt: at(9), PlacedFrom: placedFromFirstPoll})
	if s := j.State("bp:card:b1"); !s.PlacedAt.Equal(*at(5)) || s.PlacedFromRecords {
		t.Fatalf("a second stand-in moved it: %+v", s)
	}
	add(6, journalEntry{PlacedAt: at(3), PlacedFrom: placedFromRecords})
	add(7, journalEntry{PlacedAt: at(4), PlacedFrom: placedFromRecords})
	if s := j.State("bp:card:b1"); !s.PlacedAt.Equal(*at(3)) || !s.PlacedFromRecords {
		t.Fatalf("records' time: %+v", s)
	}
	// Nothing more to keep once the records' time is kept.
	b := newBook()
	b.insts = []*instance{{label: "bp:card:b1", betState: betState{notifID: 1001, placedAt: *at(8), placedFromRecords: true}, bet: nil}}
	if e := b.placedEntries(j); len(e) != 0 {
		t.Fatalf("entries to keep: %+v", e)
	}
}

// An outcome entry keeps its facts under "outcome": replay folds nothing
// from it but the outcome itself (for the book to count), so a journal
// replays to the same bets with it or without it (and a betplan that does
// not know the entry folds none of its amounts into the bet's).
func TestJournalOutcomeFoldsNothingElse(t *testing.T) {
	t.Parallel()
	base := [][]byte{
		[]byte(`{"serial":1,"lineage":"ab","time":"2026-11-25T03:00:00Z","op":"init"}`),
		[]byte(`{"serial":2,"lineage":"ab","time":"2026-11-25T03:00:01Z","op":"creating","label":"bp:card:b1","bet":"b1","amount":5}`),
		[]byte(`{"serial":3,"lineage":"ab","time":"2026-11-25T03:00:02Z","op":"created","label":"bp:card:b1","bet":"b1","id":1001,"amount":5}`),
	}
	outcome := []byte(`{"serial":4,"lineage":"ab","time":"2026-11-25T04:00:00Z","op":"outcome","label":"bp:card:b1",` +
		`"outcome":{"label":"bp:card:b1","notification_id":1001,"result":"won","accepted":10,"odds":3.5,"profit":25,"venue":"Flemington","day":"2026-11-25"}}`)
	without, err := replayRecords("test", base, nil)
	if err != nil {
		t.Fatal(err)
	}
	with, err := replayRecords("test", append(base, outcome), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := *without.State("bp:card:b1"), *with.State("bp:card:b1")
	if a.Outcome || !b.Outcome {
		t.Fatalf("outcome kept: without %v, with %v", a.Outcome, b.Outcome)
	}
	if k := b.Kept; k == nil || k.Accepted != 10 || k.Profit != 25 || k.Odds != 3.5 || k.NotPlaced || !k.ResultAt.Equal(time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)) {
		t.Fatalf("the outcome as the book counts it: %+v", b.Kept)
	}
	b.Outcome, b.Kept = false, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the outcome entry changed the bet:\nwithout %+v\nwith    %+v", a, b)
	}
	var e journalEntry
	if err := json.Unmarshal(outcome, &e); err != nil || e.Amount != 0 || e.Race != nil || e.NotificationID != 0 {
		t.Fatalf("an outcome entry's facts reach the folded fields: %+v %v", e, err)
	}
}
