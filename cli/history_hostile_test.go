package cli

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/postgres"
)

// cmdCSVFields is `csvfields FILE N`: FILE parses as CSV, with N fields
// on every row, the header's included.
func cmdCSVFields(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: csvfields FILE N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	r := csv.NewReader(strings.NewReader(ts.ReadFile(args[0])))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		ts.Fatalf("csvfields: %s does not parse as CSV: %v", args[0], err)
	}
	if len(rows) < 2 {
		ts.Fatalf("csvfields: %s has %d rows, want a header and rows", args[0], len(rows))
	}
	for i, row := range rows {
		if len(row) != want {
			ts.Fatalf("csvfields: row %d of %s has %d fields, want %d: %q", i+1, args[0], len(row), want, row)
		}
	}
}

// cmdPGJournal is `pgjournal VAR PLAN FILE`: FILE's lines are kept, as
// they are, as the journal of a plan named PLAN (a JSON string, so it may
// hold any character) in a fresh schema of the test server, written there
// with SQL as another tool or a hand edit would; VAR is set to the state's
// URL for --state. The schema is dropped when the script ends.
func cmdPGJournal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: pgjournal VAR PLAN FILE")
	}
	var name string
	ts.Check(json.Unmarshal([]byte(args[1]), &name))
	server, ok := pgServer()
	if !ok {
		ts.Fatalf("pgjournal: no PostgreSQL server answers at %s", server)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "bp_test_" + hex.EncodeToString(b[:])
	u, err := url.Parse(server)
	ts.Check(err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	stateURL := u.String()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	ts.Check(err)
	defer conn.Close(ctx)
	ts.Defer(func() {
		if c, err := pgx.Connect(context.Background(), server); err == nil {
			c.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
			c.Close(context.Background())
		}
	})
	// A run's lock makes the schema and the plan's row; the rest is SQL.
	cfg, err := postgres.ParseURL(stateURL, "", false)
	ts.Check(err)
	lease, err := postgres.New(cfg).Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: "placeholder", BaseURL: "https://api.example.com"},
		Owner: state.LockOwner{PID: 1, Host: "test"}})
	ts.Check(err)
	ts.Check(lease.Release())
	var id, epoch int64
	ts.Check(conn.QueryRow(ctx, "UPDATE "+pgx.Identifier{schema, "plans"}.Sanitize()+" SET name = $1 RETURNING id, epoch", name).Scan(&id, &epoch))
	var rows [][]any
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[2])))
	for sc.Scan() {
		rows = append(rows, []any{id, int64(len(rows) + 1), sc.Text(), epoch})
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{schema, "journal"}, []string{"plan_id", "serial", "entry", "epoch"}, pgx.CopyFromRows(rows))
	ts.Check(err)
	ts.Setenv(args[0], stateURL)
}

// cmdNoControl is `nocontrol FILE`: FILE is UTF-8 with no control
// character but its line ends: nothing in it can move a terminal's
// cursor, retitle it or clear it.
func cmdNoControl(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: nocontrol FILE")
	}
	s := ts.ReadFile(args[0])
	if !utf8.ValidString(s) {
		ts.Fatalf("nocontrol: %s is not UTF-8", args[0])
	}
	for i, r := range s {
		if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
			ts.Fatalf("nocontrol: %s has %U at byte %d: %q", args[0], r, i, s[max(0, i-20):min(len(s), i+20)])
		}
	}
}

// cmdMarkdownTable is `mdtable FILE`: the first table of the Markdown in
// FILE has on every row as many cells as its header, and ends only at a
// blank line, so no text in a cell forged a cell or a row. Cells split
// as GitHub's tables split them: at a pipe not escaped by a backslash.
func cmdMarkdownTable(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mdtable FILE")
	}
	cells := func(line string) int {
		n := 0
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++ // the escaped character
			case '|':
				n++
			}
		}
		return n - 1
	}
	lines := strings.Split(ts.ReadFile(args[0]), "\n")
	start := 0
	for start < len(lines) && !strings.HasPrefix(lines[start], "|") {
		start++
	}
	if start == len(lines) {
		ts.Fatalf("mdtable: no table in %s", args[0])
	}
	want := cells(lines[start])
	rows := 0
	for _, l := range lines[start:] {
		if l == "" {
			break
		}
		if !strings.HasPrefix(l, "| ") || !strings.HasSuffix(l, " |") || cells(l) != want {
			ts.Fatalf("mdtable: %s: a row of the table is not %d cells: %q", args[0], want, l)
		}
		rows++
	}
	ts.Logf("mdtable: %d rows of %d cells", rows, want)
}
