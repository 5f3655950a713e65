package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// sportsEvent returns the n-th upcoming event of a sport.
func (w *world) sportsEvent(sport string, n int) sim.SportsEventInfo {
	w.t.Helper()
	var got []sim.SportsEventInfo
	for _, e := range w.svc.SportsEvents() {
		if e.Sport == sport && e.Start.After(w.clock.Now()) {
			got = append(got, e)
		}
	}
	require.Greater(w.t, len(got), n, "the simulated world has too few %s events", sport)
	return got[n]
}

func marketOf(e sim.SportsEventInfo, name string) sim.SportsMarketInfo {
	for _, m := range e.Markets {
		if m.Name == name {
			return m
		}
	}
	panic("no market " + name)
}

const sportsHead = `version: 1
name: footy
poll: {interval: 30s, timeout: 6h}
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
defaults: {type: Fixed Wager, target_session: "4417", stake: 10}
bets:
`

// TestEventResolution: an event bet resolves by id or by sport and name
// (spelt loosely), and an unknown event, market or selection is
// unresolved with the nearest names, as races are.
func TestEventResolution(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl, nba := w.sportsEvent("AFL", 0), w.sportsEvent("NBA", 0)
	line := marketOf(afl, "Line")
	tests := []struct {
		name   string
		bet    string
		status engine.Status
		want   []string // in the reason, or for a resolved bet in "id market_id selection_id handicap"
	}{
		{"by id", fmt.Sprintf(`{id: "%d"}, market: Line, selection: Carlton`, afl.ID), engine.StatusWaiting,
			[]string{fmt.Sprintf("%d %d %d %v", afl.ID, line.ID, line.Selections[1].ID, line.Selections[1].Line)}},
		{"by id with its sport and name", fmt.Sprintf(`{id: %d, sport: afl, name: Collingwood v Carlton}, market: line, selection: carlton`, afl.ID), engine.StatusWaiting,
			[]string{fmt.Sprintf("%d %d %d", afl.ID, line.ID, line.Selections[1].ID)}},
		{"by sport and name, spelt loosely", `{sport: AFL, name: "collingwood  VS carlton"}, market: HEAD TO HEAD, selection: Collingwood`, engine.StatusWaiting,
			[]string{fmt.Sprintf("%d %d %d", afl.ID, marketOf(afl, "Head To Head").ID, marketOf(afl, "Head To Head").Selections[0].ID)}},
		{"a line of the plan's", fmt.Sprintf(`{id: "%d"}, market: Line, selection: Lakers, handicap: -3`, nba.ID), engine.StatusWaiting,
			[]string{fmt.Sprintf("%d %d %d -3", nba.ID, marketOf(nba, "Line").ID, marketOf(nba, "Line").Selections[0].ID)}},
		{"unknown event name", `{sport: AFL, name: Collingwood v Carlten}, market: Line, selection: Carlton`, engine.StatusUnresolved,
			[]string{`no upcoming AFL event "Collingwood v Carlten" is listed; did you mean "Collingwood v Carlton"?`}},
		{"unknown sport", `{sport: AFLL, name: Collingwood v Carlton}, market: Line, selection: Carlton`, engine.StatusUnresolved,
			[]string{"no AFLL events are listed; did you mean AFL?"}},
		{"unknown id", `{id: "1"}, market: Line, selection: Carlton`, engine.StatusUnresolved,
			[]string{"the service has no event 1 (upcoming sports events: ", "Collingwood v Carlton"}},
		{"an id that is another event", fmt.Sprintf(`{id: "%d", name: Collingwood v Carlton}, market: Line, selection: Carlton`, nba.ID), engine.StatusUnresolved,
			[]string{fmt.Sprintf("event %d is Lakers v Celtics (NBA), not Collingwood v Carlton: check the id", nba.ID)}},
		{"unknown market", fmt.Sprintf(`{id: "%d"}, market: Head to Hed, selection: Carlton`, afl.ID), engine.StatusUnresolved,
			[]string{`Collingwood v Carlton has no market "Head to Hed"; did you mean "Head To Head"?`}},
		{"unknown market, nothing near", fmt.Sprintf(`{id: "%d"}, market: First Goal Scorer, selection: Carlton`, afl.ID), engine.StatusUnresolved,
			[]string{`no market "First Goal Scorer" (markets: Head To Head, Line, Total Points)`}},
		{"unknown selection", fmt.Sprintf(`{id: "%d"}, market: Line, selection: Carltn`, afl.ID), engine.StatusUnresolved,
			[]string{`Collingwood v Carlton Line has no selection "Carltn"; did you mean "Carlton"?`}},
		{"unknown selection, nothing near", fmt.Sprintf(`{id: "%d"}, market: Total Points, selection: Richmond`, afl.ID), engine.StatusUnresolved,
			[]string{`has no selection "Richmond" (selections: Over, Under)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := w.plan(sportsHead + "  - {id: x, event: " + tt.bet + "}\n")
			res, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
			require.NoError(t, err)
			require.Len(t, res.Bets, 1)
			b := res.Bets[0]
			assert.Equal(t, tt.status, b.Status, b.Reason)
			if tt.status == engine.StatusUnresolved {
				assert.Equal(t, engine.ActionUnresolved, b.Action)
				for _, s := range tt.want {
					assert.Contains(t, b.Reason, s)
				}
				assert.Empty(t, b.Label, "an unresolved bet has no label yet")
				return
			}
			e := b.Race.Event
			require.NotNil(t, e)
			got := fmt.Sprintf("%s %s %s", e.ID, e.MarketID, e.SelectionID)
			if e.Handicap != nil {
				got += fmt.Sprintf(" %v", *e.Handicap)
			}
			assert.True(t, strings.HasPrefix(got, tt.want[0]), "got %q, want %q", got, tt.want[0])
			assert.Equal(t, engine.Label("footy", "x", b.Race), b.Label)
		})
	}
	assert.Zero(t, w.svc.NotificationCount())
}

// TestEventPlanMakesNoEventCallsForRaces: the event endpoints are read
// only when the plan has event bets, once per refresh plus one detail per
// event.
func TestEventCalls(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl := w.sportsEvent("AFL", 0)
	count := func(p string) map[string]int {
		w.svc.ResetRequests()
		_, _, err := engine.Preview(context.Background(), w.plan(p), w.options(w.client()))
		require.NoError(t, err)
		out := map[string]int{}
		for _, r := range w.svc.Requests() {
			if strings.HasPrefix(r.Path, "/event/") {
				out[r.Path]++
			}
		}
		return out
	}
	assert.Empty(t, count(sportsHead+fmt.Sprintf(`  - id: r
    race: %s
    market: Fixed Win
    selection: "1"
`, raceYAML(w.race("Galloping", 0)))), "a racing plan reads no events")
	assert.Equal(t, map[string]int{"/event/list/": 1, fmt.Sprintf("/event/%d/", afl.ID): 1}, count(sportsHead+fmt.Sprintf(`  - id: a
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Line
    selection: Carlton
  - id: b
    event: {id: %d}
    market: Head To Head
    selection: Collingwood
`, afl.ID)), "one list, one detail for two bets on the event")
}

// createBodies records the create calls' bodies on their way to the sim.
type createBodies struct {
	svc    http.Handler
	mu     sync.Mutex
	bodies []string
}

func (h *createBodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && r.URL.Path == "/notification/create/" {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	h.svc.ServeHTTP(w, r)
}

// TestEventCreateOnTheWire: the create body of an event bet is exactly
// the sports fields, ids as numbers, the line, and no racing field.
func TestEventCreateOnTheWire(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rec := &createBodies{svc: w.svc}
	w.srv.Config.Handler = rec
	afl, nba := w.sportsEvent("AFL", 0), w.sportsEvent("NBA", 0)
	line, total := marketOf(afl, "Line"), marketOf(nba, "Total Points")
	p := w.plan(sportsHead + fmt.Sprintf(`  - id: pies
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Line
    selection: Collingwood
    options: {accept_better_line: true, check_odds: true, odds: 1.5}
  - id: under
    event: {id: "%d"}
    market: Total Points
    selection: Under
    handicap: %v
    type: Fixed Profit
    target_profit: 15
  - id: h2h
    event: {id: "%d"}
    market: Head To Head
    selection: Celtics
    stake: 4.5
`, nba.ID, total.Selections[1].Line, nba.ID))
	opts := w.options(w.client())
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, rec.bodies, 3)
	labels := map[string]string{}
	for _, b := range res.Bets {
		labels[b.ID] = b.Label
	}
	want := map[string]string{
		"pies": fmt.Sprintf(`{"type":"Fixed Wager","sports":"AFL","stake":10,"label":%q,"target_session":"4417","event_id":%d,"sports_market":%d,"sports_selection":%d,"handicap":%v,"accept_better_line":true,"check_odds":true,"odds":1.5}`,
			labels["pies"], afl.ID, line.ID, line.Selections[0].ID, line.Selections[0].Line),
		"under": fmt.Sprintf(`{"type":"Fixed Profit","sports":"NBA","target_profit":15,"label":%q,"target_session":"4417","event_id":%d,"sports_market":%d,"sports_selection":%d,"handicap":%v}`,
			labels["under"], nba.ID, total.ID, total.Selections[1].ID, total.Selections[1].Line),
		"h2h": fmt.Sprintf(`{"type":"Fixed Wager","sports":"NBA","stake":4.5,"label":%q,"target_session":"4417","event_id":%d,"sports_market":%d,"sports_selection":%d}`,
			labels["h2h"], nba.ID, marketOf(nba, "Head To Head").ID, marketOf(nba, "Head To Head").Selections[1].ID),
	}
	for _, body := range rec.bodies {
		var m struct{ Label string }
		require.NoError(t, json.Unmarshal([]byte(body), &m))
		id := strings.Split(m.Label, ":")[2]
		assert.Equal(t, want[id], body, "bet %s", id)
	}
}

// TestEventCreateFaultMatrix: every fault of the racing matrix, on an
// event bet, ends in exactly one notification, a create that landed never
// sent again.
func TestEventCreateFaultMatrix(t *testing.T) {
	t.Parallel()
	runCreateFaults(t, []createFault{
		{"commit then 500", sim.Fault{Kind: sim.CommitThenStatus, Status: 500}},
		{"commit then timeout", sim.Fault{Kind: sim.CommitThenTimeout, Latency: 5 * time.Second}},
		{"commit then connection drop", sim.Fault{Kind: sim.CommitThenDrop}},
		{"500 before commit", sim.Fault{Kind: sim.StatusFault, Status: 500}},
		{"connection drop before commit", sim.Fault{Kind: sim.Drop}},
		{"429", sim.Fault{Kind: sim.RateLimit, RetryAfter: time.Second}},
	}, 1, func(w *world) *plan.Plan {
		return w.plan(sportsHead + `  - id: pies
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Head To Head
    selection: Carlton
    when: event.minutes_to_start <= 10
`)
	})
}

// TestEventBetsRehearsed plays event bets to the final score: each is
// created once when its condition holds, placed, and settled won, lost or
// void by the score; a re-run, and a run with the state dir lost, create
// nothing again.
func TestEventBetsRehearsed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl, nba := w.sportsEvent("AFL", 0), w.sportsEvent("NBA", 0)
	line := marketOf(afl, "Line")
	p := w.plan(sportsHead + fmt.Sprintf(`  - id: pies-h2h
    event: {sport: AFL, name: collingwood vs carlton}
    market: head to head
    selection: Collingwood
    when: event.minutes_to_start <= 10 && len(event.markets) == 3
  - id: blues-line
    event: {id: "%d"}
    market: Line
    selection: Carlton
    stake: "event.selection.odds > 1.5 ? 5 : 1"
    when: event.minutes_to_start <= 5
  - id: under
    event: {id: %d, sport: NBA, name: Lakers v Celtics}
    market: Total Points
    selection: Under
    stake: 5
    when: event.minutes_to_start <= 5 && event.selection.odds > 1.2 && event.selection.handicap > 100
`, afl.ID, nba.ID))
	opts := w.options(w.client())
	var log strings.Builder
	opts.Log = logFunc(func(s string) { log.WriteString(s) })
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err, log.String())
	require.Len(t, res.Bets, 3)
	assert.Equal(t, engine.EndCompleted, res.EndReason)
	assert.False(t, res.Failed())

	// What the sim knows of the outcome.
	events := map[string]sim.SportsEventInfo{}
	for _, e := range w.svc.SportsEvents() {
		events[fmt.Sprint(e.ID)] = e
	}
	a, n := events[fmt.Sprint(afl.ID)], events[fmt.Sprint(nba.ID)]
	require.NotEmpty(t, a.Result)
	margin := float64(a.HomeScore - a.AwayScore)
	want := map[string]float64{ // > 0 won, < 0 lost, 0 void
		"pies-h2h":   margin,
		"blues-line": -margin + line.Selections[1].Line,
		"under":      marketOf(nba, "Total Points").Selections[1].Line - float64(n.HomeScore+n.AwayScore),
	}
	for _, b := range res.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, "%s: %s", b.ID, b.Reason)
		assert.True(t, b.Final)
		require.NotNil(t, b.Race.Event, b.ID)
		assert.Contains(t, b.Reason, "result "+events[b.Race.Event.ID].Result, b.ID)
		switch w := want[b.ID]; {
		case w > 0:
			assert.Positive(t, b.Profit, "%s should have won", b.ID)
		case w < 0:
			assert.Equal(t, -b.AmountAccepted, b.Profit, "%s should have lost", b.ID)
		default:
			assert.Zero(t, b.Profit, "%s should be void", b.ID)
		}
		assert.NotEmpty(t, b.PlacedBy, b.ID)
		assert.False(t, b.CreatedAt.After(b.Race.Start), "%s was created after its event started", b.ID)
	}
	byID := map[string]engine.BetResult{}
	for _, b := range res.Bets {
		byID[b.ID] = b
	}
	assert.Equal(t, fmt.Sprintf("Carlton +%v", line.Selections[1].Line), byID["blues-line"].Selection)
	assert.Equal(t, "Head To Head", byID["pies-h2h"].Market, "the event's spelling")
	wantStake := 1.0
	if line.Selections[1].Odds > 1.5 {
		wantStake = 5
	}
	assert.Equal(t, wantStake, *byID["blues-line"].Stake, "the amount saw event.selection.odds")
	assert.Contains(t, log.String(), "created pies-h2h on Collingwood v Carlton (AFL): notification ")
	assert.Equal(t, apiclient.EventAssumptions, res.Assumptions, "the report says what was assumed of the event endpoints")

	// status reads the same outcomes back, events and all.
	st, err := engine.ReadStatus(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, st.Bets, 3)
	for _, b := range st.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, b.ID)
		assert.Equal(t, byID[b.ID].Race.Event.ID, b.Race.Event.ID, b.ID)
		assert.Equal(t, byID[b.ID].Profit, b.Profit, b.ID)
	}

	// Again with the journal, and again with the state dir lost: nothing
	// is created twice, and the event is recovered from the service.
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	w.moveState(&opts, "lost")
	again, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, 3, w.svc.NotificationCount())
	assertOnePerLabel(t, w.svc, again)
	require.Len(t, again.Bets, 3, "a bet on today's game is not reached for on tomorrow's")
	for _, b := range again.Bets {
		assert.Equal(t, engine.StatusSettled, b.Status, b.ID)
		require.NotNil(t, b.Race.Event, b.ID)
		assert.Equal(t, byID[b.ID].Race.Event.ID, b.Race.Event.ID, b.ID)
		assert.Equal(t, byID[b.ID].Label, b.Label)
	}
}

// TestEventBetSkippedOnceStarted: an event bet whose condition never held
// before the start is skipped, with the values it saw, like a racing bet.
func TestEventBetSkippedOnceStarted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.plan(sportsHead + `  - id: never
    event: {sport: Tennis, name: M. Ferraro v J. Whitlock}
    market: Head To Head
    selection: M. Ferraro
    when: event.selection.odds > 100
`)
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	b := res.Bets[0]
	assert.Equal(t, engine.StatusSkipped, b.Status)
	assert.Contains(t, b.Reason, `the event started before "event.selection.odds > 100" was true (event.selection.odds = `)
	assert.Zero(t, w.svc.NotificationCount())
}

func TestEventLabel(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 21, 19, 40, 0, 0, time.FixedZone("", 11*3600))
	ev := func(id string, start time.Time) engine.RaceInfo {
		return engine.RaceInfo{Start: start, Event: &engine.EventInfo{ID: id, Sport: "AFL", Name: "Collingwood v Carlton", Market: "Line", Selection: "Carlton"}}
	}
	l := engine.Label("footy", "pies", ev("9003", start))
	assert.Equal(t, l, engine.Label("footy", "pies", ev("9003", start)), "deterministic")
	other := ev("9003", start)
	other.Event.Market, other.Event.Selection, other.Event.Name = "Head To Head", "Collingwood", "Pies v Blues"
	assert.Equal(t, l, engine.Label("footy", "pies", other), "the label is the bet's on the event, whatever it backs")
	assert.NotEqual(t, l, engine.Label("footy", "pies", ev("9103", start)), "another event")
	assert.NotEqual(t, l, engine.Label("footy", "pies", ev("9003", start.Add(24*time.Hour))), "another date")
	assert.NotEqual(t, l, engine.Label("footy", "blues", ev("9003", start)), "another bet")
	assert.NotEqual(t, l, engine.Label("footy", "pies", engine.RaceInfo{Start: start}), "not a race's label")
	assert.True(t, strings.HasPrefix(l, engine.LabelPrefix("footy")+"pies:"))
}

// TestCheckOnlineEvents: validate --online resolves event bets too.
func TestCheckOnlineEvents(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p := w.plan(sportsHead + `  - id: fine
    event: {sport: NBA, name: Lakers v Celtics}
    market: Head To Head
    selection: Lakers
  - id: typo
    event: {sport: NBA, name: Lakers v Celtics}
    market: Head To Head
    selection: Lakrs
`)
	diags, err := engine.CheckOnline(context.Background(), p, w.client(), w.clock)
	require.NoError(t, err)
	require.Len(t, diags, 1, "%v", diags)
	assert.Equal(t, `bet typo: Lakers v Celtics Head To Head has no selection "Lakrs"; did you mean "Lakers"?`, diags[0].Summary)
	assert.Equal(t, 11, diags[0].Line)
}

// TestEventBetKeepsItsJournalLabel: a journal entry of the same bet on the
// same event keeps its label, even when its date differs (an event the
// service moved): the bet is followed, never created again.
func TestEventBetKeepsItsJournalLabel(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	afl := w.sportsEvent("AFL", 0)
	h2h := marketOf(afl, "Head To Head")
	const label = "bp:footy:pies:0123456789ab"
	made, err := w.client().CreateNotification(ctx, &apiclient.CreateNotificationRequest{
		Type: "Fixed Wager", Sports: "AFL", EventID: apiclient.SportsID(fmt.Sprint(afl.ID)),
		SportsMarket: apiclient.SportsID(fmt.Sprint(h2h.ID)), SportsSelection: apiclient.SportsID(fmt.Sprint(h2h.Selections[0].ID)),
		Stake: 10, Label: label, TargetSession: "4417",
	})
	require.NoError(t, err)
	opts := w.options(w.client())
	j, err := engine.OpenJournal(opts.State.JournalPath("footy", opts.BaseURL))
	require.NoError(t, err)
	require.NoError(t, j.Record(engine.JournalEntry{Op: engine.OpCreated, Label: label, BetID: "pies", NotificationID: made.ID, Amount: 10,
		Race: &engine.RaceInfo{Start: afl.Start.Add(-24 * time.Hour), Event: &engine.EventInfo{ID: fmt.Sprint(afl.ID), Sport: "AFL"}}}))
	require.NoError(t, j.Close())

	p := w.plan(sportsHead + `  - id: pies
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Head To Head
    selection: Collingwood
`)
	res, err := engine.Run(ctx, p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	assert.Equal(t, label, res.Bets[0].Label)
	assert.Equal(t, made.ID, res.Bets[0].NotificationID)
	assert.Equal(t, engine.StatusSettled, res.Bets[0].Status, res.Bets[0].Reason)
	assert.Equal(t, 1, w.svc.NotificationCount(), "not created again under another label")
}

// eventRewrite serves the sim with the event endpoints' answers edited:
// the service's shapes are unknown, so betplan must cope with less.
type eventRewrite struct {
	svc  http.Handler
	edit func(path string, v any)
}

func (h eventRewrite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/event/") {
		h.svc.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	h.svc.ServeHTTP(rec, r)
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		panic(err)
	}
	h.edit(r.URL.Path, v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	json.NewEncoder(w).Encode(v)
}

// deleteKeys removes keys from every object in v, recursively.
func deleteKeys(v any, keys ...string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(x, k)
		}
		for _, c := range x {
			deleteKeys(c, keys...)
		}
	case []any:
		for _, c := range x {
			deleteKeys(c, keys...)
		}
	}
}

// TestEventShapesWithGaps: a detail that leaves out the start or the
// sport is completed from the list; with no start anywhere, or no ids to
// send, the bet is unresolved rather than guessed.
func TestEventShapesWithGaps(t *testing.T) {
	t.Parallel()
	bet := `  - id: pies
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Line
    selection: Collingwood
`
	tests := []struct {
		name   string
		edit   func(path string, v any)
		status engine.Status
		reason string
	}{
		{"no start or sport in the detail", func(path string, v any) {
			if path != "/event/list/" {
				deleteKeys(v, "start_time", "sports")
			}
		}, engine.StatusWaiting, ""},
		{"no sport anywhere: the plan's", func(path string, v any) { deleteKeys(v, "sports") }, engine.StatusWaiting, ""},
		{"no start anywhere", func(path string, v any) { deleteKeys(v, "start_time") }, engine.StatusUnresolved,
			"the service lists no start time for event "},
		{"no ids for the selections", func(path string, v any) {
			if path != "/event/list/" {
				for _, m := range v.(map[string]any)["markets"].([]any) {
					deleteKeys(m.(map[string]any)["selections"], "id")
				}
			}
		}, engine.StatusUnresolved, "Collingwood v Carlton Line lists no id for Collingwood"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.srv.Config.Handler = eventRewrite{svc: w.svc, edit: tt.edit}
			afl := w.sportsEvent("AFL", 0)
			res, _, err := engine.Preview(context.Background(), w.plan(sportsHead+bet), w.options(w.client()))
			require.NoError(t, err)
			b := res.Bets[0]
			assert.Equal(t, tt.status, b.Status, b.Reason)
			assert.Contains(t, b.Reason, tt.reason)
			if tt.status == engine.StatusWaiting {
				assert.Equal(t, "AFL", b.Race.Event.Sport)
				assert.True(t, b.Race.Start.Equal(afl.Start), "start %s from the list, want %s", b.Race.Start, afl.Start)
			}
		})
	}
}

// TestEventPolledEveryTickInPlay: a game runs for hours, and its bet is
// polled on every tick like a race's (one page a tick): the result is
// seen within an interval of the service showing it. It used to be polled
// every five minutes while the game ran, and its result seen up to five
// minutes late.
func TestEventPolledEveryTickInPlay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl := w.sportsEvent("AFL", 0)
	p := w.plan(sportsHead + `  - id: pies
    event: {sport: AFL, name: Collingwood v Carlton}
    market: Head To Head
    selection: Collingwood
`)
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	require.Equal(t, engine.StatusSettled, res.Bets[0].Status, res.Bets[0].Reason)
	inPlay := 0
	for _, r := range w.svc.Requests() {
		if r.Path == "/notification/" && !r.SimTime.Before(afl.Start) && r.SimTime.Before(afl.End) {
			inPlay++
		}
	}
	ticks := int(afl.End.Sub(afl.Start) / (30 * time.Second))
	assert.InDelta(t, ticks, inPlay, 1, "one poll a tick while the game ran (%s, 30s ticks)", afl.End.Sub(afl.Start))
	seen := res.FinishedAt.Sub(afl.End.Add(2 * time.Minute))
	assert.True(t, seen >= 0 && seen <= 30*time.Second, "the result is seen within an interval of it: %s", seen)
}

// TestEventAlternateLines: where a market lists a selection at several
// lines, the plan's handicap picks one; a line it does not list is
// unresolved with the lines it does.
func TestEventAlternateLines(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl := w.sportsEvent("AFL", 0)
	home := marketOf(afl, "Line").Selections[0]
	alt := home.Line - 6
	w.srv.Config.Handler = eventRewrite{svc: w.svc, edit: func(path string, v any) {
		if path == "/event/list/" {
			return
		}
		for _, m := range v.(map[string]any)["markets"].([]any) {
			if m := m.(map[string]any); m["name"] == "Line" {
				m["selections"] = append(m["selections"].([]any), map[string]any{"id": 77, "name": "Collingwood", "odds": 2.6, "handicap": alt})
			}
		}
	}}
	tests := []struct {
		handicap string
		status   engine.Status
		want     string
	}{
		{"", engine.StatusWaiting, fmt.Sprint(home.ID)},
		{fmt.Sprint(home.Line), engine.StatusWaiting, fmt.Sprint(home.ID)},
		{fmt.Sprint(alt), engine.StatusWaiting, "77"},
		{"-99.5", engine.StatusUnresolved, fmt.Sprintf("Collingwood v Carlton Line lists Collingwood at lines %v, %v, not -99.5", home.Line, alt)},
	}
	for _, tt := range tests {
		t.Run("handicap "+tt.handicap, func(t *testing.T) {
			bet := "  - {id: pies, event: {sport: AFL, name: Collingwood v Carlton}, market: Line, selection: Collingwood"
			if tt.handicap != "" {
				bet += ", handicap: " + tt.handicap
			}
			res, _, err := engine.Preview(context.Background(), w.plan(sportsHead+bet+"}\n"), w.options(w.client()))
			require.NoError(t, err)
			b := res.Bets[0]
			require.Equal(t, tt.status, b.Status, b.Reason)
			if tt.status == engine.StatusUnresolved {
				assert.Equal(t, tt.want, b.Reason)
				return
			}
			assert.Equal(t, tt.want, b.Race.Event.SelectionID)
		})
	}
}
