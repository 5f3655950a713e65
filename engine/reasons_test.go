package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reason"
)

// countingBudget is a request budget that counts the requests it let go.
type countingBudget struct{ n atomic.Int64 }

func (b *countingBudget) Wait(context.Context) error { b.n.Add(1); return nil }

// journalLines are the entries of the plan's journal, as JSON objects.
func journalLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		out = append(out, e)
	}
	return out
}

// reads counts the requests the service answered, by path.
func reads(svc *sim.Service) map[string]int {
	out := map[string]int{}
	for _, r := range svc.Requests() {
		out[r.Method+" "+r.Path]++
	}
	return out
}

// reasonsPlan bets on race r through each of the three sessions, and a
// fourth, placed, bet through Ladbrokes 2 within its bounds.
func reasonsPlan(w *world, r sim.RaceInfo) string {
	return fmt.Sprintf(`version: 1
name: why
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 100, max_total_stake: 300}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: out, race: %[1]s, selection: %[2]q, stake: 10, target_session: "4417"}
  - {id: big, race: %[1]s, selection: %[2]q, stake: 80, target_session: "4418"}
  - {id: nomarket, race: %[1]s, selection: %[2]q, stake: 10, target_session: "4419"}
  - {id: fine, race: %[1]s, selection: %[2]q, stake: 20, target_session: "4418"}
`, raceYAML(r), r.Runners[0])
}

// Each bet not placed carries the code its sessions' answer gives and the
// service's own words: a logged-out session (no record; its bot's line
// says so), a stake above the bookmaker's maximum and a market the
// bookmaker refuses (each a record). Saying why costs no request of its
// own where the detail has lines: the one read of the notification that
// ends the bet is the detail read, never repeated by a later status, and
// a placed bet costs none. Every request went through the account's
// request budget.
func TestUnplacedBetsCarryTheServiceWords(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, id := range []int{4417, 4418, 4419} {
		w.svc.SetBotRunning(id, true)
	}
	w.svc.SetLoginError(4417, "invalid password")
	w.svc.SetStakeBounds(4418, 1, 50)
	w.svc.SetRefusedMarkets(4419, "Fixed Win")
	r := w.race("Galloping", 0)
	p := w.plan(reasonsPlan(w, r))
	budget := &countingBudget{}
	var log strings.Builder
	opts := w.options(w.client(apiclient.WithLimiter(budget)))
	opts.Log = &log
	w.svc.ResetRequests()
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.EqualValues(t, len(w.svc.Requests()), budget.n.Load(), "every request went through the budget")

	bets := byID(res)
	for _, tt := range []struct {
		id     string
		status engine.Status
		code   reason.Code
		words  string
	}{
		{"out", engine.StatusNotTaken, reason.LoggedOut, "Main Sportsbet: not logged in to Sportsbet (invalid password): bet not placed"},
		{"big", engine.StatusFailed, reason.StakeLimit, "Ladbrokes 2: The maximum stake is $50."},
		{"nomarket", engine.StatusFailed, reason.MarketUnavailable, "TAB spare: Market Fixed Win is not available for this account."},
	} {
		b := bets[tt.id]
		assert.Equal(t, tt.status, b.Status, "%s: %s", tt.id, b.Reason)
		assert.Equal(t, tt.code, b.Why.Code, "%s: %s", tt.id, b.Reason)
		assert.Contains(t, b.Reason, tt.words, tt.id)
	}
	assert.Equal(t, engine.StatusSettled, bets["fine"].Status, bets["fine"].Reason)
	// The logged-out session was also seen just before the create.
	assert.Contains(t, bets["out"].Reason, "before the create, no session it targets could bet it: Main Sportsbet: logged out since ")

	got := reads(w.svc)
	for _, id := range []string{"out", "big", "nomarket"} {
		n := bets[id].NotificationID
		assert.LessOrEqual(t, got[fmt.Sprintf("GET /bet/notification/%d/", n)], 1, "%s: one read of its detail", id)
		assert.Zero(t, got[fmt.Sprintf("GET /bot/logs/%d/", n)], "%s: its detail had lines", id)
	}
	// A placed bet's records are read as they always were (its placement,
	// then its settlement); nothing more is read for it.
	fine := bets["fine"].NotificationID
	assert.Zero(t, got[fmt.Sprintf("GET /bot/logs/%d/", fine)], "a placed bet's log is not read")
	assert.LessOrEqual(t, got[fmt.Sprintf("GET /bet/notification/%d/", fine)], 2, "a placed bet: its records, no more")

	// The journal keeps what was read, once a bet, the words as they came.
	path := opts.State.JournalPath("why", opts.BaseURL)
	kept := map[string]int{}
	for _, e := range journalLines(t, path) {
		if e["op"] != "detail_read" {
			continue
		}
		label := e["label"].(string)
		kept[label]++
		d := e["detail"].(map[string]any)
		assert.NotEmpty(t, d["lines"], label)
		assert.NotEmpty(t, d["reason"], label)
	}
	for _, id := range []string{"out", "big", "nomarket"} {
		assert.Equal(t, 1, kept[bets[id].Label], "%s: one detail_read entry", id)
	}
	assert.Zero(t, kept[bets["fine"].Label], "nothing kept for a placed bet")

	// A later status reads none of it again, and says the same.
	w.svc.ResetRequests()
	st, err := engine.ReadStatus(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	got = reads(w.svc)
	for _, id := range []string{"out", "big", "nomarket"} {
		n := bets[id].NotificationID
		assert.Zero(t, got[fmt.Sprintf("GET /bet/notification/%d/", n)]+got[fmt.Sprintf("GET /bot/logs/%d/", n)], "%s: read again by a status", id)
		assert.Equal(t, bets[id].Why.Code, byID(st)[id].Why.Code, id)
		assert.Equal(t, bets[id].Reason, byID(st)[id].Reason, id)
	}
}

// A detail with no line at all (the older, bare-array answer) has the
// bots' log of the notification read once and kept as it came, up to
// 4 KiB; nothing is read from it: the reason comes from what betplan saw
// of the session just before the create (logged out), the log quoted
// beside it. A later status reads neither again.
func TestNoLinesReadsTheBotsLogOnce(t *testing.T) {
	t.Parallel()
	w := newWorldWith(t, sim.Options{BareBetArrays: true})
	w.svc.SetBotRunning(4417, true)
	w.svc.SetLoginError(4417, "invalid password")
	r := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: nolines
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 100, max_total_stake: 300}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: out, race: %s, selection: %q, stake: 10, target_session: "4417"}
`, raceYAML(r), r.Runners[0]))
	opts := w.options(w.client())
	w.svc.ResetRequests()
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	b := byID(res)["out"]
	assert.Equal(t, engine.StatusNotTaken, b.Status, b.Reason)
	assert.Equal(t, reason.LoggedOut, b.Why.Code, b.Reason)
	assert.Contains(t, b.Reason, "the bots' log of it: ")
	assert.Contains(t, b.Reason, "not logged in to Sportsbet (invalid password)")
	assert.Contains(t, b.Reason, "Main Sportsbet: logged out since ")

	id := strconv.FormatInt(b.NotificationID, 10)
	got := reads(w.svc)
	assert.Equal(t, 1, got["GET /bot/logs/"+id+"/"], "the bots' log, once")
	assert.LessOrEqual(t, got["GET /bet/notification/"+id+"/"], 1)

	var kept map[string]any
	for _, e := range journalLines(t, opts.State.JournalPath("nolines", opts.BaseURL)) {
		if e["op"] == "detail_read" {
			require.Nil(t, kept, "one detail_read entry")
			kept = e["detail"].(map[string]any)
			assert.Equal(t, "logged_out", e["code"])
		}
	}
	require.NotNil(t, kept)
	assert.Equal(t, true, kept["log_read"])
	assert.Contains(t, kept["bot_log"], `"log":"Main Sportsbet: not logged in to Sportsbet (invalid password): bet not placed"`, "kept as it came")

	w.svc.ResetRequests()
	w.clock.Advance(time.Minute)
	_, err = engine.ReadStatus(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	got = reads(w.svc)
	assert.Zero(t, got["GET /bot/logs/"+id+"/"]+got["GET /bet/notification/"+id+"/"], "read again: %v", got)
}
