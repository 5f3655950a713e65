package cli

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/engine"
)

// cmdSimCalls is `simcalls MAX`: the requests the simulated service saw,
// per notification it holds, are at most MAX.
func cmdSimCalls(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simcalls MAX-PER-NOTIFICATION")
	}
	max, err := strconv.ParseFloat(args[0], 64)
	ts.Check(err)
	svc := simOf(ts, "simcalls")
	calls, bets := len(svc.Requests()), svc.NotificationCount()
	if bets == 0 {
		ts.Fatalf("simcalls: no notifications")
	}
	perBet := float64(calls) / float64(bets)
	ts.Logf("%d requests for %d notifications: %.2f per bet", calls, bets, perBet)
	if perBet > max {
		for _, r := range svc.Requests() {
			ts.Logf("%s %s?%s", r.Method, r.Path, r.Query)
		}
		ts.Fatalf("simcalls: %.2f requests per notification, want at most %.2f", perBet, max)
	}
}

// The live line of several plans counts every plan's bets and names the
// plan of the bet placed last.
func TestAccountProgressNamesThePlan(t *testing.T) {
	var shown engine.Progress
	var about liveAbout
	a := newAccountProgress(func(p engine.Progress, ab liveAbout) { shown, about = p, ab })
	now := time.Date(2026, 11, 21, 11, 0, 0, 0, time.UTC)
	a.plan("alpha")(engine.Progress{
		Now:        now,
		ByStatus:   map[engine.Status]int{engine.StatusPlaced: 2},
		NextPoll:   now.Add(30 * time.Second),
		LastPlaced: &engine.PlacedBet{BetID: "flem-first", At: now.Add(-time.Minute), By: []string{"Main"}},
	})
	a.plan("beta")(engine.Progress{
		Now:        now,
		ByStatus:   map[engine.Status]int{engine.StatusPlaced: 1, engine.StatusWaiting: 3},
		NextPoll:   now.Add(10 * time.Second),
		NextRace:   now.Add(5 * time.Minute),
		LastPlaced: &engine.PlacedBet{BetID: "harn-first", At: now.Add(-time.Second)},
	})
	assert.Equal(t, 3, shown.ByStatus[engine.StatusPlaced])
	assert.Equal(t, 3, shown.ByStatus[engine.StatusWaiting])
	assert.Equal(t, now.Add(10*time.Second), shown.NextPoll)
	assert.Equal(t, now.Add(5*time.Minute), shown.NextRace)
	assert.Equal(t, "[beta] harn-first", shown.LastPlaced.BetID)
	assert.Equal(t, liveAbout{plans: 2, poll: "beta", race: "beta"}, about)

	// The line drawn from it names the plans whose poll and jump come next.
	var buf bytes.Buffer
	l := &liveTerminal{w: &buf, loc: time.UTC, now: func() time.Time { return now }}
	l.progressAbout(shown, about)
	assert.Equal(t, "11:00:00 UTC  2 plans: 3 waiting, 3 placed  next poll in 10s (beta)  next jump in 5m00s (beta)  last placed [beta] harn-first 10:59:59 UTC",
		strings.TrimPrefix(buf.String(), "\r\033[K"))
}

// Each plan's log lines reach the writer whole, each starting with the
// plan's name, however the engine splits its writes.
func TestPlanLogsPrefixWholeLines(t *testing.T) {
	var buf bytes.Buffer
	logs := &planLogs{w: &buf}
	a, b := logs.plan("alpha"), logs.plan("beta")
	io.WriteString(a, "created ")
	io.WriteString(b, "placed x\nsettled y\n")
	io.WriteString(a, "flem-first\n")
	io.WriteString(b, "half")
	logs.flush()
	assert.Equal(t, "[beta] placed x\n[beta] settled y\n[alpha] created flem-first\n[beta] half\n", buf.String())
}
