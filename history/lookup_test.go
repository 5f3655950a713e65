package history_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/state"
)

// Journals written before outcome entries existed: their bets are read
// from the service by label once, with a progress line, kept in the
// outcome cache beside the journals, and the totals are the service's
// profits to the cent; the next history reads the cache alone. Without a
// service and a cache, it says which bets are missing.
func TestHistoryOldJournalsReadFromTheService(t *testing.T) {
	c := newCard(t, localStore)
	c.play()
	want := c.serviceProfit()
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
	read := func() []history.Bet {
		bets, skipped, err := history.Read(context.Background(), c.store.(state.EveryReader))
		require.NoError(t, err)
		require.Empty(t, skipped)
		return bets
	}
	today := c.clock.Now().AddDate(0, 0, 3).Format("2006-01-02")
	cachePath := filepath.Join(dir, history.CacheName)

	bets := read()
	idx := history.Unresolved(bets, today)
	require.Len(t, idx, len(c.bets), "every bet of the old journals")
	empty, err := history.OpenCache("")
	require.NoError(t, err)
	missing, err := history.Complete(context.Background(), bets, idx, nil, empty, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Len(t, missing, len(c.bets), "no service, no cache: every one is missing")

	cache, err := history.OpenCache(cachePath)
	require.NoError(t, err)
	var progress bytes.Buffer
	missing, err = history.Complete(context.Background(), bets, idx, c.client(), cache, &progress)
	require.NoError(t, err)
	assert.Empty(t, missing)
	assert.Contains(t, progress.String(), "reading 9 bets the journals kept no outcome of from the service")
	s := history.Summarise(bets, history.Query{Sim: true})
	assert.Equal(t, want, s.Total.Profit)

	again := read()
	cache, err = history.OpenCache(cachePath)
	require.NoError(t, err)
	progress.Reset()
	missing, err = history.Complete(context.Background(), again, history.Unresolved(again, today), nil, cache, &progress)
	require.NoError(t, err)
	assert.Empty(t, missing, "the cache holds them all")
	assert.Empty(t, progress.String(), "nothing read from the service again")
	s2 := history.Summarise(again, history.Query{Sim: true})
	assert.Equal(t, want, s2.Total.Profit)
	assert.Equal(t, s.Total.Refused, s2.Total.Refused)
}
