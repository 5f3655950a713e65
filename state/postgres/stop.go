package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/betplan/betplan/state"
	"github.com/jackc/pgx/v5"
)

// SetStop sets (or, with a nil mark, clears) the plan's stop mark. Every
// machine's run of the plan reads it through its lock's connection.
func (s *Store) SetStop(ctx context.Context, k state.PlanKey, mark *state.StopMark) error {
	conn, err := s.connect(ctx, false)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	id, err := s.planID(ctx, conn, k)
	if err != nil {
		return s.unavailable(err)
	}
	var b []byte
	if mark != nil {
		if b, err = json.Marshal(mark); err != nil {
			return err
		}
	}
	if _, err := conn.Exec(ctx, "UPDATE "+s.table("plans")+" SET stop_mark = $2 WHERE id = $1", id, b); err != nil {
		return s.unavailable(err)
	}
	return nil
}

// ReadStop reads the plan's stop mark; a database betplan never wrote to
// has none.
func (s *Store) ReadStop(ctx context.Context, k state.PlanKey) (*state.StopMark, error) {
	var mark *state.StopMark
	err := s.readPlan(ctx, k, func(conn *pgx.Conn, id int64) error {
		var b []byte
		if err := conn.QueryRow(ctx, "SELECT stop_mark FROM "+s.table("plans")+" WHERE id = $1", id).Scan(&b); err != nil {
			return s.unavailable(err)
		}
		var err error
		mark, err = decodeStop(b)
		return err
	})
	return mark, err
}

// Stopped reads the stop mark on the connection that holds the lock.
func (l *lease) Stopped() (*state.StopMark, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	var b []byte
	if err := l.conn.QueryRow(ctx, "SELECT stop_mark FROM "+l.store.table("plans")+" WHERE id = $1", l.plan).Scan(&b); err != nil {
		return nil, l.loseLocked(fmt.Sprintf("the connection that holds it failed (%v)", l.store.cfg.redact(err)))
	}
	return decodeStop(b)
}

func decodeStop(b []byte) (*state.StopMark, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	var m state.StopMark
	if err := json.Unmarshal(b, &m); err != nil {
		// A mark this betplan cannot read still stops: it was meant to.
		return &state.StopMark{By: state.LockOwner{Command: "an unreadable stop mark"}}, nil
	}
	return &m, nil
}
