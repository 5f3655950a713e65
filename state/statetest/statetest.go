// Package statetest is the conformance suite every state.Store passes:
// the local files and PostgreSQL run the same tests, so the engine can
// count on one behaviour whichever the user chose.
package statetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

var (
	key     = state.PlanKey{Name: "card", BaseURL: "https://betting.example.com"}
	holderA = state.LockOwner{PID: 101, Host: "runner-a", PlanFile: "card.yaml", Command: "betplan run", Since: time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)}
	holderB = state.LockOwner{PID: 202, Host: "runner-b", PlanFile: "card.yaml", Command: "betplan run", Since: time.Date(2026, 11, 21, 1, 5, 0, 0, time.UTC)}
)

// record is the n-th record of a test journal.
func record(n int64, label string) []byte {
	return fmt.Appendf(nil, `{"serial":%d,"op":"creating","label":%q}`, n, label)
}

// RunTests runs the suite; newStore returns a store no test has used.
func RunTests(t *testing.T, newStore func(t *testing.T) state.Store) {
	ctx := context.Background()
	t.Run("leadership", func(t *testing.T) { runLeaderTests(t, newStore) })
	lock := func(t *testing.T, s state.Store, owner state.LockOwner) state.Lease {
		t.Helper()
		l, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: owner})
		require.NoError(t, err)
		return l
	}

	t.Run("append and read back", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		records, err := s.ReadLog(ctx, key)
		require.NoError(t, err)
		assert.Empty(t, records, "no journal yet")
		l := lock(t, s, holderA)
		assert.Empty(t, l.Records())
		for i, label := range []string{"a", "b", "c"} {
			require.NoError(t, l.Append(int64(i+1), record(int64(i+1), label)))
		}
		require.NoError(t, l.Release())

		want := [][]byte{record(1, "a"), record(2, "b"), record(3, "c")}
		records, err = s.ReadLog(ctx, key)
		require.NoError(t, err)
		assertRecords(t, want, records, "read without the lock")
		l = lock(t, s, holderB)
		assertRecords(t, want, l.Records(), "read under the next lock")
		require.NoError(t, l.Append(4, record(4, "d")))
		require.NoError(t, l.Release())
		records, err = s.ReadLog(ctx, key)
		require.NoError(t, err)
		assert.Len(t, records, 4)
		other, err := s.ReadLog(ctx, state.PlanKey{Name: "other", BaseURL: key.BaseURL})
		require.NoError(t, err)
		assert.Empty(t, other, "a journal is its plan's only")
	})

	t.Run("exclusion", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := lock(t, s, holderA)
		_, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: holderB})
		var locked *state.LockedError
		require.ErrorAs(t, err, &locked)
		assert.Equal(t, holderA.PID, locked.Owner.PID, "the refusal names the holder")
		assert.Equal(t, holderA.Host, locked.Owner.Host)
		assert.True(t, holderA.Since.Equal(locked.Owner.Since))

		// The service spelled another way is the same lock; another plan or
		// another service is another lock.
		_, err = s.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: key.Name, BaseURL: "https://BETTING.example.com:443/"}, Owner: holderB})
		require.ErrorAs(t, err, &locked, "one service however spelled")
		for _, k := range []state.PlanKey{{Name: "other", BaseURL: key.BaseURL}, {Name: key.Name, BaseURL: "https://other.example.com"}} {
			other, err := s.Lock(ctx, state.LockRequest{PlanKey: k, Owner: holderB})
			require.NoError(t, err, "%+v", k)
			require.NoError(t, other.Release())
		}

		// A run that waits is told who holds the lock, and gets it once the
		// holder lets go (only then: the holder waits for the telling).
		waiting := make(chan state.LockOwner, 1)
		told := make(chan state.LockOwner)
		go func() {
			h := <-waiting
			a.Release()
			told <- h
		}()
		b, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: holderB, Timeout: time.Minute,
			Waiting: func(h state.LockOwner) { waiting <- h }})
		require.NoError(t, err)
		defer b.Release()
		assert.Equal(t, holderA.Host, (<-told).Host, "the waiting run was told the holder")

		_, err = s.Unlock(ctx, key, false)
		require.ErrorAs(t, err, &locked, "unlock refuses a live lock without force")
		assert.Equal(t, holderB.Host, locked.Owner.Host)
	})

	t.Run("released at once", func(t *testing.T) {
		t.Parallel()
		// A lock released is free when Release returns: the next cron
		// run, or a run right after a stop or a cancel, is never refused
		// by a lock its holder already let go.
		s := newStore(t)
		owners := []state.LockOwner{holderA, holderB}
		for i := range 200 {
			l, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: owners[i%2]})
			require.NoError(t, err, "lock %d, right after the last release", i)
			require.NoError(t, l.Release())
		}
	})

	t.Run("holder", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		h, err := s.Holder(ctx, key)
		if errors.Is(err, state.ErrHolderUnknown) {
			t.Skip(err)
		}
		require.NoError(t, err)
		assert.Nil(t, h, "no run yet")
		a := lock(t, s, holderA)
		h, err = s.Holder(ctx, state.PlanKey{Name: key.Name, BaseURL: "https://BETTING.example.com:443/"})
		require.NoError(t, err)
		require.NotNil(t, h, "a held lock is seen, the service however spelled")
		assert.Equal(t, holderA.Host, h.Host)
		assert.Equal(t, holderA.PID, h.PID)
		assert.True(t, holderA.Since.Equal(h.Since))
		h, err = s.Holder(ctx, state.PlanKey{Name: "other", BaseURL: key.BaseURL})
		require.NoError(t, err)
		assert.Nil(t, h, "another plan's lock is its own")
		require.NoError(t, a.Release())
		h, err = s.Holder(ctx, key)
		require.NoError(t, err)
		assert.Nil(t, h, "released")

		// A run that takes the lock while Holder looks, again and again
		// from several lookers, is never refused: a look takes nothing.
		stop := make(chan struct{})
		looked := make(chan int)
		const lookers = 4
		for range lookers {
			go func() {
				n := 0
				defer func() { looked <- n }()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := s.Holder(ctx, key); err != nil {
						t.Error(err)
						return
					}
					n++
				}
			}()
		}
		for i := range 100 {
			l, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: holderB})
			require.NoError(t, err, "lock %d, taken while Holder looks", i)
			require.NoError(t, l.Release())
		}
		close(stop)
		n := 0
		for range lookers {
			n += <-looked
		}
		assert.Positive(t, n, "Holder looked meanwhile")
	})

	t.Run("fencing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := lock(t, s, holderA)
		defer a.Release()
		require.NoError(t, a.Append(1, record(1, "a")))
		owner, err := s.Unlock(ctx, key, true)
		require.NoError(t, err)
		assert.Equal(t, holderA.Host, owner.Host)

		b := lock(t, s, holderB)
		defer b.Release()
		err = a.Append(2, record(2, "fenced"))
		var lost *state.LockLostError
		require.ErrorAs(t, err, &lost, "a fenced-off run writes nothing")
		select {
		case <-a.Lost():
		case <-time.After(10 * time.Second):
			t.Fatal("the lease does not say it is lost")
		}
		require.ErrorAs(t, a.Err(), &lost)
		require.ErrorAs(t, a.Append(2, record(2, "again")), &lost, "and never again")

		require.NoError(t, b.Append(2, record(2, "b")))
		records, err := s.ReadLog(ctx, key)
		require.NoError(t, err)
		assertRecords(t, [][]byte{record(1, "a"), record(2, "b")}, records, "the new holder's write landed, the fenced one did not")
	})

	t.Run("earlier holder", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		l, err := s.Lock(ctx, state.LockRequest{PlanKey: key, Owner: holderA, Earlier: holderB})
		require.NoError(t, err)
		defer l.Release()
		assert.Equal(t, holderB.PID, l.Earlier().PID, "the lease keeps who held this host's lock before")
	})

	t.Run("stop mark", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m, err := s.ReadStop(ctx, key)
		require.NoError(t, err)
		assert.Nil(t, m, "no mark on a plan never stopped")
		l := lock(t, s, holderA)
		defer l.Release()
		m, err = l.Stopped()
		require.NoError(t, err)
		assert.Nil(t, m)

		mark := &state.StopMark{At: time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC), By: holderB}
		require.NoError(t, s.SetStop(ctx, state.PlanKey{Name: key.Name, BaseURL: "https://Betting.Example.com/"}, mark))
		m, err = l.Stopped()
		require.NoError(t, err)
		require.NotNil(t, m, "the holder sees a mark set while it holds the lock, the service however spelled")
		assert.True(t, mark.At.Equal(m.At))
		assert.Equal(t, holderB.Host, m.By.Host)
		other, err := s.ReadStop(ctx, state.PlanKey{Name: "other", BaseURL: key.BaseURL})
		require.NoError(t, err)
		assert.Nil(t, other, "a mark stops its own plan only")

		require.NoError(t, s.SetStop(ctx, key, nil))
		m, err = l.Stopped()
		require.NoError(t, err)
		assert.Nil(t, m, "cleared")
		m, err = s.ReadStop(ctx, key)
		require.NoError(t, err)
		assert.Nil(t, m)
	})

	t.Run("account read", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		logs, err := s.ReadAccount(ctx, key.Service())
		require.NoError(t, err)
		assert.Empty(t, logs, "nothing kept yet")
		a := lock(t, s, holderA)
		require.NoError(t, a.Append(1, record(1, "a1")))
		require.NoError(t, a.Append(2, record(2, "a2")))
		require.NoError(t, a.Release())
		other := state.PlanKey{Name: "other", BaseURL: "https://Betting.Example.com/"}
		b, err := s.Lock(ctx, state.LockRequest{PlanKey: other, Owner: holderB})
		require.NoError(t, err)
		require.NoError(t, b.Append(1, record(1, "b1")))
		defer b.Release()

		logs, err = s.ReadAccount(ctx, key.Service())
		require.NoError(t, err)
		require.Len(t, logs, 2, "every plan of the service once, the service however spelled")
		byName := map[string][][]byte{}
		for _, l := range logs {
			byName[l.Name] = l.Records
		}
		assertRecords(t, [][]byte{record(1, "a1"), record(2, "a2")}, byName[key.Name], "a released plan's records")
		assertRecords(t, [][]byte{record(1, "b1")}, byName["other"], "a held plan's records, read without its lock")
	})

	t.Run("account gate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := lock(t, s, holderA)
		defer a.Release()
		b, err := s.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: "other", BaseURL: key.BaseURL}, Owner: holderB})
		require.NoError(t, err)
		defer b.Release()
		require.NoError(t, b.Append(1, record(1, "b1")))

		// A refusal appends nothing and the lease goes on.
		refused := errors.New("account limit")
		err = a.AppendGated(ctx, "day 1", 1, record(1, "refused"), func(others []state.PlanLog) error {
			require.Len(t, others, 1, "the other plans, not this one")
			assert.Equal(t, "other", others[0].Name)
			assertRecords(t, [][]byte{record(1, "b1")}, others[0].Records, "the other plan's records under the gate")
			return refused
		})
		require.ErrorIs(t, err, refused)
		records, err := s.ReadLog(ctx, key)
		require.NoError(t, err)
		assert.Empty(t, records, "a refused record is not appended")

		// While a's check runs, b waits at the gate; b's check then reads
		// a's record, appended before a let go.
		inCheck, letGo := make(chan struct{}), make(chan struct{})
		aDone := make(chan error, 1)
		go func() {
			aDone <- a.AppendGated(ctx, "day 1", 1, record(1, "a1"), func([]state.PlanLog) error {
				close(inCheck)
				<-letGo
				return nil
			})
		}()
		<-inCheck
		bSaw := make(chan []state.PlanLog, 1)
		bDone := make(chan error, 1)
		go func() {
			bDone <- b.AppendGated(ctx, "day 1", 2, record(2, "b2"), func(others []state.PlanLog) error {
				bSaw <- others
				return nil
			})
		}()
		select {
		case <-bSaw:
			t.Fatal("b passed the gate while a held it")
		case <-time.After(300 * time.Millisecond):
		}
		close(letGo)
		require.NoError(t, <-aDone)
		others := <-bSaw
		require.NoError(t, <-bDone)
		require.Len(t, others, 1)
		assertRecords(t, [][]byte{record(1, "a1")}, others[0].Records, "b read a's record, committed before the gate let b in")

		// A wait for the gate is bounded by ctx; the lease survives it.
		inCheck, letGo = make(chan struct{}), make(chan struct{})
		go func() {
			aDone <- a.AppendGated(ctx, "day 1", 2, record(2, "a2"), func([]state.PlanLog) error {
				close(inCheck)
				<-letGo
				return nil
			})
		}()
		<-inCheck
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		err = b.AppendGated(short, "day 1", 3, record(3, "late"), func([]state.PlanLog) error { return nil })
		cancel()
		require.Error(t, err, "the gate is held")
		var lost *state.LockLostError
		assert.False(t, errors.As(err, &lost), "a wait for the gate does not lose the plan's lock: %v", err)
		close(letGo)
		require.NoError(t, <-aDone)
		require.NoError(t, b.Append(3, record(3, "b3")), "the lease goes on after a wait that timed out")
		records, err = s.ReadLog(ctx, state.PlanKey{Name: "other", BaseURL: key.BaseURL})
		require.NoError(t, err)
		assertRecords(t, [][]byte{record(1, "b1"), record(2, "b2"), record(3, "b3")}, records, "b's records")
	})

	t.Run("fenced gate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := lock(t, s, holderA)
		defer a.Release()
		_, err := s.Unlock(ctx, key, true)
		require.NoError(t, err)
		b := lock(t, s, holderB)
		defer b.Release()
		err = a.AppendGated(ctx, "day 1", 1, record(1, "fenced"), func([]state.PlanLog) error { return nil })
		var lost *state.LockLostError
		require.ErrorAs(t, err, &lost, "a fenced-off run appends nothing through the gate either")
		records, err := s.ReadLog(ctx, key)
		require.NoError(t, err)
		assert.Empty(t, records)
	})
}

func assertRecords(t *testing.T, want, got [][]byte, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		assert.JSONEq(t, string(want[i]), string(got[i]), "%s: record %d", msg, i+1)
	}
}
