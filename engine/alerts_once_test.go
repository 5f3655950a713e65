package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
)

// TestAlertsOncePlacedAndSettledInOneRead: a cron run whose one read of a
// bet finds it placed and settled at once (the bot placed it and the race
// was resulted between two runs) raises placed and settled, each exactly
// once, and a later run raises neither again.
func TestAlertsOncePlacedAndSettledInOneRead(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[string]int{} // event of bet "first" → alerts received
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m notify.Message
		if json.Unmarshal(body, &m) == nil && m.Bet == "first" {
			mu.Lock()
			got[m.Event]++
			mu.Unlock()
		}
	}))
	t.Cleanup(hook.Close)
	targets, err := notify.Targets("plan.yaml", []plan.NotifyTarget{{URL: hook.URL + "/hook", On: []string{plan.EventPlaced, plan.EventSettled, plan.EventSummary}}}, func(string) string { return "" })
	require.NoError(t, err)

	w := newWorld(t)
	p, a := w.twoBetPlan(""), w.race("Galloping", 0)
	opts := w.options(w.client())
	opts.NoWait = true
	opts.Notify, opts.NotifyClient, opts.NotifyWithin = targets, hook.Client(), 5*time.Second
	opts.Log = logFunc(func(s string) { t.Log(s) })
	w.clock.Set(a.Start.Add(-9 * time.Minute))
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, engine.StatusCreated, betStatus(res, "first"))
	mu.Lock()
	assert.Empty(t, got, "created only: nothing to tell of the bet yet")
	mu.Unlock()

	// Placed a minute later and resulted after the race: the next run's
	// one read of the bet moves it through both.
	w.clock.Set(a.Start.Add(2 * time.Hour))
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, engine.StatusSettled, betStatus(res, "first"))
	mu.Lock()
	assert.Equal(t, map[string]int{plan.EventPlaced: 1, plan.EventSettled: 1}, got)
	mu.Unlock()

	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, map[string]int{plan.EventPlaced: 1, plan.EventSettled: 1}, got, "a later run tells nothing again")
	mu.Unlock()
}

func betStatus(res *engine.Result, id string) engine.Status {
	for _, b := range res.Bets {
		if b.ID == id {
			return b.Status
		}
	}
	return ""
}
