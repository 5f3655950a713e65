package budget_test

import (
	"context"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/budget"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// pgBudgets are n processes' budgets of acct at rps in a fresh schema;
// app names their connections, so a test can end them.
func pgBudgets(t *testing.T, n int, rps float64, say func(string)) (server, app string, lims []limiter) {
	t.Helper()
	stateURL, schema := pgtest.Schema(t)
	u, err := url.Parse(stateURL)
	require.NoError(t, err)
	q := u.Query()
	app = "bt_" + schema
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	cfg, err := postgres.ParseURL(u.String(), "", false)
	require.NoError(t, err)
	pgtest.Exec(t, pgtest.ServerURL(t), "CREATE SCHEMA "+schema) // as a run does
	acct := budget.AccountOf("http://127.0.0.1:1", "", "a@b.c")
	for range n {
		b, err := budget.NewPostgres(u.String(), cfg, acct, rps, say, budget.NewFile(t.TempDir(), acct, rps, say))
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		lims = append(lims, b)
	}
	return pgtest.ServerURL(t), app, lims
}

// Four machines' budgets in one database let the account's rate through,
// not four times it.
func TestPostgresSharesTheRate(t *testing.T) {
	_, _, lims := pgBudgets(t, 4, 20, func(msg string) { t.Errorf("fell back: %s", msg) })
	start := time.Now()
	at := spend(t, lims, 8) // 32 requests at 20/s: 1.55s at least
	assert.GreaterOrEqual(t, time.Since(start), 1500*time.Millisecond)
	assert.LessOrEqual(t, busiest(at, time.Second), 22, "requests in one second at 20/s")
}

// When the database goes away mid-run, each process keeps to its share
// of the rate among the processes that spent it lately, and says so
// once: together they still keep to the rate.
func TestPostgresFallsBackToAShare(t *testing.T) {
	var mu sync.Mutex
	var said []string
	server, app, lims := pgBudgets(t, 4, 20, func(msg string) {
		mu.Lock()
		said = append(said, msg)
		mu.Unlock()
	})
	// Every process spends the budget for a while, so each knows the
	// others: all of them once, then a few more each.
	spend(t, lims, 1)
	var wg sync.WaitGroup
	for _, l := range lims {
		wg.Go(func() {
			for range 3 {
				assert.NoError(t, l.Wait(context.Background()))
			}
		})
	}
	wg.Wait()
	require.Empty(t, said)
	pgtest.Exec(t, server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app)

	start := time.Now()
	at := spend(t, lims, 6) // 24 requests; at each one's share, 5/s each
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "%d requests let through", len(at))
	assert.LessOrEqual(t, busiest(at, time.Second), 22, "requests in one second at 20/s after the fall back")
	require.Len(t, said, 4, "each process says so once")
	for _, s := range said {
		t.Log(s)
		assert.Contains(t, s, "is out of reach")
		assert.Contains(t, s, "keeps to 5/s by itself, its share of 20/s among about 4 processes, and tries the database again every 30s")
	}
}

// The password of the --state URL never shows in what the budget says.
func TestPostgresNeverShowsThePassword(t *testing.T) {
	raw := "postgres://betplan:s3cret-pw@127.0.0.1:1/nowhere?connect_timeout=1"
	cfg, err := postgres.ParseURL(raw, "", false)
	require.NoError(t, err)
	var said []string
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	say := func(msg string) { said = append(said, msg) }
	b, err := budget.NewPostgres(raw, cfg, acct, 20, say, budget.NewFile(t.TempDir(), acct, 20, say))
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Wait(context.Background()))
	require.Len(t, said, 1)
	assert.Contains(t, said[0], "out of reach")
	assert.Contains(t, said[0], "keeps to 10/s", "a process that knows nothing of its peers takes half")
	assert.NotContains(t, said[0], "s3cret-pw")
}

// In a database no run has set up, a budget creates nothing: the process
// spends the host's budget until a run makes the schema, then the
// database's.
func TestPostgresWaitsForTheSchema(t *testing.T) {
	defer func(d time.Duration) { budget.SchemaRecheck = d }(budget.SchemaRecheck)
	budget.SchemaRecheck = 200 * time.Millisecond
	stateURL, schema := pgtest.Schema(t)
	server := pgtest.ServerURL(t)
	cfg, err := postgres.ParseURL(stateURL, "", false)
	require.NoError(t, err)
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	dir := t.TempDir()
	b, err := budget.NewPostgres(stateURL, cfg, acct, 20, func(msg string) { t.Errorf("said: %s", msg) }, budget.NewFile(dir, acct, 20, nil))
	require.NoError(t, err)
	defer b.Close()
	spend(t, []limiter{b}, 3)
	var exists bool
	pgtest.Query(t, server, "SELECT to_regnamespace($1) IS NOT NULL", []any{schema}, &exists)
	assert.False(t, exists, "the budget made no schema")
	_, err = os.Stat(budget.FilePath(dir, acct))
	assert.NoError(t, err, "the host's budget was spent")

	pgtest.Exec(t, server, "CREATE SCHEMA "+schema)
	time.Sleep(budget.SchemaRecheck)
	spend(t, []limiter{b}, 3)
	var rows int
	pgtest.Query(t, server, "SELECT count(*) FROM "+schema+"."+budget.Table, nil, &rows)
	assert.Equal(t, 1, rows, "the account's row, once the schema exists")
}

// When the database comes back after a fall back, each process spends
// the shared budget again and says so; while it is away, the processes
// keep to their shares and say nothing more; through it all, together
// they never pass the rate.
func TestPostgresReturnsToTheSharedBudget(t *testing.T) {
	defer func(d time.Duration) { budget.SharedRetry = d }(budget.SharedRetry)
	budget.SharedRetry = 300 * time.Millisecond
	stateURL, schema := pgtest.Schema(t)
	server := pgtest.ServerURL(t)
	pgtest.Exec(t, server, "CREATE SCHEMA "+schema) // as a run does
	u, err := url.Parse(stateURL)
	require.NoError(t, err)
	proxy := pgtest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	cfg, err := postgres.ParseURL(u.String(), "", false)
	require.NoError(t, err)

	var mu sync.Mutex
	var said []string
	say := func(msg string) {
		mu.Lock()
		said = append(said, msg)
		mu.Unlock()
	}
	saying := func(part string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range said {
			if strings.Contains(s, part) {
				n++
			}
		}
		return n
	}
	acct := budget.AccountOf("http://127.0.0.1:1", "", "a@b.c")
	var lims []limiter
	for range 2 {
		b, err := budget.NewPostgres(u.String(), cfg, acct, 20, say, budget.NewFile(t.TempDir(), acct, 20, say))
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		lims = append(lims, b)
	}
	var all []time.Time
	all = append(all, spend(t, lims, 3)...)
	require.Zero(t, saying(""), "said %v", said)

	proxy.Drop()
	all = append(all, spend(t, lims, 3)...)
	require.Equal(t, 2, saying("is out of reach"), "each process says so once: %v", said)
	assert.Equal(t, 2, saying("tries the database again every 300ms"))
	// Tried again while still away: nothing more is said, the shares hold.
	time.Sleep(2 * budget.SharedRetry)
	all = append(all, spend(t, lims, 3)...)
	time.Sleep(budget.SharedRetry / 2) // a try under way ends
	assert.Zero(t, saying("answers again"), "said %v", said)

	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for saying("answers again") < 2 && time.Now().Before(deadline) {
		all = append(all, spend(t, lims, 1)...)
		time.Sleep(50 * time.Millisecond)
	}
	require.Equal(t, 2, saying("answers again"), "each process says it is back: %v", said)
	sent := proxy.Sent()
	all = append(all, spend(t, lims, 4)...)
	assert.Greater(t, proxy.Sent(), sent, "the requests go through the database again")
	var rows int
	pgtest.Query(t, server, "SELECT count(*) FROM "+schema+"."+budget.Table, nil, &rows)
	assert.Equal(t, 1, rows)
	slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
	assert.LessOrEqual(t, busiest(all, time.Second), 22, "requests in one second at 20/s, before, during and after")
	for _, s := range said {
		t.Log(s)
	}
}
