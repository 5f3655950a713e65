package statetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// RunOutcomeCacheTests runs the suite of history's outcome cache;
// newCache returns a cache no test has used.
func RunOutcomeCacheTests(t *testing.T, newCache func(t *testing.T) state.OutcomeCache) {
	ctx := context.Background()
	// read is the cache by label, of the service "" unless its outcomes
	// are keyed "service label".
	read := func(t *testing.T, c state.OutcomeCache) map[string]string {
		t.Helper()
		got := map[string]string{}
		require.NoError(t, c.ReadOutcomes(ctx, func(service, label string, outcome []byte) error {
			k := label
			if service != "" {
				k = service + " " + label
			}
			_, twice := got[k]
			assert.False(t, twice, "%s handed on twice", k)
			got[k] = string(outcome)
			return nil
		}))
		return got
	}

	t.Run("kept and read back, the last of a label", func(t *testing.T) {
		t.Parallel()
		c := newCache(t)
		assert.Empty(t, read(t, c), "nothing kept yet")
		require.NoError(t, c.KeepOutcomes(ctx, nil))
		require.NoError(t, c.KeepOutcomes(ctx, []state.KeptOutcome{
			{Label: "bp:a:b1:1", Outcome: []byte(`{"result":"won","profit":12.5}`)},
			{Label: "bp:a:b2:2", Outcome: []byte(`{"result":"lost","profit":-4}`)},
		}))
		got := read(t, c)
		require.Len(t, got, 2)
		assert.JSONEq(t, `{"result":"won","profit":12.5}`, got["bp:a:b1:1"])
		assert.JSONEq(t, `{"result":"lost","profit":-4}`, got["bp:a:b2:2"])

		require.NoError(t, c.KeepOutcomes(ctx, []state.KeptOutcome{
			{Label: "bp:a:b1:1", Outcome: []byte(`{"result":"won","profit":13}`)},
			{Label: "bp:a:b3:3", Outcome: []byte(`{"result":"void"}`)},
			{Label: "bp:a:b3:3", Outcome: []byte(`{"result":"void","profit":0}`)},
		}))
		got = read(t, c)
		require.Len(t, got, 3)
		assert.JSONEq(t, `{"result":"won","profit":13}`, got["bp:a:b1:1"], "kept in place of the first")
		assert.JSONEq(t, `{"result":"lost","profit":-4}`, got["bp:a:b2:2"])
		assert.JSONEq(t, `{"result":"void","profit":0}`, got["bp:a:b3:3"], "the last given")
	})

	t.Run("one label on two services, kept apart", func(t *testing.T) {
		t.Parallel()
		c := newCache(t)
		require.NoError(t, c.KeepOutcomes(ctx, []state.KeptOutcome{
			{Service: "https://a.example.com", Label: "bp:a:b1:1", Outcome: []byte(`{"result":"won","profit":1}`)},
			{Service: "https://b.example.com", Label: "bp:a:b1:1", Outcome: []byte(`{"result":"lost","profit":-2}`)},
			{Label: "bp:a:b1:1", Outcome: []byte(`{"result":"void","profit":0}`)},
		}))
		require.NoError(t, c.KeepOutcomes(ctx, []state.KeptOutcome{
			{Service: "https://b.example.com", Label: "bp:a:b1:1", Outcome: []byte(`{"result":"lost","profit":-3}`)},
		}))
		got := read(t, c)
		require.Len(t, got, 3)
		assert.JSONEq(t, `{"result":"won","profit":1}`, got["https://a.example.com bp:a:b1:1"])
		assert.JSONEq(t, `{"result":"lost","profit":-3}`, got["https://b.example.com bp:a:b1:1"], "in place of its own service's only")
		assert.JSONEq(t, `{"result":"void","profit":0}`, got["bp:a:b1:1"])
	})

	t.Run("never in a journal", func(t *testing.T) {
		t.Parallel()
		c := newCache(t)
		require.NoError(t, c.KeepOutcomes(ctx, []state.KeptOutcome{{Label: "bp:a:b1:1", Outcome: []byte(`{"result":"won"}`)}}))
		every, ok := c.(state.EveryReader)
		if !ok {
			return
		}
		n := 0
		require.NoError(t, every.ReadEvery(ctx, nil, func(j state.StoredJournal) error {
			n++
			return j.Read(func([]byte) error { return nil })
		}))
		assert.Zero(t, n, "keeping an outcome begins no journal")
	})
}
