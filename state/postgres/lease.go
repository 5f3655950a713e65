package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/betplan/betplan/state"
)

// writeTimeout bounds one journal write or lock check: a database that
// does not answer in that time is as good as lost.
const writeTimeout = 10 * time.Second

// lease is a plan's lock held on one dedicated connection (never a pooled
// one: an advisory lock belongs to the session that took it). Every use of
// the connection, journal writes and checks alike, takes mu.
type lease struct {
	store   *Store
	records [][]byte        // the journal as read when the lock was taken
	earlier state.LockOwner // this host's earlier holder (LockRequest.Earlier)
	plan    int64
	service string // the plan's service: its account's plans share it
	epoch   int64  // the fencing token
	// leader is the account's leadership the lock was taken under: a row
	// lands only while its fence is still the account's. nil for none.
	leader *state.LeaderFence

	mu   sync.Mutex
	conn *pgx.Conn
	err  error // why the lock was lost

	lostOnce sync.Once
	lost     chan struct{}
	stop     chan struct{} // closed by Release
	done     chan struct{} // closed when the watcher returned
}

func (l *lease) Records() [][]byte        { return l.records }
func (l *lease) Earlier() state.LockOwner { return l.earlier }
func (l *lease) Repaired() string         { return "" } // rows are whole
func (l *lease) Lost() <-chan struct{}    { return l.lost }

func (l *lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// loseLocked records why the lock is lost; l.mu is held.
func (l *lease) loseLocked(reason string) error {
	if l.err == nil {
		l.err = &state.LockLostError{Reason: reason}
		l.lostOnce.Do(func() { close(l.lost) })
	}
	return l.err
}

// Append writes one journal row in one statement that only lands while the
// plan's epoch is still this run's: a run that was fenced off writes
// nothing. Any failure loses the lock: the run cannot know what the
// database holds any more, so it creates nothing else.
func (l *lease) Append(serial int64, entry []byte) error {
	if err := state.CheckRecord(entry); err != nil {
		return err // never sent: the lock is kept
	}
	return l.whileHeld(func(ctx context.Context) error {
		return l.appendFenced(ctx, l.conn, serial, entry)
	})
}

// appendFenced inserts one journal row through db (the lock's connection,
// or a transaction on it) that only lands while the plan's epoch is still
// this run's; a row that did not land loses the lock. l.mu is held.
func (l *lease) appendFenced(ctx context.Context, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, serial int64, entry []byte) error {
	s := l.store
	insert := "INSERT INTO " + s.table("journal") + " (plan_id, serial, entry, epoch)" +
		" SELECT id, $2::bigint, $3::jsonb, epoch FROM " + s.table("plans") + " WHERE id = $1 AND epoch = $4"
	args := []any{l.plan, serial, entry, l.epoch}
	if l.leader != nil {
		// The account's fence, checked in the same statement: a leader
		// taken over writes nothing, whatever its own clock says.
		insert += " AND EXISTS (SELECT 1 FROM " + s.table("leaders") + " WHERE account = $5 AND fence = $6)"
		args = append(args, l.leader.Account, l.leader.Fence)
	}
	tag, err := db.Exec(ctx, insert, args...)
	switch {
	case err != nil:
		return l.writeLost(err)
	case tag.RowsAffected() == 0:
		if l.leader != nil && l.fencedOff(ctx, db) {
			return l.loseLocked(state.StaleFence(*l.leader).Reason)
		}
		return l.loseLocked(fmt.Sprintf("another run took it over (this run's epoch %d is no longer the plan's)", l.epoch))
	}
	return nil
}

// fencedOff reports whether the account's leadership moved on from the
// lease's: the reason a row did not land. l.mu is held.
func (l *lease) fencedOff(ctx context.Context, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}) bool {
	tag, err := db.Exec(ctx, "SELECT 1 FROM "+l.store.table("leaders")+" WHERE account = $1 AND fence = $2", l.leader.Account, l.leader.Fence)
	return err == nil && tag.RowsAffected() == 0
}

// writeLost loses the lock to a journal write that failed: whether the
// row landed is not known. l.mu is held.
func (l *lease) writeLost(err error) error {
	return l.loseLocked(fmt.Sprintf("the journal write failed on the connection that holds it (%v)", l.store.cfg.redact(err)))
}

// whileHeld runs use on the lock's connection, one use at a time and each
// bounded by writeTimeout; once the lock is lost, use is not run and the
// loss is the answer.
func (l *lease) whileHeld(use func(ctx context.Context) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return use(ctx)
}

// watch checks the lock every interval, so a run whose connection died,
// or whose lock was taken over, stops creating at once rather than at its
// next journal write.
func (l *lease) watch(every time.Duration) {
	defer close(l.done)
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		if l.check() != nil {
			return
		}
	}
}

func (l *lease) check() error {
	return l.whileHeld(func(ctx context.Context) error {
		var epoch int64
		err := l.conn.QueryRow(ctx, "SELECT epoch FROM "+l.store.table("plans")+" WHERE id = $1", l.plan).Scan(&epoch)
		switch {
		case err != nil:
			return l.loseLocked(fmt.Sprintf("the connection that holds it failed (%v)", l.store.cfg.redact(err)))
		case epoch != l.epoch:
			return l.loseLocked(fmt.Sprintf("another run took it over (epoch %d is now %d)", l.epoch, epoch))
		}
		return nil
	})
}

// Release frees the advisory lock, then closes the session. Closing
// alone would free it too, but only once the server's backend has gone,
// after Release returned: a run started right after (the next cron run, a
// run after a stop) could find the lock still held and be refused.
func (l *lease) Release() error {
	close(l.stop)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // as closeConn
	defer cancel()
	// An error (a session already lost) leaves the lock to the session's end.
	_, _ = l.conn.Exec(ctx, "SELECT pg_advisory_unlock_all()")
	closeConn(l.conn)
	return nil
}
