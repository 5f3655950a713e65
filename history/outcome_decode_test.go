package history

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// The outcome entries' own reader reads what encoding/json reads, or gives
// up and leaves the record to it: the way the engine writes them, the way
// PostgreSQL spells jsonb back, and odd spellings.
func TestOutcomeEntryReadsAsEncodingJSON(t *testing.T) {
	cases := []struct {
		rec      string
		fallback bool
	}{
		{rec: `{"serial":6,"lineage":"0123456789abcdef","time":"2026-06-01T02:20:00Z","op":"outcome","label":"bp:p:b0:000000000000","outcome":{"label":"bp:p:b0:000000000000","bet_id":"b0","notification_id":100000,"result":"won","status":"settled","accepted":10,"odds":3.5,"profit":10.37,"sessions":[{"session":"Main Sportsbet","accepted":10,"odds":3.5,"profit":10.37}],"venue":"Flemington","code":"Galloping","race":1,"day":"2026-06-01","start":"0001-01-01T00:00:00Z","market":"Fixed Win","type":"Fixed Wager","result_time":"2026-06-01T02:19:00Z"}}`},
		{rec: `{"op": "outcome", "time": "2026-06-01T02:20:00.5+10:00", "label": "bp:p:b1:1", "serial": 7, "lineage": "ab", "outcome": {"day": "2026-06-02", "odds": 2.1, "code": "Harness", "type": "Fixed Profit", "label": "bp:p:b1:1", "units": -1, "venue": "Menangle", "market": "Fixed Win", "profit": -20, "result": "lost", "bet_id": "b1", "accepted": 20.01, "sessions": [{"odds": 2.1, "profit": -10, "session": "A", "accepted": 10}, {"odds": 2.1, "profit": -10.01, "session": "B \u00e9", "accepted": 10.01}], "result_time": "2026-06-02T05:00:00+10:00"}}`},
		{rec: `{"op":"outcome","label":"bp:p:\"q\"","time":"2026-06-01T02:20:00Z","outcome":{"result":"not_placed","accepted":0,"profit":0,"units":null,"sessions":null,"extra":{"a":[1,2,{"b":null}],"c":true,"d":false,"e":"x\\y"}}}`},
		{rec: `{"op":"outcome","label":"bp:p:b2","outcome":{"result":"won","accepted":1e2,"profit":1.2345678901234567,"odds":-0.0,"result_time":null,"venue":null}}`},
		{rec: `{"op":"outcome","label":"bp:p:b3","outcome":{"result":"won","accepted":12345678901234567890,"profit":0.1,"odds":99.99}}`},
		{rec: `{"op":"outcome","label":"bp:p:b4","outcome":null}`},
		{rec: `{"op":"outcome","label":"bp:p:b5","bet":"b5","outcome":{"profit":5,"sessions":[]}}`},
		{rec: `{"op":"outcome","label":"bp:p:\u0062","bet":"b\u0035","label":"bp:p:b5","outcome":{"profit":5}}`},
		{rec: `{"op":"outcome","label":"bp:p:b5","bet":"b5","label":"bp:p:\u0062","bet":"b\u0035","outcome":{"profit":5}}`},
		{rec: `{"op":"outcome","Label":"bp:p:b6","outcome":{"profit":5}}`, fallback: true},
		{rec: `{"op":"outcome","label":"bp:p:b7","outcome":{"Profit":5}}`, fallback: true},
		{rec: `{"op":"outcome","label":"bp:p:b8","race":{"Venue":"X"},"outcome":{"profit":5}}`, fallback: true},
		{rec: `{"op":"outcome","label":"bp:p:b9","outcome":{"profit":"5"}}`, fallback: true},
		{rec: `{"op":"outcome","label":"bp:p:b10","outcome":{"sessions":[null]}}`, fallback: true},
		{rec: `{"op":"outcome","label":"bp:p:b11","outcome":{"result_time":"2026-06-01T02:20:00\u005a"}}`, fallback: true},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var e outcomeEntry
			var into outcomeRecord
			ok := decodeOutcomeEntry([]byte(c.rec), &e, &into, map[string]string{})
			require.Equal(t, !c.fallback, ok, "read here, or left to encoding/json")
			if !ok {
				return
			}
			var want record
			require.NoError(t, json.Unmarshal([]byte(c.rec), &want))
			assert.Equal(t, want.Label, e.labelText+string(e.label), "the label, plain or decoded")
			assert.False(t, len(e.label) > 0 && e.labelText != "", "one or the other")
			assert.Equal(t, want.BetID, e.betIDText+string(e.betID), "the bet, plain or decoded")
			var at string
			if e.time != nil {
				require.NoError(t, json.Unmarshal(e.time, &at))
			}
			assert.Equal(t, want.Time, at)
			if want.Outcome == nil {
				assert.Nil(t, e.outcome)
				return
			}
			require.NotNil(t, e.outcome)
			w, g := *want.Outcome, *e.outcome
			assert.True(t, w.ResultTime.Equal(g.ResultTime), "%s, %s", w.ResultTime, g.ResultTime)
			w.ResultTime = g.ResultTime
			if len(w.Sessions) == 0 && len(g.Sessions) == 0 {
				w.Sessions, g.Sessions = nil, nil
			}
			assert.Equal(t, w, g)
		})
	}
}

// Created entries read here fold into a bet as encoding/json's reading of
// them does, or are left to it.
func TestCreatedEntryReadsAsEncodingJSON(t *testing.T) {
	cases := []struct {
		rec      string
		fallback bool
	}{
		{rec: `{"serial":3,"lineage":"0123456789abcdef","time":"2026-06-01T02:00:01Z","op":"created","label":"bp:p:b0:0","bet":"b0","id":100000,"amount":10,"at_risk":10,"basis":"stake","race":{"Venue":"Flemington","Code":"Galloping","EventNumber":1,"Start":"2026-06-01T12:10:00+10:00"}}`},
		{rec: `{"op": "adopted", "bet": "b1", "race": {"Code": "Harness", "Start": "2026-06-01T23:50:00-03:00", "Venue": "Men\u00e9ngle", "EventNumber": 4}, "label": "bp:p:b1:1"}`},
		{rec: `{"op":"created","label":"bp:p:b2","race":null}`},
		{rec: `{"op":"created","label":"bp:p:b3","bet":"b3","race":{"Venue":"X","Start":null}}`},
		{rec: `{"op":"created","label":"bp:p:b4","race":{"Venue":"X","Start":"0001-01-01T00:00:00Z"},"extra":[{"a":1},true,null,-1.5e3]}`},
		{rec: `{"op":"created","label":"bp:p:b5","race":{"venue":"X"}}`, fallback: true},
		{rec: `{"op":"created","label":"bp:p:b6","Bet":"b6"}`, fallback: true},
		{rec: `{"op":"created","label":"bp:p:b7","service":"https://x"}`, fallback: true},
		{rec: `{"op":"created","label":"bp:p:b8","race":{"Venue":5}}`, fallback: true},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var e createdEntry
			ok := decodeCreatedEntry([]byte(c.rec), &e, map[string]string{})
			require.Equal(t, !c.fallback, ok, "read here, or left to encoding/json")
			if !ok {
				return
			}
			var got Bet
			require.NoError(t, e.apply(&got))
			f := newFold()
			f.begin(state.StoredJournal{}, &Query{}, false, true)
			require.NoError(t, f.decode([]byte(c.rec), 1))
			require.Len(t, f.open, 1)
			var want Bet
			for _, o := range f.open {
				want = o.Bet
			}
			want.Plan, want.Label, want.Predates, want.seq = "", "", false, 0
			assert.Equal(t, want, got)
		})
	}
}

// Cut or broken records (never handed on by a store, which checks them)
// make the readers give up, not fail.
func TestEntryReadersGiveUpOnBrokenRecords(t *testing.T) {
	rec := `{"op":"outcome","label":"bp:p:\"b\\","bet":"b","race":null,"outcome":{"result":"won","profit":-1.5e2,"sessions":[{"session":"A"}],"result_time":"2026-06-01T02:20:00Z"}}`
	for i := range len(rec) {
		var e outcomeEntry
		var into outcomeRecord
		assert.False(t, decodeOutcomeEntry([]byte(rec[:i]), &e, &into, map[string]string{}), "cut at %d", i)
		var c createdEntry
		assert.False(t, decodeCreatedEntry([]byte(rec[:i]), &c, map[string]string{}), "cut at %d", i)
	}
}
