package statetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// account names the test account's leadership.
const account = "https://betting.example.com acct-1"

var (
	serveA = state.LockOwner{PID: 301, Host: "serve-a", Command: "betplan serve", Since: time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)}
	serveB = state.LockOwner{PID: 302, Host: "serve-b", Command: "betplan serve", Since: time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)}
)

// runLeaderTests is the account's leadership, as every store keeps it:
// one leader at a time, taken over only once its lease ran out, each
// take-over a new fence, and a plan's lease under a fence taken over
// writes nothing more.
func runLeaderTests(t *testing.T, newStore func(t *testing.T) state.Store) {
	ctx := context.Background()
	leaders := func(t *testing.T) (state.Store, state.Leaders) {
		t.Helper()
		s := newStore(t)
		l, ok := state.LeadersOf(s)
		require.True(t, ok, "%T keeps no leadership", s)
		return s, l
	}
	lead := func(t *testing.T, l state.Leaders, who state.LockOwner, instance string, ttl time.Duration, fence int64) state.Term {
		t.Helper()
		term, err := l.Lead(ctx, state.LeadRequest{Account: account, Owner: who, Instance: instance, TTL: ttl, Fence: fence})
		require.NoError(t, err)
		return term
	}

	t.Run("one leader", func(t *testing.T) {
		t.Parallel()
		_, l := leaders(t)
		none, err := l.Leader(ctx, account)
		require.NoError(t, err)
		assert.Nil(t, none, "nobody led yet")

		a := lead(t, l, serveA, "a", time.Minute, 0)
		require.True(t, a.Leading)
		assert.Equal(t, int64(1), a.Fence)
		assert.Greater(t, a.Left, 50*time.Second)

		b := lead(t, l, serveB, "b", time.Minute, 0)
		assert.False(t, b.Leading, "a standby while the lease has time left")
		assert.Equal(t, int64(1), b.Fence)
		assert.Equal(t, "a", b.Instance, "the answer names who leads")
		assert.Equal(t, serveA.Host, b.Owner.Host)

		again := lead(t, l, serveA, "a", time.Minute, a.Fence)
		assert.True(t, again.Leading, "renewed")
		assert.Equal(t, a.Fence, again.Fence, "a renewal keeps the fence")
		// Another process cannot renew a term by naming its fence.
		stolen := lead(t, l, serveB, "b", time.Minute, a.Fence)
		assert.False(t, stolen.Leading)

		seen, err := l.Leader(ctx, account)
		require.NoError(t, err)
		require.NotNil(t, seen)
		assert.Equal(t, "a", seen.Instance)
		assert.False(t, seen.Leading, "Leader reads, it does not campaign")
	})

	t.Run("taken over once the lease ran out", func(t *testing.T) {
		t.Parallel()
		_, l := leaders(t)
		a := lead(t, l, serveA, "a", 300*time.Millisecond, 0)
		require.True(t, a.Leading)
		time.Sleep(400 * time.Millisecond)
		b := lead(t, l, serveB, "b", time.Minute, 0)
		require.True(t, b.Leading, "the lease ran out")
		assert.Equal(t, a.Fence+1, b.Fence, "a take-over moves the fence on")

		late := lead(t, l, serveA, "a", time.Minute, a.Fence)
		assert.False(t, late.Leading, "the old leader cannot renew a term taken over")
		assert.Equal(t, "b", late.Instance)
	})

	t.Run("a lapsed term nobody took is renewed", func(t *testing.T) {
		t.Parallel()
		_, l := leaders(t)
		a := lead(t, l, serveA, "a", 200*time.Millisecond, 0)
		time.Sleep(300 * time.Millisecond)
		again := lead(t, l, serveA, "a", time.Minute, a.Fence)
		assert.True(t, again.Leading)
		assert.Equal(t, a.Fence, again.Fence, "nobody led meanwhile: the same fence")
	})

	t.Run("resign", func(t *testing.T) {
		t.Parallel()
		_, l := leaders(t)
		a := lead(t, l, serveA, "a", time.Hour, 0)
		require.NoError(t, l.Resign(ctx, a))
		b := lead(t, l, serveB, "b", time.Minute, 0)
		assert.True(t, b.Leading, "a standby takes over at once")
		// Resigning a term taken over leaves the new one alone.
		require.NoError(t, l.Resign(ctx, a))
		still := lead(t, l, serveB, "b", time.Minute, b.Fence)
		assert.True(t, still.Leading)
	})

	t.Run("a stale fence is refused", func(t *testing.T) {
		t.Parallel()
		s, l := leaders(t)
		a := lead(t, l, serveA, "a", 300*time.Millisecond, 0)
		fenceA := &state.LeaderFence{Account: account, Fence: a.Fence}
		la, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: serveA, Leader: fenceA})
		require.NoError(t, err)
		require.NoError(t, la.Append(1, record(1, "a")), "appended under the account's fence")
		require.NoError(t, la.AppendGated(ctx, "gate", 2, record(2, "b"), func([]state.PlanLog) error { return nil }))

		time.Sleep(400 * time.Millisecond)
		b := lead(t, l, serveB, "b", time.Minute, 0)
		require.True(t, b.Leading)
		err = la.Append(3, record(3, "stale"))
		var lost *state.LockLostError
		require.ErrorAs(t, err, &lost, "a leader taken over writes nothing")
		assert.Contains(t, lost.Reason, "another process leads the account")
		select {
		case <-la.Lost():
		default:
			t.Error("the lease is lost")
		}
		require.NoError(t, la.Release())

		lb, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: serveB, Leader: &state.LeaderFence{Account: account, Fence: b.Fence}})
		require.NoError(t, err)
		defer lb.Release()
		assertRecords(t, [][]byte{record(1, "a"), record(2, "b")}, lb.Records(), "nothing of the stale leader landed")
		require.NoError(t, lb.Append(3, record(3, "c")))
	})
}
