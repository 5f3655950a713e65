package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		name, raw, schema string
		insecure          bool
		want              string // the store's name, password removed
		err               string
	}{
		{name: "loopback", raw: "postgres://postgres@127.0.0.1:5432/test", want: "postgres://postgres@127.0.0.1:5432/test (schema betplan)"},
		{name: "postgresql scheme", raw: "postgresql://u@localhost/db", want: "postgresql://u@localhost/db (schema betplan)"},
		{name: "password removed", raw: "postgres://u:s3cret@127.0.0.1/db", want: "postgres://u:xxxxx@127.0.0.1/db (schema betplan)"},
		{name: "search_path", raw: "postgres://u@127.0.0.1/db?search_path=plans_prod", want: "postgres://u@127.0.0.1/db (schema plans_prod)"},
		{name: "flag wins", raw: "postgres://u@127.0.0.1/db?search_path=plans_prod", schema: "other", want: "postgres://u@127.0.0.1/db (schema other)"},
		{name: "remote requires TLS by default", raw: "postgres://u:pw@db.example.com/db", want: "postgres://u:xxxxx@db.example.com/db (schema betplan)"},
		{name: "remote verify-full", raw: "postgres://u@db.example.com/db?sslmode=verify-full", want: "postgres://u@db.example.com/db (schema betplan)"},
		{name: "remote disable insecure", raw: "postgres://u@db.example.com/db?sslmode=disable", insecure: true, want: "postgres://u@db.example.com/db (schema betplan)"},

		{name: "other scheme", raw: "mysql://u:s3cret@127.0.0.1/db", err: `want a postgres:// or postgresql:// URL, not "mysql://"`},
		{name: "no scheme", raw: "127.0.0.1:5432", err: "want a postgres:// or postgresql:// URL, not a value with no scheme"},
		{name: "no host", raw: "postgres://u:s3cret@/db", err: "postgres://u:xxxxx@/db names no host"},
		{name: "bad port", raw: "postgres://u:s3cret@127.0.0.1:99999/db", err: `bad port "99999"`},
		{name: "unparsable port", raw: "postgres://u:s3cret@127.0.0.1:5x/db", err: `invalid port ":5x" after host`},
		{name: "empty port", raw: "postgres://u:s3cret@127.0.0.1:/db", err: `bad port ""`},
		{name: "several hosts", raw: "postgres://u@h1,h2/db", err: "several hosts"},
		{name: "host in query", raw: "postgres://u@127.0.0.1/db?host=db.example.com", err: "not in ?host="},
		{name: "remote disable", raw: "postgres://u:s3cret@db.example.com/db?sslmode=disable", err: "sslmode=disable would let the password and the journal cross the network to db.example.com in clear"},
		{name: "remote prefer", raw: "postgres://u@db.example.com/db?sslmode=prefer", err: "sslmode=prefer would let"},
		{name: "bad schema", raw: "postgres://u@127.0.0.1/db?search_path=Plans", err: `schema "Plans": use lower-case letters`},
		{name: "bad query", raw: "postgres://u:s3cret@127.0.0.1/db?search_path=a;drop", err: "the parameters after ? do not parse"},
		{name: "bad escape in password", raw: "postgres://u:s3%zzcret@127.0.0.1/db", err: "does not parse as a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := postgres.ParseURL(tt.raw, tt.schema, tt.insecure)
			if tt.err != "" {
				require.Error(t, err)
				var ue *postgres.URLError
				require.ErrorAs(t, err, &ue)
				assert.Contains(t, err.Error(), tt.err)
				assert.NotContains(t, err.Error(), "s3cret")
				assert.NotContains(t, err.Error(), "zzcret")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.String())
		})
	}
}

// newStore is a store in a fresh schema of the test server, and the
// server's URL for the test's own statements.
func newStore(t *testing.T) (*postgres.Store, string, string) {
	t.Helper()
	url, schema := pgtest.Schema(t)
	cfg, err := postgres.ParseURL(url, "", false)
	require.NoError(t, err)
	s := postgres.New(cfg)
	s.WatchEvery = 20 * time.Millisecond
	return s, pgtest.ServerURL(t), schema
}

var key = state.PlanKey{Name: "card", BaseURL: "https://betting.example.com"}

// writeJournal takes the lock of the plan key on s, as a run does (which
// brings the schema to SchemaVersion), appends records from serial 1,
// and lets the lock go.
func writeJournal(t *testing.T, s *postgres.Store, records ...string) {
	t.Helper()
	l, err := s.Lock(context.Background(), state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	for i, r := range records {
		require.NoError(t, l.Append(int64(i+1), []byte(r)))
	}
	require.NoError(t, l.Release())
}

// initRecord begins a journal.
const initRecord = `{"serial":1,"lineage":"ab","op":"init"}`

func TestMigrationByManyAtOnce(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := key
			k.Name = fmt.Sprintf("card-%d", i)
			l, err := s.Lock(ctx, state.LockRequest{PlanKey: k, Owner: state.LockOwner{PID: i + 1}})
			if err == nil {
				err = errors.Join(l.Append(1, []byte(`{"serial":1,"op":"init"}`)), l.Release())
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "run %d", i)
	}
	var versions, top int
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*), max(version) FROM %s.schema_version", schema), nil, &versions, &top)
	assert.Equal(t, postgres.SchemaVersion, versions, "each migration ran once")
	assert.Equal(t, postgres.SchemaVersion, top)
	var rows int
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.journal", schema), nil, &rows)
	assert.Equal(t, 8, rows, "one journal begun per plan")
}

func TestNewerSchemaIsRefused(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	writeJournal(t, s)
	pgtest.Exec(t, server, fmt.Sprintf("INSERT INTO %s.schema_version (version) VALUES ($1)", schema), postgres.SchemaVersion+1)

	want := fmt.Sprintf("schema %s is at version %d, newer than this betplan knows (%d): upgrade betplan", schema, postgres.SchemaVersion+1, postgres.SchemaVersion)
	_, err := s.Lock(ctx, state.LockRequest{PlanKey: key})
	var unavailable *state.StateUnavailableError
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, err.Error(), want)
	_, err = s.ReadLog(ctx, key)
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, err.Error(), want)
}

func TestReadersWriteNothing(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	records, err := s.ReadLog(context.Background(), key)
	require.NoError(t, err)
	assert.Empty(t, records)
	var n int
	pgtest.Query(t, server, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", []any{schema}, &n)
	assert.Zero(t, n, "status and plan never create the schema")
}

// The watcher notices a dead lock connection between writes.
func TestLostConnectionIsNoticed(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	l, err := s.Lock(context.Background(), state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	defer l.Release()
	var backend int
	pgtest.Query(t, server, fmt.Sprintf("SELECT holder_backend FROM %s.plans", schema), nil, &backend)
	pgtest.Exec(t, server, "SELECT pg_terminate_backend($1)", backend)
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("a terminated lock connection went unnoticed")
	}
	assert.Contains(t, l.Err().Error(), "lost the plan's lock: the connection that holds it failed")
	// Its lock is free: another run takes it at once.
	l2, err := s.Lock(context.Background(), state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	l2.Release()
}

// A database that does not answer is a refusal that names it without its
// password.
func TestUnreachableNamesNoPassword(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg, err := postgres.ParseURL("postgres://postgres:s3cret@"+addr+"/test", "", false)
	require.NoError(t, err)
	_, err = postgres.New(cfg).Lock(context.Background(), state.LockRequest{PlanKey: key})
	var unavailable *state.StateUnavailableError
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, err.Error(), "postgres://postgres:xxxxx@"+addr+"/test")
	assert.NotContains(t, err.Error(), "s3cret")
}

func TestHolderIsRecorded(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	since := time.Date(2026, 11, 21, 1, 2, 3, 0, time.UTC)
	l, err := s.Lock(context.Background(), state.LockRequest{PlanKey: key,
		Owner: state.LockOwner{PID: 4242, Host: "runner-7", PlanFile: "card.yaml", Command: "betplan run", Since: since}})
	require.NoError(t, err)
	defer l.Release()
	var pid, backend int
	var host, command string
	var epoch int64
	pgtest.Query(t, server, fmt.Sprintf("SELECT holder_pid, holder_host, holder_command, holder_backend, epoch FROM %s.plans", schema), nil,
		&pid, &host, &command, &backend, &epoch)
	assert.Equal(t, 4242, pid)
	assert.Equal(t, "runner-7", host)
	assert.Equal(t, "betplan run", command)
	assert.NotZero(t, backend)
	assert.Equal(t, int64(1), epoch, "the first lock is epoch 1")
	var held bool
	pgtest.Query(t, server, "SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND pid = $1", []any{backend}, &held)
	assert.True(t, held, "the advisory lock is on the holder's own session")
	var app string
	pgtest.Query(t, server, "SELECT application_name FROM pg_stat_activity WHERE pid = $1", []any{backend}, &app)
	assert.Equal(t, "betplan", app)
}

// A plan's row an earlier betplan keyed by the base URL as spelled is found
// under the service's identity, and taken over by the first lock: its
// journal is never lost on an upgrade. Two such rows are refused.
func TestRowsKeyedBySpellingAreFound(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	old := state.PlanKey{Name: "card", BaseURL: "http://localhost:8080"}
	l, err := s.Lock(ctx, state.LockRequest{PlanKey: old})
	require.NoError(t, err)
	require.NoError(t, l.Append(1, []byte(`{"serial":1,"lineage":"ab","op":"init"}`)))
	require.NoError(t, l.Release())
	pgtest.Exec(t, server, fmt.Sprintf("UPDATE %s.plans SET base_url = $1", schema), old.BaseURL)

	now := state.PlanKey{Name: "card", BaseURL: "http://127.0.0.1:8080"}
	records, err := s.ReadLog(ctx, now)
	require.NoError(t, err)
	assert.Len(t, records, 1, "the journal kept under the old spelling is the plan's")
	l, err = s.Lock(ctx, state.LockRequest{PlanKey: now})
	require.NoError(t, err)
	assert.Len(t, l.Records(), 1, "one journal, found under the new key")
	require.NoError(t, l.Release())
	var base string
	pgtest.Query(t, server, fmt.Sprintf("SELECT base_url FROM %s.plans", schema), nil, &base)
	assert.Equal(t, "http://127.0.0.1:8080", base, "re-keyed by the service's identity")

	pgtest.Exec(t, server, fmt.Sprintf("INSERT INTO %s.plans (name, base_url) VALUES ('card', 'http://LOCALHOST:8080'), ('card', 'http://localhost:8080/')", schema))
	pgtest.Exec(t, server, fmt.Sprintf("DELETE FROM %s.journal", schema))
	pgtest.Exec(t, server, fmt.Sprintf("DELETE FROM %s.plans WHERE base_url = 'http://127.0.0.1:8080'", schema))
	_, err = s.Lock(ctx, state.LockRequest{PlanKey: now})
	var unavailable *state.StateUnavailableError
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, err.Error(), "2 journals for one service")
}

// The account's plans are the plans of one service: another service's
// journal in the same schema is not read, a row an earlier betplan keyed
// by the base URL as spelled is.
func TestReadAccountIsTheServicesPlans(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	for _, k := range []state.PlanKey{key, {Name: "elsewhere", BaseURL: "https://other.example.com"}, {Name: "legacy", BaseURL: key.BaseURL}} {
		l, err := s.Lock(ctx, state.LockRequest{PlanKey: k})
		require.NoError(t, err)
		require.NoError(t, l.Append(1, []byte(`{"serial":1,"op":"init"}`)))
		require.NoError(t, l.Release())
	}
	pgtest.Exec(t, server, fmt.Sprintf("UPDATE %s.plans SET base_url = 'https://Betting.Example.com:443/' WHERE name = 'legacy'", schema))
	logs, err := s.ReadAccount(ctx, key.Service())
	require.NoError(t, err)
	var names []string
	for _, l := range logs {
		names = append(names, l.Name)
		assert.Len(t, l.Records, 1, l.Name)
	}
	assert.Equal(t, []string{"card", "legacy"}, names)
}

// A record is bounded: one over state.MaxRecord is never written (and the
// lock is kept), and one found in the table is refused like a damaged
// journal line, by every reader, without being sent whole.
func TestRecordOverTheBound(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	l, err := s.Lock(ctx, state.LockRequest{PlanKey: key})
	require.NoError(t, err)
	require.NoError(t, l.Append(1, []byte(`{"serial":1,"lineage":"ab","op":"init"}`)))
	big := []byte(`{"serial":2,"op":"note","error":"` + strings.Repeat("x", state.MaxRecord) + `"}`)
	var tooLong *state.RecordTooLongError
	require.ErrorAs(t, l.Append(2, big), &tooLong)
	require.NoError(t, l.Append(2, []byte(`{"serial":2,"lineage":"ab","op":"doubt_settled"}`)), "the lock is kept")
	require.NoError(t, l.Release())

	pgtest.Exec(t, server, fmt.Sprintf("INSERT INTO %[1]s.journal (plan_id, serial, entry, epoch) SELECT id, 3, jsonb_build_object('op', 'note', 'error', repeat('x', %d)), epoch FROM %[1]s.plans", schema, 3*state.MaxRecord))
	var bad *state.BadJournalError
	_, err = s.ReadLog(ctx, key)
	require.ErrorAs(t, err, &bad)
	assert.Contains(t, err.Error(), "record 3 is longer than any record betplan writes")
	_, err = s.Lock(ctx, state.LockRequest{PlanKey: key})
	require.ErrorAs(t, err, &bad)
	_, err = s.ReadAccount(ctx, key.Service())
	require.ErrorAs(t, err, &bad)

	// history asks for some ops only: the journal does not read still.
	read := 0
	require.NoError(t, s.ReadEvery(ctx, []string{"init"}, func(j state.StoredJournal) error {
		read++
		err := j.Read(func([]byte) error { return nil })
		require.ErrorAs(t, err, &bad)
		assert.Contains(t, err.Error(), "record 3 is longer than any record betplan writes")
		return nil
	}))
	assert.Equal(t, 1, read)
	// So does it read by rows (schema version 4).
	read = 0
	ok, err := s.ReadOutcomeRows(ctx, func(j state.StoredJournal) error {
		read++
		err := j.Rows(state.JournalRows{Record: func([]byte) error { return nil }})
		require.ErrorAs(t, err, &bad)
		assert.Contains(t, err.Error(), "record 3 is longer than any record betplan writes")
		return nil
	})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 1, read)
}

// A schema an earlier betplan made (version 2, before the outcome cache):
// reading the cache finds none and writes nothing; keeping one brings the
// schema to the version with its table, the journals untouched.
func TestOutcomeCacheOnAnEarlierSchema(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	writeJournal(t, s, initRecord)
	pgtest.Exec(t, server, fmt.Sprintf("DROP TABLE %[1]s.history_outcomes; DELETE FROM %[1]s.schema_version WHERE version > 2", schema))

	n := 0
	require.NoError(t, s.ReadOutcomes(ctx, func(string, string, []byte) error { n++; return nil }))
	assert.Zero(t, n)
	var top int
	pgtest.Query(t, server, fmt.Sprintf("SELECT max(version) FROM %s.schema_version", schema), nil, &top)
	assert.Equal(t, 2, top, "a read migrates nothing")

	require.NoError(t, s.KeepOutcomes(ctx, []state.KeptOutcome{{Label: "bp:card:b1:1", Outcome: []byte(`{"result":"won","profit":3.5}`)}}))
	pgtest.Query(t, server, fmt.Sprintf("SELECT max(version) FROM %s.schema_version", schema), nil, &top)
	assert.Equal(t, postgres.SchemaVersion, top)
	var label, outcome string
	pgtest.Query(t, server, fmt.Sprintf("SELECT label, outcome::text FROM %s.history_outcomes", schema), nil, &label, &outcome)
	assert.Equal(t, "bp:card:b1:1", label)
	assert.JSONEq(t, `{"result":"won","profit":3.5}`, outcome)
	records, err := s.ReadLog(ctx, key)
	require.NoError(t, err)
	require.Len(t, records, 1, "the journal as it was")
	assert.JSONEq(t, `{"serial":1,"lineage":"ab","op":"init"}`, string(records[0]))
}

// An outcome kept at version 3, by label alone, is kept by version 4 with
// no service (history uses it for a bet of that label on any service
// that has none of its own), beside one kept for a service.
func TestOutcomeCacheKeptBeforeVersion4(t *testing.T) {
	t.Parallel()
	s, server, schema := newStore(t)
	ctx := context.Background()
	writeJournal(t, s)
	pgtest.Exec(t, server, fmt.Sprintf(`ALTER TABLE %[1]s.history_outcomes DROP CONSTRAINT history_outcomes_pkey;
		ALTER TABLE %[1]s.history_outcomes DROP COLUMN service; ALTER TABLE %[1]s.history_outcomes ADD PRIMARY KEY (label);
		INSERT INTO %[1]s.history_outcomes (label, outcome) VALUES ('bp:card:b1:1', '{"result":"won"}');
		DELETE FROM %[1]s.schema_version WHERE version > 3`, schema))
	type kept struct{ service, label, outcome string }
	read := func() []kept {
		var out []kept
		require.NoError(t, s.ReadOutcomes(ctx, func(service, label string, outcome []byte) error {
			out = append(out, kept{service, label, string(outcome)})
			return nil
		}))
		return out
	}
	assert.Equal(t, []kept{{"", "bp:card:b1:1", `{"result": "won"}`}}, read(), "version 3")

	require.NoError(t, s.KeepOutcomes(ctx, []state.KeptOutcome{{Service: key.Service(), Label: "bp:card:b1:1", Outcome: []byte(`{"result":"lost"}`)}}))
	var top int
	pgtest.Query(t, server, fmt.Sprintf("SELECT max(version) FROM %s.schema_version", schema), nil, &top)
	assert.Equal(t, postgres.SchemaVersion, top)
	assert.Equal(t, []kept{{"", "bp:card:b1:1", `{"result": "won"}`}, {key.Service(), "bp:card:b1:1", `{"result": "lost"}`}}, read())
}

// history reads every journal along the journal's key (plan id, serial),
// so the server sorts nothing, and each comes with its place in the
// plans' name order: a plan made first with a later name comes later.
func TestReadEveryPlacesJournalsByName(t *testing.T) {
	t.Parallel()
	s, _, _ := newStore(t)
	ctx := context.Background()
	for _, name := range []string{"zulu", "alpha", "mike"} {
		l, err := s.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: name, BaseURL: key.BaseURL}})
		require.NoError(t, err)
		require.NoError(t, l.Append(1, []byte(`{"serial":1,"lineage":"ab","op":"init"}`)))
		require.NoError(t, l.Release())
	}
	got := map[int]string{}
	require.NoError(t, s.ReadEvery(ctx, []string{"init"}, func(j state.StoredJournal) error {
		got[j.Seq] = j.Name
		return j.Read(func([]byte) error { return nil })
	}))
	assert.Equal(t, map[int]string{0: "alpha", 1: "mike", 2: "zulu"}, got)

	// So does the read by rows (schema version 4), which reads along
	// plan ids.
	got = map[int]string{}
	ok, err := s.ReadOutcomeRows(ctx, func(j state.StoredJournal) error {
		got[j.Seq] = j.Name
		return j.Rows(state.JournalRows{Record: func([]byte) error { return nil }})
	})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, map[int]string{0: "alpha", 1: "mike", 2: "zulu"}, got)
}
