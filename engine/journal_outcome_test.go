package engine_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
)

// outcomeEntries reads the outcome entries of the plan's journal.
func outcomeEntries(t *testing.T, opts engine.Options, planName string) []engine.JournalOutcome {
	t.Helper()
	recs, err := opts.Store.ReadLog(context.Background(), state.PlanKey{Name: planName, BaseURL: opts.BaseURL})
	require.NoError(t, err)
	var out []engine.JournalOutcome
	for _, b := range recs {
		var e struct {
			Op      string                 `json:"op"`
			Label   string                 `json:"label"`
			Outcome *engine.JournalOutcome `json:"outcome"`
		}
		require.NoError(t, json.Unmarshal(b, &e))
		if e.Op == "outcome" {
			require.NotNil(t, e.Outcome, "%s", b)
			assert.Equal(t, e.Label, e.Outcome.Label)
			out = append(out, *e.Outcome)
		}
	}
	return out
}

// Each bet's outcome is kept once in the journal, with the service's
// profit and every session's part, so history reads the state alone; a
// rerun that reads the same outcomes adds none.
func TestRunKeepsEachOutcomeOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.twoBetPlan("")
	opts := w.options(w.client())
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	got := outcomeEntries(t, opts, p.Name)
	require.Len(t, got, len(res.Bets))
	byLabel := map[string]engine.JournalOutcome{}
	for _, o := range got {
		byLabel[o.Label] = o
	}
	for _, b := range res.Bets {
		o, ok := byLabel[b.Label]
		require.True(t, ok, "no outcome for %s", b.ID)
		assert.Equal(t, b.NotificationID, o.NotificationID)
		assert.Equal(t, b.Profit, o.Profit, b.ID)
		assert.Equal(t, b.AmountAccepted, o.Accepted, b.ID)
		assert.Equal(t, b.Race.Venue, o.Venue)
		assert.Equal(t, b.Race.Start.Format("2006-01-02"), o.Day)
		assert.Equal(t, "Fixed Wager", o.Type)
		assert.False(t, o.ResultTime.IsZero())
		want := map[bool]string{true: engine.OutcomeWon, false: engine.OutcomeLost}[b.Profit > 0]
		if b.Profit == 0 {
			want = engine.OutcomeVoid
		}
		assert.Equal(t, want, o.Result)
		require.Len(t, o.Sessions, len(b.Records))
		var sum float64
		for _, s := range o.Sessions {
			sum += s.Profit
		}
		assert.InDelta(t, b.Profit, sum, 0.011)
	}
}
