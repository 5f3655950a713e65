package budget

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/engine/pgstate"
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

	mu    sync.Mutex
	conn  *pgx.Conn
	ready bool // the table exists
	seen  []sample
	fb    fallback
}

// sample is one of this process's requests: when, and the account's
// request count that it made.
type sample struct {
	at time.Time
	n  int64
}

// Table is the budget's table in the schema.
const Table = "request_budget"

const (
	// statementTimeout bounds one round trip: a database that does not
	// answer within it is out of reach.
	statementTimeout = 5 * time.Second
	// shareWindow is how far back this process's requests tell its share
	// of the account's.
	shareWindow = 30 * time.Second
	maxSamples  = 64
)

// NewPostgres is acct's budget of rps requests per second in the database
// of the --state URL raw, which pgstate.ParseURL checked as cfg. It
// connects on the first request. When the database is out of reach, now
// or later, the process keeps to its share of the rate by itself for the
// rest of the run and says so once through say.
func NewPostgres(raw string, cfg *pgstate.Config, acct Account, rps float64, say func(string)) (*Postgres, error) {
	conn, err := connString(raw)
	if err != nil {
		return nil, err
	}
	var password string
	if u, err := url.Parse(raw); err == nil {
		password, _ = u.User.Password()
	}
	return &Postgres{connString: conn, password: password, where: cfg.String(), schema: cfg.Schema(), acct: acct,
		every: interval(rps), rps: rps, say: say}, nil
}

// connString is the URL pgx connects with, settled as pgstate settles it:
// the schema is named in every statement, not searched for; off loopback
// the connection is encrypted unless the URL says otherwise (which
// pgstate.ParseURL allowed only with --insecure).
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

func (b *Postgres) table() string { return pgx.Identifier{b.schema, Table}.Sanitize() }

// Wait takes the account's next free slot and waits for it.
func (b *Postgres) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l := b.fb.limiter(); l != nil {
		return l.Wait(ctx)
	}
	wait, err := b.reserve(ctx)
	if err != nil {
		if l := b.fb.limiter(); l != nil {
			return l.Wait(ctx)
		}
		return err
	}
	slot := time.Now().Add(wait)
	if pastDeadline(ctx, slot) {
		return errPastDeadline // the slot is spent: the account loses it, no one exceeds it
	}
	return sleepUntil(ctx, slot)
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
	// The statement runs to its end even when the caller gives up, so the
	// connection is never torn down mid-statement.
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), statementTimeout)
	defer cancel()
	if err := b.connect(qctx); err != nil {
		b.fail(err)
		return 0, err
	}
	us := b.every.Microseconds()
	var secs float64
	var n int64
	err := b.conn.QueryRow(qctx, `INSERT INTO `+b.table()+` AS b (base_url, account, tat, requests)
		VALUES ($1, $2, now() + $3 * interval '1 microsecond', 1)
		ON CONFLICT (base_url, account) DO UPDATE SET
			tat = CASE WHEN b.tat > now() + $4 * interval '1 microsecond' THEN now()
				ELSE greatest(b.tat, now()) END + $3 * interval '1 microsecond',
			requests = b.requests + 1
		RETURNING extract(epoch FROM b.tat - $3 * interval '1 microsecond' - now())::float8, b.requests`,
		b.acct.BaseURL, b.acct.Name, us, staleAfter(b.every).Microseconds()).Scan(&secs, &n)
	if err != nil {
		b.fail(err)
		return 0, err
	}
	b.note(n)
	return time.Duration(secs * float64(time.Second)), nil
}

// connect opens the connection and makes the table, once.
func (b *Postgres) connect(ctx context.Context) error {
	if b.conn != nil && b.ready {
		return nil
	}
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
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Runs starting together take turns: CREATE ... IF NOT EXISTS is not
	// safe against itself.
	for _, stmt := range []string{
		`SELECT pg_advisory_xact_lock(hashtext('betplan request budget ' || $1))`,
		`CREATE SCHEMA IF NOT EXISTS ` + pgx.Identifier{b.schema}.Sanitize(),
		`CREATE TABLE IF NOT EXISTS ` + b.table() + ` (
			base_url text NOT NULL,
			account text NOT NULL, -- '' when the token does not say
			tat timestamptz NOT NULL, -- the account's next free slot
			requests bigint NOT NULL, -- requests so far, for each process's share
			PRIMARY KEY (base_url, account)
		)`,
	} {
		var args []any
		if strings.Contains(stmt, "$1") {
			args = append(args, b.schema)
		}
		if _, err := tx.Exec(ctx, stmt, args...); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	b.ready = true
	return nil
}

// note keeps the account's count at this request, for share.
func (b *Postgres) note(n int64) {
	now := time.Now()
	if len(b.seen) == maxSamples {
		b.seen = append(b.seen[:0], b.seen[1:]...)
	}
	b.seen = append(b.seen, sample{at: now, n: n})
}

// peers guesses how many processes spent the account's budget lately:
// the account's requests per request of this process's, over its
// requests of the last shareWindow; at least 2, since a process that was
// quiet then may not be quiet now.
func (b *Postgres) peers() int {
	cutoff := time.Now().Add(-shareWindow)
	first := len(b.seen)
	for i, s := range b.seen {
		if s.at.After(cutoff) {
			first = i
			break
		}
	}
	mine := len(b.seen) - first // this process's requests in the window
	if mine < 2 {
		return 2
	}
	all := b.seen[len(b.seen)-1].n - b.seen[first].n // the account's since the first of them
	return max(int(math.Ceil(float64(all)/float64(mine-1))), 2)
}

// fail falls back to this process's share of the rate; b.mu is held.
func (b *Postgres) fail(err error) {
	p := b.peers()
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		b.conn.Close(ctx)
		cancel()
		b.conn = nil
	}
	share := b.rps / float64(p)
	b.fb.engage(share, b.say, fmt.Sprintf("request budget: the budget of %s shared in %s is out of reach (%s): "+
		"this run keeps to %s requests per second by itself until it ends, its share of %s among about %d processes",
		b.acct, b.where, b.redact(err), formatRate(share), formatRate(b.rps), p))
}

// redact is err's message on one line, without the password (pgx's own
// messages never carry it; a server's or a dialer's might).
func (b *Postgres) redact(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if b.password != "" {
		msg = strings.ReplaceAll(msg, b.password, "xxxxx")
	}
	return msg
}

// Close ends the connection.
func (b *Postgres) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := b.conn.Close(ctx)
	b.conn = nil
	return err
}
