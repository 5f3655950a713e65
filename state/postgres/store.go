package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

// Store is the shared state in one schema of one PostgreSQL database. It
// holds no connection between calls: a run's lock opens its own.
type Store struct {
	cfg *Config
	// WatchEvery is how often a held lock's connection is checked
	// (default 1s); a lock found lost stops the run's creates.
	WatchEvery time.Duration
	// Retry is the pause between tries while waiting for a lock.
	Retry time.Duration

	// The account's leadership keeps a connection between calls (leader.go).
	leaderMu   sync.Mutex
	leaderConn *pgx.Conn
}

// New is the store a checked URL names.
func New(cfg *Config) *Store { return &Store{cfg: cfg} }

var _ state.Store = (*Store)(nil)

func (s *Store) String() string { return s.cfg.String() }

func (s *Store) quotedSchema() string { return pgx.Identifier{s.cfg.schema}.Sanitize() }

func (s *Store) table(name string) string { return pgx.Identifier{s.cfg.schema, name}.Sanitize() }

// key is an advisory lock key: the schema is part of it, so two schemas in
// one database never share a lock.
func (s *Store) key(parts ...string) int64 {
	h := sha256.New()
	h.Write([]byte("betplan\x00" + s.cfg.schema))
	for _, p := range parts {
		h.Write([]byte("\x00" + p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}

func (s *Store) lockKey(k state.PlanKey) int64 { return s.key("plan", k.Name, k.Service()) }

func (s *Store) lockName(k state.PlanKey) string {
	return fmt.Sprintf("of plan %s on %s in %s", k.Name, k.Service(), s)
}

// unavailable wraps what went wrong reaching or using the database, with
// the password removed.
func (s *Store) unavailable(err error) error {
	return &state.StateUnavailableError{Store: s.String(), Err: s.cfg.redact(err)}
}

// connect opens one connection and brings the schema up to date (or, with
// readOnly, only checks it; errNoSchema then means nothing was ever kept).
func (s *Store) connect(ctx context.Context, readOnly bool) (*pgx.Conn, error) {
	cc, err := pgx.ParseConfig(s.cfg.url.String())
	if err != nil {
		return nil, s.unavailable(err)
	}
	// A machine that vanishes (a preempted runner) leaves no RST behind:
	// without keepalives its session, and the plan's lock, would outlive
	// it by the system's two hours. With these the server ends it within
	// about a minute; the URL may say otherwise.
	for k, v := range map[string]string{
		"application_name":        "betplan",
		"tcp_keepalives_idle":     "30",
		"tcp_keepalives_interval": "10",
		"tcp_keepalives_count":    "3",
	} {
		if _, ok := cc.RuntimeParams[k]; !ok {
			cc.RuntimeParams[k] = v
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, s.unavailable(err)
	}
	if readOnly {
		v, err := s.version(ctx, conn)
		if err == nil {
			err = s.checkVersion(v)
		}
		if err != nil {
			closeConn(conn)
			if errors.Is(err, errNoSchema) {
				return nil, err
			}
			return nil, s.unavailable(err)
		}
		return conn, nil
	}
	if err := s.migrate(ctx, conn); err != nil {
		closeConn(conn)
		return nil, s.unavailable(err)
	}
	return conn, nil
}

// Reach opens one connection to the database and closes it, first
// bringing the schema up to date (prepare: a command that writes a
// plan's state, as run does) or only checking its version (one that
// reads, which creates nothing in a database betplan never used). A
// command meets a shared state it cannot use before it asks the service
// anything, and the account's request budget finds its tables from the
// first request.
func (s *Store) Reach(ctx context.Context, prepare bool) error {
	conn, err := s.connect(ctx, !prepare)
	if errors.Is(err, errNoSchema) {
		return nil // nothing kept yet: nothing to read
	}
	if err != nil {
		return err
	}
	closeConn(conn)
	return nil
}

func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn.Close(ctx)
}

// planID returns the plan's row, made on first use.
func (s *Store) planID(ctx context.Context, conn *pgx.Conn, k state.PlanKey) (int64, error) {
	id, found, err := s.findPlan(ctx, conn, k, true)
	if err != nil || found {
		return id, err
	}
	err = conn.QueryRow(ctx, "INSERT INTO "+s.table("plans")+" (name, base_url) VALUES ($1, $2)"+
		" ON CONFLICT (name, base_url) DO UPDATE SET name = EXCLUDED.name RETURNING id", k.Name, k.Service()).Scan(&id)
	return id, err
}

// findPlan finds the plan's row, keyed by the service's identity. A row an
// earlier betplan keyed by the base URL as spelled is the plan's too: with
// adopt it is re-keyed to the identity, so its journal is never lost on an
// upgrade. Two such rows are two runs that never met at one lock: betplan
// refuses to guess which journal is the plan's.
func (s *Store) findPlan(ctx context.Context, conn *pgx.Conn, k state.PlanKey, adopt bool) (int64, bool, error) {
	service := k.Service()
	rows, err := conn.Query(ctx, "SELECT id, base_url FROM "+s.table("plans")+" WHERE name = $1 ORDER BY id", k.Name)
	if err != nil {
		return 0, false, err
	}
	type row struct {
		id   int64
		base string
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.base)
		return x, err
	})
	if err != nil {
		return 0, false, err
	}
	var mine []row
	for _, r := range all {
		if r.base == service {
			return r.id, true, nil
		}
		if state.ServiceIdentity(r.base) == service {
			mine = append(mine, r)
		}
	}
	switch {
	case len(mine) == 0:
		return 0, false, nil
	case len(mine) > 1:
		spellings := make([]string, len(mine))
		for i, r := range mine {
			spellings[i] = r.base
		}
		return 0, false, fmt.Errorf("plan %s has %d journals for one service spelled %s: merge them by hand before any run",
			k.Name, len(mine), strings.Join(spellings, " and "))
	}
	if adopt {
		if _, err := conn.Exec(ctx, "UPDATE "+s.table("plans")+" SET base_url = $2 WHERE id = $1", mine[0].id, service); err != nil {
			return 0, false, err
		}
	}
	return mine[0].id, true, nil
}

// holder reads who last took the plan's lock.
func (s *Store) holder(ctx context.Context, conn *pgx.Conn, k state.PlanKey) (state.LockOwner, error) {
	var o state.LockOwner
	id, found, err := s.findPlan(ctx, conn, k, false)
	if err != nil {
		return o, err
	}
	if !found {
		return o, pgx.ErrNoRows
	}
	var pid *int32
	var host, command, planFile *string
	var since *time.Time
	err = conn.QueryRow(ctx, "SELECT holder_pid, holder_host, holder_command, holder_plan_file, holder_since FROM "+
		s.table("plans")+" WHERE id = $1", id).Scan(&pid, &host, &command, &planFile, &since)
	if err != nil {
		return o, err
	}
	if pid != nil {
		o.PID = int(*pid)
	}
	o.Host, o.Command, o.PlanFile = deref(host), deref(command), deref(planFile)
	if since != nil {
		o.Since = since.UTC()
	}
	return o, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Lock takes the plan's session advisory lock on a connection of its own,
// held until Release, and bumps the plan's epoch: the run's fencing token.
func (s *Store) Lock(ctx context.Context, req state.LockRequest) (state.Lease, error) {
	conn, err := s.connect(ctx, false)
	if err != nil {
		return nil, err
	}
	lease, err := s.lock(ctx, conn, req)
	if err != nil {
		closeConn(conn)
		return nil, err
	}
	return lease, nil
}

func (s *Store) lock(ctx context.Context, conn *pgx.Conn, req state.LockRequest) (*lease, error) {
	id, err := s.planID(ctx, conn, req.PlanKey)
	if err != nil {
		return nil, s.unavailable(err)
	}
	key := s.lockKey(req.PlanKey)
	deadline := time.Now().Add(req.Timeout)
	retry := s.Retry
	if retry <= 0 {
		retry = 250 * time.Millisecond
	}
	for waited := false; ; waited = true {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
			return nil, s.unavailable(err)
		}
		if ok {
			break
		}
		if !time.Now().Before(deadline) {
			owner, _ := s.holder(ctx, conn, req.PlanKey)
			return nil, &state.LockedError{Where: s.lockName(req.PlanKey), Owner: owner}
		}
		if !waited && req.Waiting != nil {
			owner, _ := s.holder(ctx, conn, req.PlanKey)
			req.Waiting(owner)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(retry, time.Until(deadline))):
		}
	}
	o := req.Owner
	var epoch int64
	err = conn.QueryRow(ctx, "UPDATE "+s.table("plans")+" SET epoch = epoch + 1, holder_pid = $2, holder_host = $3,"+
		" holder_command = $4, holder_plan_file = $5, holder_since = $6, holder_backend = pg_backend_pid()"+
		" WHERE id = $1 RETURNING epoch", id, o.PID, o.Host, o.Command, o.PlanFile, o.Since).Scan(&epoch)
	if err != nil {
		return nil, s.unavailable(err)
	}
	entries, err := s.entries(ctx, conn, id)
	if err != nil {
		return nil, s.unavailableOr(err)
	}
	l := &lease{store: s, conn: conn, plan: id, service: req.Service(), epoch: epoch, records: entries, earlier: req.Earlier, leader: req.Leader,
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go l.watch(s.WatchEvery)
	return l, nil
}

// maxEntryText bounds a record read back, as jsonb's text form: that
// form spaces out what the writer kept compact, so it has twice the
// room of state.MaxRecord.
const maxEntryText = 2 * state.MaxRecord

// boundedEntry selects a journal row's entry when it is within
// maxEntryText, else NULL: a longer one is never sent whole.
const boundedEntry = "CASE WHEN octet_length(entry::text) <= $2 THEN entry END"

// entries reads a plan's journal, in order. A record over the bound is a
// state.BadJournalError, as a damaged line of a journal file is.
func (s *Store) entries(ctx context.Context, conn *pgx.Conn, plan int64) ([][]byte, error) {
	rows, err := conn.Query(ctx, "SELECT serial, "+boundedEntry+" FROM "+s.table("journal")+" WHERE plan_id = $1 ORDER BY serial", plan, maxEntryText)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	var serial int64
	var b []byte
	_, err = pgx.ForEachRow(rows, []any{&serial, &b}, func() error {
		if b == nil {
			return s.tooLong(serial)
		}
		out = append(out, b)
		b = nil
		return nil
	})
	return out, err
}

// tooLong is a record over the bound: refused like a damaged one.
func (s *Store) tooLong(serial int64) error {
	return &state.BadJournalError{Path: s.String(), Reason: fmt.Sprintf("record %d is longer than any record betplan writes (%d bytes at most)", serial, state.MaxRecord)}
}

// unavailableOr is err as it is when the journal was read and refused,
// else the state out of reach.
func (s *Store) unavailableOr(err error) error {
	var bad *state.BadJournalError
	if errors.As(err, &bad) {
		return err
	}
	return s.unavailable(err)
}

// ReadLog reads the plan's records without the lock (status, plan). It
// writes nothing: a database where betplan never ran has none.
func (s *Store) ReadLog(ctx context.Context, k state.PlanKey) ([][]byte, error) {
	var entries [][]byte
	err := s.readPlan(ctx, k, func(conn *pgx.Conn, id int64) error {
		var err error
		if entries, err = s.entries(ctx, conn, id); err != nil {
			return s.unavailableOr(err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// readPlan calls read with the plan's row on a connection that writes
// nothing, not even the schema. Where betplan never kept the plan (no
// schema, or no row) read is not called and there is no error.
func (s *Store) readPlan(ctx context.Context, k state.PlanKey, read func(conn *pgx.Conn, id int64) error) error {
	return s.readOnly(ctx, func(conn *pgx.Conn) error {
		id, found, err := s.findPlan(ctx, conn, k, false)
		if err != nil {
			return s.unavailable(err)
		}
		if !found {
			return nil
		}
		return read(conn, id)
	})
}

// readOnly calls read on a connection that writes nothing, not even the
// schema. Where betplan never ran (no schema) read is not called and
// there is no error.
func (s *Store) readOnly(ctx context.Context, read func(conn *pgx.Conn) error) error {
	conn, err := s.connect(ctx, true)
	if errors.Is(err, errNoSchema) {
		return nil
	}
	if err != nil {
		return err
	}
	defer closeConn(conn)
	return read(conn)
}

// Unlock shows who holds the plan's lock. The lock of a run that ended is
// released with its session, so there is nothing stale to remove; a live
// holder (or one whose machine vanished and whose session lingers) is
// fenced off with force: the epoch moves on, so none of its journal
// writes can land, and its session is terminated, which frees the lock.
func (s *Store) Unlock(ctx context.Context, k state.PlanKey, force bool) (state.LockOwner, error) {
	conn, err := s.connect(ctx, true)
	if errors.Is(err, errNoSchema) {
		return state.LockOwner{}, fmt.Errorf("no run of plan %s has used %s", k.Name, s)
	}
	if err != nil {
		return state.LockOwner{}, err
	}
	defer closeConn(conn)
	owner, err := s.holder(ctx, conn, k)
	if errors.Is(err, pgx.ErrNoRows) {
		return owner, fmt.Errorf("no run of plan %s on %s has used %s", k.Name, k.Service(), s)
	}
	if err != nil {
		return owner, s.unavailable(err)
	}
	key := s.lockKey(k)
	var free bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&free); err != nil {
		return owner, s.unavailable(err)
	}
	if free {
		return owner, fmt.Errorf("no run holds the lock %s (last held by %s): nothing to unlock", s.lockName(k), owner)
	}
	if !force {
		return owner, &state.LockedError{Where: s.lockName(k), Owner: owner}
	}
	// Fence first, then stop: from the moment the epoch moves on, no write
	// of the holder lands, even if its session outlives the terminate.
	id, _, err := s.findPlan(ctx, conn, k, false)
	if err != nil {
		return owner, s.unavailable(err)
	}
	if _, err := conn.Exec(ctx, "UPDATE "+s.table("plans")+" SET epoch = epoch + 1 WHERE id = $1", id); err != nil {
		return owner, s.unavailable(err)
	}
	// The holder's session, whatever machine it came from.
	_, err = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks `+holdsAdvisoryLock, key)
	if err != nil {
		return owner, s.unavailable(err)
	}
	// pg_terminate_backend only signals the holder's session: its lock is
	// free once that session has gone, a moment later. Return then, so a
	// run started right after "unlock --force" takes the lock.
	if err := s.waitLockFree(ctx, conn, key, s.lockName(k)); err != nil {
		return owner, err
	}
	return owner, nil
}

// holdsAdvisoryLock picks, in pg_locks, the granted session-level advisory
// lock of the key $1 (a bigint key is split into classid and objid).
const holdsAdvisoryLock = `WHERE locktype = 'advisory' AND granted AND objsubid = 1
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND classid::bigint = ($1::bigint >> 32) & 4294967295 AND objid::bigint = $1::bigint & 4294967295`

// unlockWait bounds how long a forced unlock waits for the holder's
// session to end after it was told to.
const unlockWait = 10 * time.Second

// waitLockFree waits, for at most unlockWait, until no session holds the
// advisory lock key.
func (s *Store) waitLockFree(ctx context.Context, conn *pgx.Conn, key int64, name string) error {
	deadline := time.Now().Add(unlockWait)
	for {
		var held bool
		err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks `+holdsAdvisoryLock+`)`, key).Scan(&held)
		if err != nil {
			return s.unavailable(err)
		}
		if !held {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the session holding the lock %s was told to end %s ago and still holds it; try again", name, unlockWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Holder reads pg_locks, the server's view of every lock, for the plan's
// advisory lock: reading it takes nothing, so a run asking for the lock
// meanwhile gets it as if nobody had looked. The holder is who the plans
// row says took it last.
func (s *Store) Holder(ctx context.Context, k state.PlanKey) (*state.LockOwner, error) {
	var owner *state.LockOwner
	err := s.readPlan(ctx, k, func(conn *pgx.Conn, _ int64) error {
		var held bool
		err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks `+holdsAdvisoryLock+`)`, s.lockKey(k)).Scan(&held)
		if err != nil {
			return s.unavailable(err)
		}
		if !held {
			return nil
		}
		o, err := s.holder(ctx, conn, k)
		if err != nil {
			return s.unavailable(err)
		}
		owner = &o
		return nil
	})
	return owner, err
}
