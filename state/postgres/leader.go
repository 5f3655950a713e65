package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

// An account's leadership is a row of the leaders table, changed by one
// statement each time and timed by the server's clock: a standby on
// another machine, whatever its clock says, takes the account over only
// once the server says the leader's lease has run out. The leadership
// keeps one connection of its own between calls: a campaign every few
// seconds must not open a session each time.

var _ state.Leaders = (*Store)(nil)

// leaderColumns are what a term reads of a leaders row, and now().
const leaderColumns = "fence, instance, holder_pid, holder_host, holder_command, holder_plan_file, holder_since, since, expires_at - now()"

// Lead takes the account's leadership when nobody holds it or its lease
// has run out (the fence moves on), or renews the term req.Fence names
// when it is still this process's.
func (s *Store) Lead(ctx context.Context, req state.LeadRequest) (state.Term, error) {
	var out state.Term
	err := s.onLeaderConn(ctx, func(conn *pgx.Conn) error {
		o := req.Owner
		ttl := fmt.Sprintf("%d milliseconds", req.TTL.Milliseconds())
		row := conn.QueryRow(ctx, "INSERT INTO "+s.table("leaders")+
			" AS l (account, fence, instance, holder_pid, holder_host, holder_command, holder_plan_file, holder_since, since, expires_at)"+
			" VALUES ($1, 1, $2, $3, $4, $5, $6, $7, now(), now() + $8::interval)"+
			" ON CONFLICT (account) DO UPDATE SET"+
			" fence = CASE WHEN l.instance = EXCLUDED.instance AND l.fence = $9 THEN l.fence ELSE l.fence + 1 END,"+
			" since = CASE WHEN l.instance = EXCLUDED.instance AND l.fence = $9 THEN l.since ELSE now() END,"+
			" instance = EXCLUDED.instance, holder_pid = EXCLUDED.holder_pid, holder_host = EXCLUDED.holder_host,"+
			" holder_command = EXCLUDED.holder_command, holder_plan_file = EXCLUDED.holder_plan_file,"+
			" holder_since = EXCLUDED.holder_since, expires_at = EXCLUDED.expires_at"+
			" WHERE (l.instance = EXCLUDED.instance AND l.fence = $9 AND $9 <> 0) OR l.expires_at <= now()"+
			" RETURNING "+leaderColumns,
			req.Account, req.Instance, o.PID, o.Host, o.Command, o.PlanFile, o.Since, ttl, req.Fence)
		t, err := scanTerm(row, req.Account)
		if errors.Is(err, pgx.ErrNoRows) {
			// Another process leads, and its lease has time left.
			t, err = scanTerm(conn.QueryRow(ctx, "SELECT "+leaderColumns+" FROM "+s.table("leaders")+" WHERE account = $1", req.Account), req.Account)
			out = t
			return err
		}
		if err != nil {
			return err
		}
		t.Leading = true
		out = t
		return nil
	})
	return out, err
}

// Leader reads who leads the account; nil when nobody ever did.
func (s *Store) Leader(ctx context.Context, account string) (*state.Term, error) {
	var out *state.Term
	err := s.onLeaderConn(ctx, func(conn *pgx.Conn) error {
		t, err := scanTerm(conn.QueryRow(ctx, "SELECT "+leaderColumns+" FROM "+s.table("leaders")+" WHERE account = $1", account), account)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err == nil {
			out = &t
		}
		return err
	})
	return out, err
}

// Resign ends term's lease now, when it is still the account's.
func (s *Store) Resign(ctx context.Context, term state.Term) error {
	return s.onLeaderConn(ctx, func(conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "UPDATE "+s.table("leaders")+" SET expires_at = now() WHERE account = $1 AND fence = $2 AND instance = $3",
			term.Account, term.Fence, term.Instance)
		return err
	})
}

func scanTerm(row pgx.Row, account string) (state.Term, error) {
	t := state.Term{Account: account}
	var pid *int32
	var host, command, planFile *string
	var holderSince *time.Time
	var left time.Duration
	if err := row.Scan(&t.Fence, &t.Instance, &pid, &host, &command, &planFile, &holderSince, &t.Since, &left); err != nil {
		return t, err
	}
	if pid != nil {
		t.Owner.PID = int(*pid)
	}
	t.Owner.Host, t.Owner.Command, t.Owner.PlanFile = deref(host), deref(command), deref(planFile)
	if holderSince != nil {
		t.Owner.Since = holderSince.UTC()
	}
	t.Since, t.Left = t.Since.UTC(), left
	return t, nil
}

// onLeaderConn runs use on the leadership's own connection, opened (and
// the schema brought up to date) on first use and again after a failure.
func (s *Store) onLeaderConn(ctx context.Context, use func(conn *pgx.Conn) error) error {
	s.leaderMu.Lock()
	defer s.leaderMu.Unlock()
	if s.leaderConn == nil || s.leaderConn.IsClosed() {
		conn, err := s.connect(ctx, false)
		if err != nil {
			return err
		}
		s.leaderConn = conn
	}
	if err := use(s.leaderConn); err != nil {
		// Whatever state the session is in, the next call starts afresh.
		closeConn(s.leaderConn)
		s.leaderConn = nil
		return s.unavailable(err)
	}
	return nil
}

// Close closes the leadership's connection, if one is open.
func (s *Store) Close() {
	s.leaderMu.Lock()
	defer s.leaderMu.Unlock()
	if s.leaderConn != nil {
		closeConn(s.leaderConn)
		s.leaderConn = nil
	}
}
