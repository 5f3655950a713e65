package budget

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state/postgres"
)

// Postgres is an account's budget shared by the processes of every
// machine through one row of a PostgreSQL database: each request moves
// the row's TAT in one statement, by the database's clock (so the
// machines' clocks need not agree), and waits as long as it answers. One
// request costs one round trip; the connection is held for the run.
type Postgres struct {
	connString string // holds the password: never shown
	password   string
	where      string // the database, password hidden
	schema     string
	acct       Account
	every      time.Duration
	rps        float64
	say        func(string)

	// process names this process among the account's spenders.
	process string

	mu    sync.Mutex
	conn  *pgx.Conn
	ready bool // the tables exist
	// others is how many other processes spent the account's budget in
	// the last activeWindow, as of this process's last request.
	others int
	// tat is the account's TAT, by this machine's clock, as of this
	// process's last request.
	tat time.Time
	fb  fallback
	// local is the host's budget, spent until the schema exists.
	local   *File
	recheck time.Time // when to look for the schema again
	closed  bool      // Close was called: a probe opens nothing
}

// Tables are the budget's tables in the schema: the accounts' TATs, and
// which processes spent each lately.
const (
	Table      = "request_budget"
	PeersTable = "request_budget_peers"
)

const (
	// statementTimeout bounds one round trip: a database that does not
	// answer within it is out of reach.
	statementTimeout = 5 * time.Second
	// activeWindow is how recently a process must have spent the
	// account's budget to count as one that shares it.
	activeWindow = 30 * time.Second
)

// NewPostgres is acct's budget of rps requests per second in the database
// of the --state URL raw, which postgres.ParseURL checked as cfg. It
// connects on the first request. Until a run has set up the schema, the
// process spends local (not nil), the host's budget. When the database is out of
// reach, now or later, the process keeps to its share of the rate by
// itself and says so through say, trying the database again every
// SharedRetry; when it answers, the process spends it again and says so.
func NewPostgres(raw string, cfg *postgres.Config, acct Account, rps float64, say func(string), local *File) (*Postgres, error) {
	conn, err := connString(raw)
	if err != nil {
		return nil, err
	}
	var password string
	if u, err := url.Parse(raw); err == nil {
		password, _ = u.User.Password()
	}
	var id [8]byte
	rand.Read(id[:])
	return &Postgres{
		connString: conn, password: password, where: cfg.String(), schema: cfg.Schema(),
		acct: acct, every: interval(rps), rps: rps, say: say,
		process: hex.EncodeToString(id[:]), local: local,
	}, nil
}

// connString is the URL pgx connects with, settled as state/postgres settles it:
// the schema is named in every statement, not searched for; off loopback
// the connection is encrypted unless the URL says otherwise (which
// postgres.ParseURL allowed only with --insecure).
func connString(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("--state does not parse as a URL")
	}
	q := u.Query()
	q.Del("search_path")
	if q.Get("sslmode") == "" && !isLoopback(u.Hostname()) {
		q.Set("sslmode", "require")
	}
	if !q.Has("connect_timeout") {
		q.Set("connect_timeout", "5")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (b *Postgres) table(name string) string { return pgx.Identifier{b.schema, name}.Sanitize() }

// Wait takes the account's next free slot and waits for it.
func (b *Postgres) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l := b.fb.limiter(); l != nil {
		if b.fb.due() {
			// The request goes at its share's pace meanwhile: a database
			// still away costs it nothing.
			go b.probe()
		}
		return l.Wait(ctx)
	}
	wait, err := b.reserve(ctx)
	switch {
	case errors.Is(err, errNoSchema):
		return b.local.Wait(ctx)
	case err != nil:
		if l := b.fb.limiter(); l != nil {
			return l.Wait(ctx)
		}
		return err
	}
	slot := time.Now().Add(wait)
	if pastDeadline(ctx, slot) {
		return errPastDeadline // the slot is spent: the account loses it, no one exceeds it
	}
	if g := b.fb.gracePace(); g != nil {
		// Just back on the database: peers may still keep to their own
		// share, unseen by it, so this process keeps to its own too.
		if err := g.Wait(ctx); err != nil {
			return err
		}
	}
	return sleepUntil(ctx, slot)
}

// probe tries the database again after a fall back: a new connection and
// one round trip. When it answers, the process spends the shared budget
// again, and says so; else it stays on its share until the next try.
func (b *Postgres) probe() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.fb.limiter() == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), statementTimeout)
	defer cancel()
	err := b.connect(ctx)
	if err == nil {
		err = b.conn.Ping(ctx)
	}
	if err != nil {
		b.disconnect()
		return
	}
	b.fb.recover(b.say, fmt.Sprintf("request budget: the budget of %s shared in %s answers again: this run spends it with the account's other processes again",
		b.acct, b.where))
}

// reserve moves the account's TAT in one statement and returns how long
// to wait for the slot it took. A failure falls back (and returns the
// error); only the caller's ctx ending is not the database's fault.
func (b *Postgres) reserve(ctx context.Context) (time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.fb.limiter(); l != nil {
		return 0, errors.New("fell back")
	}
	if time.Now().Before(b.recheck) {
		return 0, errNoSchema
	}
	// The statement runs to its end even when the caller gives up, so the
	// connection is never torn down mid-statement.
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statementTimeout)
	defer cancel()
	if err := b.connect(qctx); err != nil {
		if errors.Is(err, errNoSchema) {
			b.recheck = time.Now().Add(SchemaRecheck)
			return 0, err
		}
		b.fail(err)
		return 0, err
	}
	var secs float64
	var others int
	err := b.conn.QueryRow(qctx, `WITH me AS (
			INSERT INTO `+b.table(PeersTable)+` AS p (base_url, account, process, seen)
			VALUES ($1, $2, $5, now())
			ON CONFLICT (base_url, account, process) DO UPDATE SET seen = now()
		)
		INSERT INTO `+b.table(Table)+` AS b (base_url, account, tat)
		VALUES ($1, $2, now() + $3 * interval '1 microsecond')
		ON CONFLICT (base_url, account) DO UPDATE SET
			tat = CASE WHEN b.tat > now() + $4 * interval '1 microsecond' THEN now()
				ELSE greatest(b.tat, now()) END + $3 * interval '1 microsecond'
		RETURNING extract(epoch FROM b.tat - $3 * interval '1 microsecond' - now())::float8,
			(SELECT count(*) FROM `+b.table(PeersTable)+` p WHERE p.base_url = $1 AND p.account = $2
				AND p.process <> $5 AND p.seen > now() - $6 * interval '1 microsecond')::int`,
		b.acct.BaseURL, b.acct.Name, b.every.Microseconds(), staleAfter(b.every).Microseconds(),
		b.process, activeWindow.Microseconds()).Scan(&secs, &others)
	if err != nil {
		b.fail(err)
		return 0, err
	}
	wait := time.Duration(secs * float64(time.Second))
	b.others, b.tat = others, time.Now().Add(wait+b.every)
	return wait, nil
}

// errNoSchema is a --state schema no run has set up yet.
var errNoSchema = errors.New("no betplan schema yet")

// SchemaRecheck is how often a budget whose schema does not exist yet
// looks again.
var SchemaRecheck = 10 * time.Second

// connect opens the connection and makes the tables, once, in a schema a
// run has set up: a command that only reads (status, doctor) creates
// nothing in a database betplan never used.
func (b *Postgres) connect(ctx context.Context) error {
	if b.conn == nil {
		cc, err := pgx.ParseConfig(b.connString)
		if err != nil {
			return errors.New("the --state URL is not one pgx can use")
		}
		if _, ok := cc.RuntimeParams["application_name"]; !ok {
			cc.RuntimeParams["application_name"] = "betplan budget"
		}
		conn, err := pgx.ConnectConfig(ctx, cc)
		if err != nil {
			return err
		}
		b.conn = conn
	}
	if b.ready {
		return nil
	}
	tx, err := b.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Runs starting together take turns: CREATE ... IF NOT EXISTS is not
	// safe against itself.
	var schema bool
	err = tx.QueryRow(ctx, `SELECT to_regnamespace($2) IS NOT NULL
		FROM (SELECT pg_advisory_xact_lock(hashtext('betplan request budget ' || $1))) turn`,
		b.schema, pgx.Identifier{b.schema}.Sanitize()).Scan(&schema)
	if err != nil {
		return err
	}
	if !schema {
		return errNoSchema
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + b.table(Table) + ` (
			base_url text NOT NULL,
			account text NOT NULL, -- '' when the token does not say
			tat timestamptz NOT NULL, -- the account's next free slot
			PRIMARY KEY (base_url, account)
		)`,
		`CREATE TABLE IF NOT EXISTS ` + b.table(PeersTable) + ` (
			base_url text NOT NULL,
			account text NOT NULL,
			process text NOT NULL, -- random, one per run
			seen timestamptz NOT NULL, -- its last request
			PRIMARY KEY (base_url, account, process)
		)`,
		`DELETE FROM ` + b.table(PeersTable) + ` WHERE seen < now() - interval '1 day'`,
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	b.ready = true
	return nil
}

// fail falls back to this process's share of the rate; b.mu is held.
//
// Its share is the rate over the processes that spent the account's
// budget lately, itself included, and at least 2: a process that was
// quiet then may not be quiet now.
func (b *Postgres) fail(err error) {
	p := max(b.others+1, 2)
	b.disconnect()
	share := b.rps / float64(p)
	b.fb.engage(share, staggered(b.tat, share), b.say, fmt.Sprintf("request budget: the budget of %s shared in %s is out of reach (%s): "+
		"this run keeps to %s/s by itself, its share of %s/s among about %d processes, and tries the database again every %v",
		b.acct, b.where, b.redact(err), formatRate(share), formatRate(b.rps), p, SharedRetry))
}

// disconnect drops the connection; b.mu is held.
func (b *Postgres) disconnect() {
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		b.conn.Close(ctx)
		cancel()
		b.conn = nil
	}
}

// redact is err's message on one line, without the password (pgx's own
// messages never carry it; a server's or a dialer's might).
func (b *Postgres) redact(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if b.password != "" {
		for _, p := range []string{b.password, url.QueryEscape(b.password), url.PathEscape(b.password)} {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

// Close ends the connection.
func (b *Postgres) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.local.Close()
	if b.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := b.conn.Close(ctx)
	b.conn = nil
	return err
}
