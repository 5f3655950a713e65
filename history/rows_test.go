package history_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// entriesOnly is a store read entry by entry, as before schema version 4:
// its rows reader hidden.
type entriesOnly struct{ state.EveryReader }

// pgJournals keeps journals (plan name: records) in a fresh schema, each
// plan's records copied in one statement, and returns the store and the
// server's URL and schema.
func pgJournals(t *testing.T, journals map[string][][]byte) (*postgres.Store, string, string) {
	stateURL, schema := pgtest.Schema(t)
	cfg, err := postgres.ParseURL(stateURL, "", false)
	require.NoError(t, err)
	store := postgres.New(cfg)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, stateURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for name, recs := range journals {
		copyJournal(t, store, conn, schema, name, recs)
	}
	return store, pgtest.ServerURL(t), schema
}

// sameHistory reads store by rows and entry by entry, and requires the
// same bets and the same journals skipped either way.
func sameHistory(t *testing.T, store *postgres.Store) ([]history.Bet, []history.Skipped) {
	ctx := context.Background()
	rowsRead := false
	ok, err := store.ReadOutcomeRows(ctx, func(j state.StoredJournal) error {
		rowsRead = true
		return j.Rows(state.JournalRows{Record: func([]byte) error { return nil }, Outcome: func(*state.OutcomeRow) error { return nil },
			Created: func([]byte) error { return nil }})
	})
	require.NoError(t, err)
	require.True(t, ok && rowsRead, "the schema keeps rows")
	bets, skipped, err := history.ReadBets(ctx, store)
	require.NoError(t, err)
	want, wantSkipped, err := history.ReadBets(ctx, entriesOnly{store})
	require.NoError(t, err)
	assert.Equal(t, want, bets)
	assert.Equal(t, wantSkipped, skipped)
	return bets, skipped
}

// Entries history reads the same from their rows as from their text, and
// those it cannot (a field of another type, a key in another case, an
// escaped label, a "label" below the entry's…) are read from the journal:
// every bet comes out the same, and a journal that does not read is
// skipped the same.
func TestHistoryRowsReadAsTheEntries(t *testing.T) {
	recs := func(lines ...string) [][]byte {
		out := make([][]byte, len(lines))
		for i, l := range lines {
			out[i] = []byte(l)
		}
		return out
	}
	const race = `"race":{"Venue":"V","Code":"Harness","Start":"2026-06-01T12:00:00+10:00"}`
	journals := map[string][][]byte{
		"odd": recs(
			`{"op":"init","service":"https://api.example.com","account":"a1"}`,
			`{"op":"created","label":"bp:odd:b1","bet":"b1",`+race+`}`,
			`{"op":"outcome","label":"bp:odd:b1","bet":"x1","outcome":{"bet_id":"o1","result":"won","accepted":10,"odds":2.5,"profit":15.05,"units":1.5,"result_time":"2026-06-01T03:00:00Z","sessions":[{"session":"S","accepted":10,"odds":2.5,"profit":15.05,"extra":[1,{"a":null}]}],"status":"settled","notification_id":7}}`,
			`{"op":"created","label":"bp:odd:\u0062\u0032","bet":"b2",`+race+`}`,
			`{"op":"outcome","label":"bp:odd:b2","bet":"x2","outcome":{"result":"lost","accepted":10,"profit":-10}}`,
			`{"op":"created","label":"bp:odd:b3","bet":"b3","race":{"Venue":"W","Code":"Harness","label":"bp:odd:b9","Start":"2026-06-02T12:00:00+10:00"}}`,
			`{"op":"outcome","label":"bp:odd:b3","outcome":{"result":"void","accepted":10,"profit":0,"result_time":"2026-06-02T03:00:00Z"}}`,
			`{"op":"created","label":"bp:odd:b4","bet":"b4",`+race+`}`,
			`{"op":"outcome","label":"bp:odd:b4","bet":"x4","outcome":{"result":"won","accepted":10,"Profit":5,"market":"Fixed Win"}}`,
			`{"op":"created","label":"bp:odd:b5","bet":"b5",`+race+`}`,
			`{"op":"outcome","label":"bp:odd:b5","bet":"x5","outcome":null}`,
			`{"op":"outcome","label":"bp:odd:b5","bet":"y5","time":"2026-06-01T05:00:00Z","outcome":{"result":"lost","accepted":4.2,"profit":-4.2,"venue":"Z","day":"2026-06-01"}}`,
			`{"op":"outcome","label":"bp:odd:b5","bet":"z5","outcome":{"result":"won","accepted":1,"profit":100}}`,
			`{"op":"adopted","label":"bp:odd:b6","bet":"b6",`+race+`}`,
			`{"op":"created","label":"bp:odd:b7","bet":"b7",`+race+`}`,
			`{"op":"outcome","label":"","outcome":{"result":"won","profit":1}}`,
			`{"op":"outcome","label":"bp:odd:b8","race":{"Venue":"R"},"outcome":{"result":"won","accepted":2,"profit":3}}`,
			`{"op":"outcome","label":"bp:odd:b10","outcome":{"result":"won","accepted":2,"profit":3,"result_time":null,"units":null,"sessions":null}}`,
			`{"op":"created","label":"bp:odd:b10","bet":"b10",`+race+`}`,
			`{"op":"placed","label":"bp:odd:b1"}`,
		),
		"damaged": recs(
			`{"op":"init","service":"https://api.example.com","account":"a1"}`,
			`{"op":"created","label":"bp:damaged:b1","bet":"b1"}`,
			`{"op":"outcome","label":"bp:damaged:b1","outcome":{"result":"won","profit":"ten"}}`,
		),
		"numop": recs(
			`{"op":"init","service":"https://api.example.com","account":"a1"}`,
			`{"op":5,"label":"bp:numop:b1"}`,
		),
		"badtime": recs(
			`{"op":"init","service":"https://api.example.com","account":"a1"}`,
			`{"op":"outcome","label":"bp:badtime:b1","outcome":{"result":"won","profit":1,"result_time":"yesterday"}}`,
		),
	}
	recsOf, profit := journalRecords("plain", 30)
	journals["plain"] = recsOf
	store, _, _ := pgJournals(t, journals)
	bets, skipped := sameHistory(t, store)
	require.Len(t, skipped, 3, "badtime, damaged and numop")
	assert.Equal(t, profit, history.Summarise(history.Filter(bets, history.Query{Plans: []string{"plain"}}), history.Query{}).Total.Profit)
	byLabel := map[string]history.Bet{}
	for _, b := range bets {
		byLabel[b.Label] = b
	}
	assert.Equal(t, int64(1505), byLabel["bp:odd:b1"].Profit)
	assert.Equal(t, "y5", byLabel["bp:odd:b5"].BetID, "the first outcome is kept, with its entry's bet id: a bet ends once")
	assert.Equal(t, int64(-420), byLabel["bp:odd:b5"].Profit)
}

// A schema at version 3 with journals in it: history reads its entries;
// the migration to version 4 makes the rows of the entries already
// written, and history reads the same from them, and from a journal a
// run writes afterwards, entry by entry.
func TestHistoryMigratedSchemaReadsTheSame(t *testing.T) {
	journals := map[string][][]byte{}
	var total int64
	for p := range 3 {
		recs, profit := journalRecords(fmt.Sprintf("plan%02d", p), 40)
		journals[fmt.Sprintf("plan%02d", p)] = recs
		total += profit
	}
	store, server, schema := pgJournals(t, journals)
	s := pgx.Identifier{schema}.Sanitize()
	// As version 3 left it, the journals written by a betplan of then.
	pgtest.Exec(t, server, fmt.Sprintf(`DROP TABLE %[1]s.history_entries;
		DROP FUNCTION %[1]s.keep_history_entries(), %[1]s.truncate_history_entries(), %[1]s.outcome_plain(jsonb), %[1]s.created_plain(jsonb),
			%[1]s.outcome_keys(jsonb, text[], text[]) CASCADE;
		DELETE FROM %[1]s.schema_version WHERE version > 3`, s))
	ctx := context.Background()
	ok, err := store.ReadOutcomeRows(ctx, func(state.StoredJournal) error { return nil })
	require.NoError(t, err)
	require.False(t, ok, "version 3 keeps no rows")
	before, skipped, err := history.ReadBets(ctx, store)
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, before, 120)
	assert.Equal(t, total, history.Summarise(before, history.Query{}).Total.Profit)

	// A run migrates the schema, and writes a journal of its own.
	recs, profit := journalRecords("plan03", 25)
	lease, err := store.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: "plan03", BaseURL: benchService}, Owner: state.LockOwner{PID: 2, Host: "test"}})
	require.NoError(t, err)
	for i, r := range recs {
		require.NoError(t, lease.Append(int64(i+1), r))
	}
	require.NoError(t, lease.Release())
	var version, rows int
	pgtest.Query(t, server, fmt.Sprintf("SELECT max(version) FROM %s.schema_version", s), nil, &version)
	assert.Equal(t, postgres.SchemaVersion, version)
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.history_entries WHERE op = 'outcome' AND plain", s), nil, &rows)
	assert.Equal(t, 145, rows, "every outcome entry, those written before the migration and after")

	after, _ := sameHistory(t, store)
	require.Len(t, after, 145)
	assert.Equal(t, before, after[:120], "the journals of before read the same")
	assert.Equal(t, total+profit, history.Summarise(after, history.Query{}).Total.Profit)

	// The documented view counts the same, an entry kept as not plain
	// (a key in another case) from the journal.
	pgtest.Exec(t, server, fmt.Sprintf(`UPDATE %s.journal SET entry = jsonb_set(entry, '{outcome,Venue}', '"Elsewhere"')
		WHERE serial = (SELECT min(serial) FROM %[1]s.journal WHERE entry->>'op' = 'outcome')
		  AND plan_id = (SELECT min(id) FROM %[1]s.plans)`, s))
	var plain bool
	pgtest.Query(t, server, fmt.Sprintf(`SELECT h.plain FROM %[1]s.history_entries h WHERE h.op = 'outcome' AND h.plan_id = (SELECT min(id) FROM %[1]s.plans)
		ORDER BY h.serial LIMIT 1`, s), nil, &plain)
	assert.False(t, plain, "the row is made again from the entry changed")
	sameHistory(t, store)
	pgtest.Exec(t, server, history.BetsViewSQL(schema))
	var cents, settled int64
	pgtest.Query(t, server, fmt.Sprintf("SELECT round(sum(profit) * 100)::bigint, count(*) FROM %s.betplan_bets", s), nil, &cents, &settled)
	assert.Equal(t, total+profit, cents)
	assert.Equal(t, int64(145), settled)
}
