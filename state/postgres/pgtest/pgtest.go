// Package pgtest gives tests a fresh schema on a real PostgreSQL server:
// BETPLAN_TEST_DATABASE_URL, or the local one at DefaultURL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server our machines run (trust authentication).
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test"

// EnvURL names the variable that points the tests at another server.
const EnvURL = "BETPLAN_TEST_DATABASE_URL"

// ServerURL is the test server's URL. When no server answers the test is
// skipped, saying how to provide one; under CI=true it fails instead.
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		u = DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		msg := "no PostgreSQL server answers at " + EnvURL + " (default " + DefaultURL + "); start one (see .ci/postgres) or set " + EnvURL
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v", msg, err)
		}
		t.Skipf("%s: %v", msg, err)
	}
	conn.Close(ctx)
	return u
}

// Schema names a schema of the test server no one has used, and drops it
// when the test ends. It returns the server's URL with the schema as its
// search_path, and the schema's name.
func Schema(t testing.TB) (stateURL, schema string) {
	t.Helper()
	server := ServerURL(t)
	var b [6]byte
	rand.Read(b[:])
	schema = "bp_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() { Exec(t, server, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), schema
}

// Exec runs one statement on the server as the test's administrator.
func Exec(t testing.TB, server, sql string, args ...any) {
	t.Helper()
	onServer(t, server, sql, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, sql, args...)
		return err
	})
}

// Query runs one query on the server and scans its single row into dest.
func Query(t testing.TB, server, sql string, args []any, dest ...any) {
	t.Helper()
	onServer(t, server, sql, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, sql, args...).Scan(dest...)
	})
}

// onServer runs do on a connection of its own to the server, failing the
// test with sql and the error if it cannot connect or do fails.
func onServer(t testing.TB, server, sql string, do func(ctx context.Context, conn *pgx.Conn) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("connect to %s: %v", server, err)
	}
	defer conn.Close(ctx)
	if err := do(ctx, conn); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
