package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// A role that runs plans was granted, table by table, the tables an
// earlier schema had: once the schema is at version 4, its journal writes
// still land (the trigger keeping history_entries writes with the
// schema owner's rights, not the writer's), and the derived rows are
// kept. Without that, upgrading one machine would stop every run of a
// role nobody granted the new table.
func TestJournalWriterGrantedTheEarlierTables(t *testing.T) {
	t.Parallel()
	admin, server, schema := newStore(t)
	ctx := context.Background()
	writeJournal(t, admin, initRecord)

	writer := "bp_writer_" + strings.TrimPrefix(schema, "bp_test_")
	id, s := pgx.Identifier{writer}.Sanitize(), pgx.Identifier{schema}.Sanitize()
	pgtest.Exec(t, server, "CREATE ROLE "+id+" LOGIN")
	t.Cleanup(func() {
		pgtest.Exec(t, server, "DROP OWNED BY "+id)
		pgtest.Exec(t, server, "DROP ROLE "+id)
	})
	pgtest.Exec(t, server, "GRANT USAGE ON SCHEMA "+s+" TO "+id)
	pgtest.Exec(t, server, fmt.Sprintf("GRANT SELECT, INSERT, UPDATE ON %[1]s.plans, %[1]s.journal, %[1]s.history_outcomes TO %[2]s", s, id))
	pgtest.Exec(t, server, fmt.Sprintf("GRANT SELECT ON %s.schema_version TO %s", s, id))

	u, err := url.Parse(pgtest.ServerURL(t))
	require.NoError(t, err)
	u.User = url.User(writer)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	cfg, err := postgres.ParseURL(u.String(), "", false)
	require.NoError(t, err)
	w := postgres.New(cfg)

	l, err := w.Lock(ctx, state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	require.NoError(t, l.Append(2, []byte(`{"serial":2,"lineage":"ab","op":"created","label":"bp:card:b1:0123456789ab"}`)))
	require.NoError(t, l.Append(3, []byte(`{"serial":3,"lineage":"ab","op":"creating","label":"bp:card:b2:0123456789ab"}`)))
	require.NoError(t, l.Release())

	var label string
	pgtest.Query(t, server, fmt.Sprintf("SELECT label FROM %s.history_entries WHERE serial = 2", s), nil, &label)
	require.Equal(t, "bp:card:b1:0123456789ab", label)
}

// An account kept apart from the others in a schema of its own: its role
// owns the schema and may create nothing else in the database, yet
// migrates the schema and writes its journal; another account's role,
// granted nothing, reads none of it.
func TestAccountInASchemaOfItsOwn(t *testing.T) {
	t.Parallel()
	server := pgtest.ServerURL(t)
	_, schema := pgtest.Schema(t)
	suffix := strings.TrimPrefix(schema, "bp_test_")
	owner, other := "bp_owner_"+suffix, "bp_other_"+suffix
	for _, role := range []string{owner, other} {
		id := pgx.Identifier{role}.Sanitize()
		pgtest.Exec(t, server, "CREATE ROLE "+id+" LOGIN")
		t.Cleanup(func() {
			pgtest.Exec(t, server, "DROP OWNED BY "+id)
			pgtest.Exec(t, server, "DROP ROLE "+id)
		})
	}
	pgtest.Exec(t, server, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()+" AUTHORIZATION "+pgx.Identifier{owner}.Sanitize())
	as := func(role string) *postgres.Store {
		u, err := url.Parse(server)
		require.NoError(t, err)
		u.User = url.User(role)
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		cfg, err := postgres.ParseURL(u.String(), "", false)
		require.NoError(t, err)
		return postgres.New(cfg)
	}

	writeJournal(t, as(owner), initRecord, `{"serial":2,"lineage":"ab","op":"created","label":"bp:card:b1:0123456789ab"}`)
	var n int
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.journal", pgx.Identifier{schema}.Sanitize()), nil, &n)
	require.Equal(t, 2, n)

	_, err := as(other).Lock(context.Background(), state.LockRequest{PlanKey: key})
	require.ErrorContains(t, err, "permission denied for schema")
}
