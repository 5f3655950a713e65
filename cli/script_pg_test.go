package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/betplan/betplan/state/postgres/pgtest"
)

// Scripts that run on both stores reach the test's PostgreSQL server:
// the condition [pg] says whether one answers (under CI=true it must),
// `pgstate VAR` gives the script a fresh schema of its own as $VAR, a
// --state URL, and `pgexec VAR SQL` runs a statement there as the
// administrator, to place what a run would never write.

// pgServer is the test server's URL, and whether it answers.
func pgServer() (string, bool) {
	u := os.Getenv(pgtest.EnvURL)
	if u == "" {
		u = pgtest.DefaultURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return u, false
	}
	conn.Close(ctx)
	return u, true
}

// scriptCondition answers the scripts' own conditions: [pg] (also
// spelled [postgres]), a PostgreSQL test server answers; [https443], this
// process can listen on 127.0.0.1:443.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "https443":
		return canListen443()
	case "pg", "postgres":
	default:
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	u, ok := pgServer()
	if !ok && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("no PostgreSQL server answers at %s (%s) and CI=true", u, pgtest.EnvURL)
	}
	return ok, nil
}

// cmdPGState is `pgstate VAR`: a schema of the test server no one has
// used, dropped when the script ends; $VAR is the --state URL naming it.
func cmdPGState(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pgstate VAR")
	}
	server, ok := pgServer()
	if !ok {
		ts.Fatalf("pgstate: no PostgreSQL server answers at %s: guard the script with [!pg] skip", server)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "bp_script_" + hex.EncodeToString(b[:])
	ts.Defer(func() { pgExec(ts, server, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE") })
	u, err := url.Parse(server)
	ts.Check(err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	ts.Setenv(args[0], u.String())
	ts.Setenv(args[0]+"_SCHEMA", schema)
}

// cmdPGExec is `pgexec VAR SQL...`: the statement (the arguments joined
// by spaces) run on the schema $VAR names.
func cmdPGExec(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: pgexec VAR SQL...")
	}
	pgExec(ts, ts.Getenv(args[0]), strings.Join(args[1:], " "))
}

func pgExec(ts *testscript.TestScript, server, sql string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		ts.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, sql)
	if err != nil {
		ts.Fatalf("%s: %v", sql, err)
	}
	ts.Logf("%s", tag)
}
