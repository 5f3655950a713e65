package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/betplan/betplan/state"
)

// The account's plans are the plans of one service in the schema, on every
// machine. Its gate is a transaction-scoped advisory lock keyed by the
// service and the gate's name, taken in the transaction that reads the
// other plans' journals and appends the gated record: the lock is let go
// only once that record is committed, so whoever takes it next reads it.

// defaultGateWait bounds the wait for the account's gate when ctx says
// nothing: another plan's check and record take milliseconds.
const defaultGateWait = 30 * time.Second

// querier is a connection or a transaction on it.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// ReadAccount reads the journals of every plan on service. It writes
// nothing: a database where betplan never ran has none.
func (s *Store) ReadAccount(ctx context.Context, service string) ([]state.PlanLog, error) {
	conn, err := s.connect(ctx, true)
	if errors.Is(err, errNoSchema) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closeConn(conn)
	logs, err := s.accountLogs(ctx, conn, service, 0)
	if err != nil {
		return nil, s.unavailableOr(err)
	}
	return logs, nil
}

// accountLogs reads the journals of the plans on service but skip's, in
// the order of their names. A row an earlier betplan keyed by the base URL
// as spelled is the service's too.
func (s *Store) accountLogs(ctx context.Context, q querier, service string, skip int64) ([]state.PlanLog, error) {
	rows, err := q.Query(ctx, "SELECT id, name, base_url FROM "+s.table("plans")+" WHERE id <> $1 ORDER BY name, id", skip)
	if err != nil {
		return nil, err
	}
	type plan struct {
		id         int64
		name, base string
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (plan, error) {
		var p plan
		err := r.Scan(&p.id, &p.name, &p.base)
		return p, err
	})
	if err != nil {
		return nil, err
	}
	var ids []int64
	index := map[int64]int{}
	var logs []state.PlanLog
	for _, p := range all {
		if p.base == service || state.ServiceIdentity(p.base) == service {
			index[p.id] = len(logs)
			ids = append(ids, p.id)
			logs = append(logs, state.PlanLog{Name: p.name})
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err = q.Query(ctx, "SELECT plan_id, serial, "+boundedEntry+" FROM "+s.table("journal")+" WHERE plan_id = ANY($1) ORDER BY plan_id, serial", ids, maxEntryText)
	if err != nil {
		return nil, err
	}
	var id, serial int64
	var entry []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &serial, &entry}, func() error {
		if entry == nil {
			return s.tooLong(serial)
		}
		l := &logs[index[id]]
		l.Records = append(l.Records, entry)
		entry = nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	return logs, nil
}

// AppendGated reads the other plans of the lease's service and appends
// record, when check allows it, in one transaction under the account's
// advisory lock. Waiting for the lock is bounded by lock_timeout, not by
// cancelling the statement, so the connection that holds the plan's lock
// survives a long wait. As for Append, a failure once the record is sent
// loses the plan's lock: the run cannot know whether it landed.
func (l *lease) AppendGated(ctx context.Context, gate string, serial int64, record []byte, check func([]state.PlanLog) error) error {
	if err := state.CheckRecord(record); err != nil {
		return err
	}
	wait := defaultGateWait
	if d, ok := ctx.Deadline(); ok {
		wait = max(time.Millisecond, time.Until(d))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	s := l.store
	qctx, cancel := context.WithTimeout(context.Background(), wait+writeTimeout)
	defer cancel()
	tx, err := l.conn.Begin(qctx)
	if err != nil {
		return l.loseLocked(fmt.Sprintf("the connection that holds it failed (%v)", s.cfg.redact(err)))
	}
	done := false
	defer func() {
		if !done {
			rctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			defer cancel()
			if err := tx.Rollback(rctx); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
				l.loseLocked(fmt.Sprintf("the connection that holds it failed (%v)", s.cfg.redact(err)))
			}
		}
	}()
	if _, err := tx.Exec(qctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", wait.Milliseconds())); err != nil {
		return s.unavailable(err)
	}
	if _, err := tx.Exec(qctx, "SELECT pg_advisory_xact_lock($1)", s.key("account", l.service, gate)); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
			return fmt.Errorf("take the account's lock for %s in %s: another plan's create held it for %v", l.service, s, wait.Round(time.Millisecond))
		}
		return s.unavailable(err)
	}
	others, err := s.accountLogs(qctx, tx, l.service, l.plan)
	if err != nil {
		return s.unavailable(err)
	}
	if err := check(others); err != nil {
		return err
	}
	if err := l.appendFenced(qctx, tx, serial, record); err != nil {
		return err
	}
	done = true
	if err := tx.Commit(qctx); err != nil {
		return l.writeLost(err)
	}
	return nil
}
