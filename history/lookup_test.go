package history_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// stripOutcomes makes the card's journals as an earlier betplan wrote
// them: no outcome entries.
func stripOutcomes(t *testing.T, c *card, stateURL, schema string) {
	if stateURL != "" {
		pgtest.Exec(t, stateURL, "DELETE FROM "+pgx.Identifier{schema, "journal"}.Sanitize()+" WHERE entry->>'op' = 'outcome'")
		return
	}
	dir := filepath.Join(c.dir, "state")
	journals, err := filepath.Glob(filepath.Join(dir, "sim", "*.journal.jsonl"))
	require.NoError(t, err)
	more, _ := filepath.Glob(filepath.Join(dir, "*.journal.jsonl"))
	journals = append(journals, more...)
	require.NotEmpty(t, journals)
	for _, p := range journals {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var kept []string
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.Contains(l, `"op":"outcome"`) {
				kept = append(kept, l)
			}
		}
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(kept, "")), 0o644))
	}
}

// Journals written before outcome entries existed: their bets are read
// from the service by label once, with a progress line, kept in the
// state's outcome cache (a file beside the journals, a table of
// PostgreSQL), and the totals are the service's profits to the cent, by
// session too; the next history reads the cache alone. Without a service
// and a cache, it says which bets are missing.
func TestHistoryOldJournalsReadFromTheService(t *testing.T) {
	for _, st := range []string{"local", "postgres"} {
		t.Run(st, func(t *testing.T) {
			var stateURL, schema string
			store := localStore
			if st == "postgres" {
				stateURL, schema = pgtest.Schema(t)
				cfg, err := postgres.ParseURL(stateURL, "", false)
				require.NoError(t, err)
				store = func(string) state.Store { return postgres.New(cfg) }
			}
			oldJournals(t, newCard(t, store), stateURL, schema)
		})
	}
}

func oldJournals(t *testing.T, c *card, stateURL, schema string) {
	c.play()
	want := c.serviceProfit()
	read := func() []history.Bet {
		bets, skipped, err := history.ReadBets(context.Background(), c.store.(state.EveryReader))
		require.NoError(t, err)
		require.Empty(t, skipped)
		return bets
	}
	bySession := func(bets []history.Bet) string {
		s := history.Summarise(bets, history.Query{By: []string{"session"}, Sim: true})
		var out bytes.Buffer
		require.NoError(t, history.WriteJSON(&out, &s))
		return out.String()
	}
	journalled := bySession(read())
	stripOutcomes(t, c, stateURL, schema)
	today := c.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
	kept := c.store.(state.OutcomeCache)

	bets := read()
	idx := history.Unresolved(bets, today)
	require.Len(t, idx, len(c.bets), "every bet of the old journals")
	empty, err := history.OpenCache(context.Background(), nil)
	require.NoError(t, err)
	missing, err := history.Complete(context.Background(), bets, idx, nil, empty, &bytes.Buffer{}, &history.Corruption{})
	require.NoError(t, err)
	assert.Len(t, missing, len(c.bets), "no service, no cache: every one is missing")

	cache, err := history.OpenCache(context.Background(), kept)
	require.NoError(t, err)
	var progress bytes.Buffer
	missing, err = history.Complete(context.Background(), bets, idx, c.client(), cache, &progress, &history.Corruption{})
	require.NoError(t, err)
	assert.Empty(t, missing)
	assert.Contains(t, progress.String(), fmt.Sprintf("reading %d bets the journals kept no outcome of from the service", len(c.bets)))
	s := history.Summarise(bets, history.Query{Sim: true})
	assert.Equal(t, want, s.Total.Profit)
	assert.Equal(t, journalled, bySession(bets), "by session, the looked-up bets split as the journalled ones did")

	again := read()
	cache, err = history.OpenCache(context.Background(), kept)
	require.NoError(t, err)
	progress.Reset()
	missing, err = history.Complete(context.Background(), again, history.Unresolved(again, today), nil, cache, &progress, &history.Corruption{})
	require.NoError(t, err)
	assert.Empty(t, missing, "the cache holds them all")
	assert.Empty(t, progress.String(), "nothing read from the service again")
	s2 := history.Summarise(again, history.Query{Sim: true})
	assert.Equal(t, want, s2.Total.Profit)
	assert.Equal(t, s.Total.Refused, s2.Total.Refused)
	assert.Equal(t, journalled, bySession(again), "by session, from the cache")

	if stateURL != "" {
		var n int
		pgtest.Query(t, stateURL, "SELECT count(*) FROM "+pgx.Identifier{schema, "history_outcomes"}.Sanitize(), nil, &n)
		assert.Equal(t, len(c.bets), n, "a row a bet in the cache's table")
		pgtest.Query(t, stateURL, "SELECT count(*) FROM "+pgx.Identifier{schema, "journal"}.Sanitize()+" WHERE entry->>'op' = 'outcome'", nil, &n)
		assert.Zero(t, n, "nothing written into a journal")
	} else {
		_, err := os.Stat(filepath.Join(c.dir, "state", local.OutcomeCacheName))
		require.NoError(t, err, "the cache beside the journals")
	}
}

// A database user that may only read: history still reads the old
// journals' bets from the service and totals them to the cent, says the
// outcomes it read could not be kept, and fails nothing; the next history
// reads them again.
func TestHistoryCacheThatCannotBeWritten(t *testing.T) {
	stateURL, schema := pgtest.Schema(t)
	cfg, err := postgres.ParseURL(stateURL, "", false)
	require.NoError(t, err)
	c := newCard(t, func(string) state.Store { return postgres.New(cfg) })
	c.play()
	want := c.serviceProfit()
	stripOutcomes(t, c, stateURL, schema)

	reader := "bp_reader_" + strings.TrimPrefix(schema, "bp_test_")
	id := pgx.Identifier{reader}.Sanitize()
	pgtest.Exec(t, stateURL, "CREATE ROLE "+id+" LOGIN")
	t.Cleanup(func() {
		pgtest.Exec(t, stateURL, "DROP OWNED BY "+id)
		pgtest.Exec(t, stateURL, "DROP ROLE "+id)
	})
	pgtest.Exec(t, stateURL, "GRANT USAGE ON SCHEMA "+pgx.Identifier{schema}.Sanitize()+" TO "+id)
	pgtest.Exec(t, stateURL, "GRANT SELECT ON ALL TABLES IN SCHEMA "+pgx.Identifier{schema}.Sanitize()+" TO "+id)
	u, err := url.Parse(stateURL)
	require.NoError(t, err)
	u.User = url.User(reader)
	readCfg, err := postgres.ParseURL(u.String(), "", false)
	require.NoError(t, err)
	store := postgres.New(readCfg)

	today := c.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
	for range 2 {
		bets, skipped, err := history.ReadBets(context.Background(), store)
		require.NoError(t, err)
		require.Empty(t, skipped)
		idx := history.Unresolved(bets, today)
		require.Len(t, idx, len(c.bets))
		cache, err := history.OpenCache(context.Background(), store)
		require.NoError(t, err)
		var progress bytes.Buffer
		missing, err := history.Complete(context.Background(), bets, idx, c.client(), cache, &progress, &history.Corruption{})
		require.NoError(t, err, "a cache that cannot be written fails nothing")
		assert.Empty(t, missing)
		assert.Equal(t, want, history.Summarise(bets, history.Query{Sim: true}).Total.Profit)
		assert.Contains(t, progress.String(), fmt.Sprintf("reading %d bets the journals kept no outcome of from the service", len(c.bets)), "read again: nothing was kept")
		assert.Contains(t, progress.String(), fmt.Sprintf("warning: the %d outcome(s) read from the service were not kept in the outcome cache, so the next history reads them again", len(c.bets)))
		assert.Contains(t, progress.String(), "permission denied")
	}
}

// memCache is an outcome cache in memory.
type memCache map[[2]string][]byte

func (m memCache) ReadOutcomes(_ context.Context, each func(service, label string, outcome []byte) error) error {
	for k, v := range m {
		if err := each(k[0], k[1], v); err != nil {
			return err
		}
	}
	return nil
}

func (m memCache) KeepOutcomes(_ context.Context, outcomes []state.KeptOutcome) error {
	for _, o := range outcomes {
		m[[2]string{o.Service, o.Label}] = o.Outcome
	}
	return nil
}

// Two plans on two services may give their bets one label: an outcome
// kept for one service's bet is not another's. One kept before the cache
// was keyed by service (none) serves a bet of that label on any service.
func TestHistoryCacheKeyedByService(t *testing.T) {
	cache := memCache{
		{"https://a.example.com", "bp:p:b1"}: []byte(`{"result":"won","profit":1,"sessions_read":true}`),
		{"", "bp:q:b2"}:                      []byte(`{"result":"lost","profit":-2,"sessions_read":true}`),
	}
	bets := []history.Bet{
		{Service: "https://a.example.com", Label: "bp:p:b1"},
		{Service: "https://b.example.com", Label: "bp:p:b1"},
		{Service: "https://b.example.com", Label: "bp:q:b2"},
	}
	c, err := history.OpenCache(context.Background(), cache)
	require.NoError(t, err)
	missing, err := history.Complete(context.Background(), bets, []int{0, 1, 2}, nil, c, &bytes.Buffer{}, &history.Corruption{})
	require.NoError(t, err)
	assert.Equal(t, []string{"bp:p:b1"}, missing, "the bet on b.example.com")
	assert.Equal(t, int64(100), bets[0].Profit)
	assert.False(t, bets[1].Final)
	assert.Equal(t, int64(-200), bets[2].Profit)
}

// An outcome the cache keeps with an amount that is not money (a row of
// history_outcomes edited by hand, say) is a corrupt record: counted and
// named with the cache, and its bet in no sum.
func TestHistoryCacheCorruptOutcome(t *testing.T) {
	cache := memCache{
		{"https://a.example.com", "bp:p:b1"}: []byte(`{"result":"won","profit":1e300,"day":"2026-01-05","sessions_read":true}`),
		{"https://a.example.com", "bp:p:b2"}: []byte(`{"result":"lost","accepted":2,"profit":-2,"day":"2026-01-05","sessions_read":true}`),
	}
	bets := []history.Bet{
		{Service: "https://a.example.com", Label: "bp:p:b1", Day: "2026-01-05"},
		{Service: "https://a.example.com", Label: "bp:p:b2", Day: "2026-01-05"},
	}
	c, err := history.OpenCache(context.Background(), cache)
	require.NoError(t, err)
	var corrupt history.Corruption
	missing, err := history.Complete(context.Background(), bets, []int{0, 1}, nil, c, &bytes.Buffer{}, &corrupt)
	require.NoError(t, err)
	assert.Empty(t, missing)
	require.Equal(t, 1, corrupt.N)
	assert.Contains(t, corrupt.Warning(), "(bet bp:p:b1): its profit 1e+300 is not an amount of money")
	s := history.Summarise(bets, history.Query{})
	assert.Equal(t, 1, s.Total.Bets, "the corrupt one in no sum")
	assert.Equal(t, int64(-200), s.Total.Profit)
}
