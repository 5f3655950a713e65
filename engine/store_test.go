package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// The one suite every Store passes: the local files and the shared
// PostgreSQL state behave the same to the engine.
func TestStores(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		t.Parallel()
		storeSuite(t, func(t *testing.T) state.Store {
			dir := t.TempDir()
			return local.Store{Layout: local.Layout{Dir: filepath.Join(dir, "state"), LockDir: filepath.Join(dir, "locks")}}
		})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		pgtest.ServerURL(t)
		storeSuite(t, func(t *testing.T) state.Store {
			url, _ := pgtest.Schema(t)
			cfg, err := postgres.ParseURL(url, "", false)
			require.NoError(t, err)
			s := postgres.New(cfg)
			s.Retry = 20 * time.Millisecond
			return s
		})
	})
}

var (
	cardKey = state.PlanKey{Name: "card", BaseURL: "https://betting.example.com/api"}
	holderA = state.LockOwner{PID: 101, Host: "runner-a", PlanFile: "card.yaml", Command: "betplan run", Since: time.Date(2026, 11, 21, 1, 2, 3, 0, time.UTC)}
	holderB = state.LockOwner{PID: 202, Host: "runner-b", PlanFile: "card.yaml", Command: "betplan run", Since: time.Date(2026, 11, 21, 1, 2, 4, 0, time.UTC)}
)

func storeSuite(t *testing.T, newStore func(t *testing.T) state.Store) {
	ctx := context.Background()
	lock := func(t *testing.T, s state.Store, owner state.LockOwner) *journaled {
		t.Helper()
		l, err := s.Lock(ctx, state.LockRequest{PlanKey: cardKey, Owner: owner})
		require.NoError(t, err)
		return withJournal(t, l)
	}

	// Locks, fencing of raw appends and stop marks are the conformance
	// suite's (package statetest, run by each store); this suite checks
	// the journal's meaning through each store.
	t.Run("replay", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		j, err := engine.ReadPlanJournal(ctx, s, cardKey)
		require.NoError(t, err)
		assert.True(t, j.Fresh(), "no journal yet")
		assert.Empty(t, j.Labels())

		l := lock(t, s, holderA)
		j = l.Journal()
		assert.True(t, j.Fresh())
		race := &engine.RaceInfo{Venue: "Flemington", Code: "Galloping", EventNumber: 4}
		for _, e := range []engine.JournalEntry{
			{Op: engine.OpCreating, Label: "a", BetID: "bet-a", Amount: 10, Race: race},
			{Op: engine.OpCreated, Label: "a", NotificationID: 501},
			{Op: engine.OpCreating, Label: "b", BetID: "bet-b", Amount: 5},
			{Op: engine.OpCreating, Label: "c", BetID: "bet-c", Amount: 7},
			{Op: engine.OpAbsent, Label: "c"},
			{Op: engine.OpCreating, Label: "d", BetID: "bet-d", Amount: 3},
			{Op: engine.OpCreated, Label: "d", NotificationID: 503},
			{Op: engine.OpCanceled, Label: "d", NotificationID: 503},
		} {
			require.NoError(t, j.Record(e))
		}
		lineage, serial := j.Lineage(), j.Serial()
		assert.NotEmpty(t, lineage)
		assert.Equal(t, int64(9), serial, "the init entry and eight more")
		require.NoError(t, l.Release())

		check := func(t *testing.T, j *engine.Journal) {
			t.Helper()
			assert.False(t, j.Fresh())
			assert.Equal(t, lineage, j.Lineage(), "the lineage survives")
			assert.Equal(t, serial, j.Serial())
			a := j.State("a")
			require.NotNil(t, a)
			assert.Equal(t, int64(501), a.NotificationID)
			assert.False(t, a.Pending)
			assert.Equal(t, *race, a.Race)
			assert.Equal(t, "bet-a", a.BetID)
			assert.True(t, j.State("b").Pending, "a creating with no outcome is a pending create")
			assert.False(t, j.State("c").Pending, "absent settles it")
			assert.True(t, j.State("d").Canceled)
			assert.Nil(t, j.State("e"))
			amount, count := j.Committed()
			assert.Equal(t, 15.0, amount, "created and pending count; absent and canceled do not")
			assert.Equal(t, 2, count)
			assert.Equal(t, []string{"a", "b", "c", "d"}, j.Labels())
		}
		t.Run("read", func(t *testing.T) {
			j, err := engine.ReadPlanJournal(ctx, s, cardKey)
			require.NoError(t, err)
			check(t, j)
			assert.Error(t, j.Record(engine.JournalEntry{Op: engine.OpCreating, Label: "x"}), "a read journal is read-only")
		})
		t.Run("locked again", func(t *testing.T) {
			l := lock(t, s, holderB)
			defer l.Release()
			check(t, l.Journal())
			require.NoError(t, l.Journal().Record(engine.JournalEntry{Op: engine.OpCreated, Label: "b", NotificationID: 502}))
			assert.Equal(t, serial+1, l.Journal().Serial())
		})
		j, err = engine.ReadPlanJournal(ctx, s, cardKey)
		require.NoError(t, err)
		assert.Equal(t, int64(502), j.State("b").NotificationID)
		assert.Equal(t, lineage, j.Lineage())
	})

	t.Run("fencing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := lock(t, s, holderA)
		defer a.Release()
		require.NoError(t, a.Journal().Record(engine.JournalEntry{Op: engine.OpCreating, Label: "a", Amount: 2}))

		owner, err := s.Unlock(ctx, cardKey, true)
		require.NoError(t, err)
		assert.Equal(t, holderA.Host, owner.Host)

		b := lock(t, s, holderB)
		defer b.Release()
		err = a.Journal().Record(engine.JournalEntry{Op: engine.OpCreating, Label: "fenced", Amount: 2})
		var lost *state.LockLostError
		require.ErrorAs(t, err, &lost, "a fenced-off run writes nothing")
		assert.True(t, engine.IsRefused(err))
		select {
		case <-a.Lost():
		case <-time.After(5 * time.Second):
			t.Fatal("the lease does not say it is lost")
		}
		require.ErrorAs(t, a.Err(), &lost)

		require.NoError(t, b.Journal().Record(engine.JournalEntry{Op: engine.OpCreated, Label: "a", NotificationID: 9}))
		j, err := engine.ReadPlanJournal(ctx, s, cardKey)
		require.NoError(t, err)
		assert.Nil(t, j.State("fenced"), "the fenced write did not land")
		assert.Equal(t, int64(9), j.State("a").NotificationID, "the new holder's did")
	})

	t.Run("unlock a free lock", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		_, err := s.Unlock(ctx, cardKey, false)
		require.Error(t, err, "nothing to unlock")
		var locked *state.LockedError
		assert.NotErrorAs(t, err, &locked)
	})
}

// A run fenced off by the epoch alone (its session still alive) writes
// nothing: the check is in the write itself.
func TestPostgresWriteChecksTheEpoch(t *testing.T) {
	t.Parallel()
	url, schema := pgtest.Schema(t)
	server := pgtest.ServerURL(t)
	cfg, err := postgres.ParseURL(url, "", false)
	require.NoError(t, err)
	s := postgres.New(cfg)
	s.WatchEvery = time.Hour // only the write can notice
	lease, err := s.Lock(context.Background(), state.LockRequest{PlanKey: cardKey})
	require.NoError(t, err)
	defer lease.Release()
	l := withJournal(t, lease)
	require.NoError(t, l.Journal().Record(engine.JournalEntry{Op: engine.OpCreating, Label: "a"}))
	pgtest.Exec(t, server, fmt.Sprintf("UPDATE %s.plans SET epoch = epoch + 1", schema))

	err = l.Journal().Record(engine.JournalEntry{Op: engine.OpCreating, Label: "b"})
	var lost *state.LockLostError
	require.ErrorAs(t, err, &lost)
	assert.Contains(t, err.Error(), "another run took it over")
	var rows int
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.journal WHERE entry->>'label' = 'b'", schema), nil, &rows)
	assert.Zero(t, rows)
	<-l.Lost()
}

// pgStore is a store in a fresh schema, optionally reached through a
// proxy that counts the client's messages.
func pgStore(t testing.TB, via *pgtest.Proxy) *postgres.Store {
	url, _ := pgtest.Schema(t)
	if via != nil {
		url = strings.Replace(url, "127.0.0.1:5432", via.Addr(), 1)
	}
	cfg, err := postgres.ParseURL(url, "", false)
	require.NoError(t, err)
	s := postgres.New(cfg)
	s.WatchEvery = time.Hour // only the journal's own traffic is measured
	return s
}

// The shared state changes nothing of what the service sees.
func TestSharedStateSameCalls(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	pgtest.ServerURL(t)
	calls := map[string]int{}
	for _, store := range []string{"local", "postgres"} {
		w := newWorld(t)
		p := w.plan(w.bigPlan(20))
		opts := w.options(w.client())
		if store == "postgres" {
			opts.Store = pgStore(t, nil)
		}
		res, err := engine.Run(context.Background(), p, opts)
		require.NoError(t, err)
		assert.Equal(t, 20, w.svc.NotificationCount())
		assertOnePerLabel(t, w.svc, res)
		calls[store] = len(w.svc.Requests())
	}
	assert.Equal(t, calls["local"], calls["postgres"], "API calls for 20 bets")
}

// BenchmarkRunPerBetShared is BenchmarkRunPerBet with the journal and the
// lock in the shared state: the engine's cost per bet and API calls per
// bet (the same as with the local files).
func BenchmarkRunPerBetShared(b *testing.B) {
	pgtest.ServerURL(b)
	const n = 200
	b.ReportAllocs()
	var calls int
	for b.Loop() {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(w.bigPlan(n))
		opts := w.options(w.client())
		opts.Store = pgStore(b, nil)
		b.StartTimer()
		if _, err := engine.Run(context.Background(), p, opts); err != nil {
			b.Fatal(err)
		}
		calls = len(w.svc.Requests())
	}
	b.ReportMetric(float64(calls)/n, "calls/bet")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/bet")
}

// BenchmarkJournalRecord is the cost of one journal record (a `creating`
// before every create, a `created` after): the fsync'd local file, and the
// shared state on loopback, whose round trips per record are counted.
func BenchmarkJournalRecord(b *testing.B) {
	record := func(b *testing.B, s state.Store, sent func() int64) {
		l, err := s.Lock(context.Background(), state.LockRequest{PlanKey: cardKey})
		require.NoError(b, err)
		defer l.Release()
		j := withJournal(b, l).Journal()
		// The first write prepares the statement; measure the steady state.
		require.NoError(b, j.Record(engine.JournalEntry{Op: engine.OpCreating, Label: "warm-up", Amount: 1}))
		race := &engine.RaceInfo{Venue: "Flemington", Code: "Galloping", EventNumber: 4}
		before := sent()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if err := j.Record(engine.JournalEntry{Op: engine.OpCreating, Label: fmt.Sprintf("bp:card:b%d:0123456789ab", i), BetID: "b", Amount: 5, Race: race, Attempt: 1}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if n := sent() - before; n > 0 {
			b.ReportMetric(float64(n)/float64(b.N), "roundtrips/record")
		}
	}
	b.Run("local", func(b *testing.B) {
		dir := b.TempDir()
		record(b, local.Store{Layout: local.Layout{Dir: filepath.Join(dir, "state"), LockDir: filepath.Join(dir, "locks")}}, func() int64 { return 0 })
	})
	b.Run("postgres", func(b *testing.B) {
		pgtest.ServerURL(b)
		proxy := pgtest.NewProxy(b, "127.0.0.1:5432")
		record(b, pgStore(b, proxy), proxy.Sent)
	})
	b.Run("postgres-direct", func(b *testing.B) {
		pgtest.ServerURL(b)
		record(b, pgStore(b, nil), func() int64 { return 0 })
	})
}

// journaled is a lease with the journal the engine opens under it.
type journaled struct {
	state.Lease
	j *engine.Journal
}

func (l *journaled) Journal() *engine.Journal { return l.j }

func withJournal(t testing.TB, l state.Lease) *journaled {
	t.Helper()
	j, err := engine.OpenLeaseJournal("test", l)
	require.NoError(t, err)
	return &journaled{Lease: l, j: j}
}

// TestCommandsNeedAStore: the engine never picks where a plan's journal
// and lock live; a command given no store says so before any request
// (the options here have no backend either, so any I/O would panic).
func TestCommandsNeedAStore(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := engine.Options{PlanFile: filepath.Join(w.dir, "plan.yaml"), BaseURL: w.srv.URL}
	ctx := context.Background()
	commands := map[string]func() error{
		"run":    func() error { _, err := engine.Run(ctx, p, opts); return err },
		"apply":  func() error { _, err := engine.ApplySaved(ctx, p, &engine.SavedPlan{}, opts); return err },
		"plan":   func() error { _, _, err := engine.Preview(ctx, p, opts); return err },
		"status": func() error { _, err := engine.ReadStatus(ctx, p, opts); return err },
		"cancel": func() error { _, err := engine.Cancel(ctx, p, nil, opts); return err },
		"ids":    func() error { return engine.CheckCancelIDs(ctx, p, []string{"first"}, opts) },
		"stop":   func() error { _, err := engine.Stop(ctx, p, opts); return err },
		"resume": func() error { _, err := engine.Resume(ctx, p, opts); return err },
	}
	for name, command := range commands {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, command(), engine.ErrNoStore)
		})
	}
	assert.Zero(t, w.svc.NotificationCount())
}
