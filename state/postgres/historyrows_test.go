package postgres_test

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// history_entries holds a row for each entry history reads, and only for
// those: the insert trigger runs for no other. Entries changed by hand
// (into an entry history reads, out of one, moved along the key, removed)
// leave the rows the migration makes from the journal as it then is.
func TestHistoryEntriesAreTheMigrations(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	writeJournal(t, s,
		`{"op":"init","service":"https://api.example.com","account":"a1"}`,
		`{"op":"creating","label":"bp:card:b1"}`,
		`{"op":"created","label":"bp:card:b1","bet":"b1"}`,
		`{"op":"placed","label":"bp:card:b1"}`,
		`{"op":"outcome","label":"bp:card:b1","outcome":{"result":"won","accepted":10,"profit":5}}`,
		`{"op":5,"label":"bp:card:b2"}`,
		`{"op":null}`,
		`{"label":"bp:card:b3"}`,
		`{"op":"outcome","label":"bp:card:b3","outcome":{"result":"won","profit":"ten"}}`,
		`{"op":"creating","label":"bp:card:b4"}`,
		`{"op":"adopted","label":"bp:card:b4","bet":"b4"}`,
		`[1]`,
	)
	s2 := pgx.Identifier{schema}.Sanitize()
	serials := func() string {
		var got string
		pgtest.Query(t, server, fmt.Sprintf("SELECT coalesce(string_agg(serial::text, ',' ORDER BY serial), '') FROM %s.history_entries", s2), nil, &got)
		return got
	}
	assert.Equal(t, "1,3,5,6,7,8,9,11,12", serials(), "no row for creating and placed entries")

	pgtest.Exec(t, server, fmt.Sprintf(`UPDATE %[1]s.journal SET entry = '{"op":"outcome","label":"bp:card:b1","outcome":{"result":"lost","accepted":1,"profit":-1}}' WHERE serial = 2;
		UPDATE %[1]s.journal SET entry = '{"op":"placed","label":"bp:card:b1"}' WHERE serial = 5;
		UPDATE %[1]s.journal SET entry = '{"op":"created","label":"bp:card:b9","bet":"b9"}' WHERE serial = 11;
		UPDATE %[1]s.journal SET serial = serial + 100 WHERE serial >= 9;
		DELETE FROM %[1]s.journal WHERE serial = 3`, s2))
	assert.Equal(t, "1,2,6,7,8,109,111,112", serials())
	rows := func() string {
		var got string
		pgtest.Query(t, server, fmt.Sprintf("SELECT json_agg(h ORDER BY plan_id, serial)::text FROM %s.history_entries h", s2), nil, &got)
		return got
	}
	kept := rows()
	assert.Contains(t, kept, `"label":"bp:card:b9"`, "the entry changed in place is made again")

	pgtest.Exec(t, server, fmt.Sprintf("DELETE FROM %[1]s.schema_version WHERE version > 3; TRUNCATE %[1]s.history_entries", s2))
	writeJournal(t, s)
	var version int
	pgtest.Query(t, server, fmt.Sprintf("SELECT max(version) FROM %s.schema_version", s2), nil, &version)
	require.Equal(t, postgres.SchemaVersion, version)
	assert.Equal(t, kept, rows(), "the migration's rows are the triggers'")
}
