package engine_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// tipsterOptions are a run's options with the simulated package's key.
func (w *world) tipsterOptions(c *apiclient.Client) engine.Options {
	opts := w.options(c)
	opts.TipsterAPIKey = sim.DefaultTipsterAPIKey
	return opts
}

// tipPlan tips two runners of a gallops race 15 minutes out (due on the
// same tick) and one greyhound at once, with a 20-minute pre-alert.
func (w *world) tipPlan() (*plan.Plan, sim.RaceInfo, sim.RaceInfo) {
	a, b := w.race("Galloping", 1), w.race("Greyhounds", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: tipster
poll: {interval: 30s, timeout: 12h}
prealert: {before: 20m}
tips:
  - id: gallop-a
    race: %s
    market: Fixed Win
    selection: %q
    amount_units: 2
    odds: 3.5
    max_odds: 60
    bookies: "41&42"
    when: race.minutes_to_start <= 15
    confidence: High
    analysis: Drawn to lead.
  - id: gallop-b
    race: %s
    market: Fixed Place
    selection: %q
    amount_units: 1
    odds: 1.8
    max_odds: 60
    bookies: "41"
    when: race.minutes_to_start <= 15
  - id: dog
    race: %s
    market: Fixed Win
    selection: %q
    amount_units: 1
    odds: 4
    max_odds: 60
    bookies: "41"
`, raceYAML(a), a.Runners[0], raceYAML(a), a.Runners[1], raceYAML(b), b.Runners[0]))
	return p, a, b
}

// tipLine is one tip of a tipsOnRace plan: one unit at odds on the
// race's runner-th runner, with when when it is set.
type tipLine struct {
	id     string
	runner int
	odds   float64
	when   string
}

// tipsOnRace is the plan "tipster", polled every 30s, tipping runners of
// race r to win (max odds 60, bookie 41); prealert, when set, is its
// pre-alert's before.
func (w *world) tipsOnRace(r sim.RaceInfo, prealert string, tips ...tipLine) *plan.Plan {
	var sb strings.Builder
	sb.WriteString("version: 1\nname: tipster\npoll: {interval: 30s, timeout: 12h}\n")
	if prealert != "" {
		fmt.Fprintf(&sb, "prealert: {before: %s}\n", prealert)
	}
	sb.WriteString("tips:\n")
	for _, t := range tips {
		fmt.Fprintf(&sb, "  - {id: %s, race: %s, market: Fixed Win, selection: %q, amount_units: 1, odds: %g, max_odds: 60, bookies: \"41\"",
			t.id, raceYAML(r), r.Runners[t.runner], t.odds)
		if t.when != "" {
			fmt.Fprintf(&sb, ", when: %q", t.when)
		}
		sb.WriteString("}\n")
	}
	return w.plan(sb.String())
}

// twoTips are two tips on one race, due at once.
var twoTips = []tipLine{{id: "one", runner: 0, odds: 3}, {id: "two", runner: 1, odds: 5}}

func tipsByID(res *engine.Result) map[string]engine.TipResult {
	out := map[string]engine.TipResult{}
	for _, t := range res.Tips {
		out[t.ID] = t
	}
	return out
}

func journalText(t *testing.T, opts engine.Options, name string) string {
	t.Helper()
	b, err := os.ReadFile(opts.State.JournalPath(name, opts.BaseURL))
	require.NoError(t, err)
	return string(b)
}

// TestTipsterRehearsal plays a tipster plan end to end on the simulated
// service: the pre-alerts go out ahead of each race's first tip, the tips
// due on one tick go in one call, each tip is published once, reaches the
// subscribers, and is settled against its race at the tipped odds.
func TestTipsterRehearsal(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, a, b := w.tipPlan()
	opts := w.tipsterOptions(w.client())
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, engine.EndCompleted, res.EndReason)
	assert.False(t, res.Failed(), "a clean rehearsal is no failure")
	require.Len(t, res.Tips, 3)

	pubs := w.svc.Publishes()
	require.Len(t, pubs, 2, "two ticks had tips due: one call each")
	require.Len(t, pubs[0], 1, "the greyhound tip goes out at once, alone")
	assert.Equal(t, b.Runners[0], pubs[0][0].Selection)
	require.Len(t, pubs[1], 2, "the two gallops tips are due on one tick and go in one call")
	assert.Equal(t, []string{a.Runners[0], a.Runners[1]}, []string{pubs[1][0].Selection, pubs[1][1].Selection})
	assert.Equal(t, "High", pubs[1][0].Confidence)
	assert.Equal(t, "Drawn to lead.", pubs[1][0].Analysis)
	assert.Equal(t, 2.0, pubs[1][0].AmountUnits)
	assert.WithinDuration(t, a.Start.Add(-15*time.Minute), pubs[1][0].At, 31*time.Second, "published when its when became true")
	assert.Equal(t, 6, w.svc.NotificationCount(), "each tip reached both subscribers")

	alerts := w.svc.Prealerts()
	require.Len(t, alerts, 2, "one pre-alert per race")
	assert.Equal(t, "/pick/tipster/message/", alerts[0].Path)
	assert.Equal(t, pubs[0][0].At, alerts[0].At, "the greyhound's first tip was ready at once: its pre-alert went just before it")
	lead := pubs[1][0].At.Sub(alerts[1].At)
	assert.True(t, lead >= 19*time.Minute && lead <= 21*time.Minute, "the gallops pre-alert went %s before its first tip, want about 20m", lead)
	require.Len(t, res.Prealerts, 2)
	for _, pa := range res.Prealerts {
		assert.Equal(t, engine.AlertSent, pa.Status)
	}

	races := map[string]sim.RaceInfo{}
	for _, r := range w.svc.Races() {
		races[fmt.Sprintf("%s R%d %s", r.Venue, r.EventNumber, r.Start)] = r
	}
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipPublished, tip.Status, "tip %s: %s", tip.ID, tip.Reason)
		assert.True(t, tip.Final, "tip %s is resulted", tip.ID)
		assert.False(t, tip.PublishedAt.IsZero())
		assert.Equal(t, 1, tip.Attempts)
		require.NotNil(t, tip.Units, "tip %s: %s", tip.ID, tip.Reason)
		// The tipster's record, checked against the world's own result.
		r := w.race(tip.Race.Code, 0)
		for _, x := range w.svc.Races() {
			if strings.EqualFold(x.Venue, tip.Race.Venue) && x.EventNumber == tip.Race.EventNumber && x.Start.Equal(tip.Race.Start) {
				r = x
			}
		}
		assert.Equal(t, r.Result, tip.Result, "tip %s: the race's result", tip.ID)
		order := strings.Split(r.Result, "/")
		top := 1
		if tip.Market == "Fixed Place" {
			top = 3
		}
		won := false
		for i := 0; i < top && i < len(order); i++ {
			won = won || order[i] == tip.Selection
		}
		want := -tip.AmountUnits
		if won {
			want = tip.AmountUnits * (tip.Odds - 1)
		}
		assert.InDelta(t, want, *tip.Units, 0.001, "tip %s: units at the tipped odds (result %s)", tip.ID, r.Result)
		// The verb says which way the units went: "lost 1.00 units".
		assert.Regexp(t, `^(won|lost) \d+\.\d\d units at `, tip.Reason, tip.ID)
	}
	assert.NotEmpty(t, res.Assumptions, "the report says what was assumed")

	j := journalText(t, opts, p.Name)
	assert.Equal(t, 2, strings.Count(j, `"op":"publishing"`), "one announcement per call")
	assert.Equal(t, 2, strings.Count(j, `"op":"published"`))
	assert.Equal(t, 2, strings.Count(j, `"op":"prealerted"`))
	assert.NotContains(t, j, sim.DefaultTipsterAPIKey, "the package key is never journalled")

	// Run again on the same journal: nothing goes out twice.
	res, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Len(t, w.svc.Publishes(), 2, "a re-run publishes nothing again")
	assert.Len(t, w.svc.Prealerts(), 2, "nor sends a pre-alert again")
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipPublished, tip.Status, tip.ID)
	}
}

// TestPublishFaultMatrix: whatever goes wrong with a publish call, each tip
// ends published exactly once, or reported unknown and never sent again by
// a run on its own; --republish sends it once more, and only once.
func TestPublishFaultMatrix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fault     sim.Fault
		committed bool // the service took the tips before failing
		status    engine.TipStatus
	}{
		{"commit then 500", sim.Fault{Kind: sim.CommitThenStatus, Status: 500}, true, engine.TipUnknown},
		{"commit then dropped connection", sim.Fault{Kind: sim.CommitThenDrop}, true, engine.TipUnknown},
		{"commit then timeout", sim.Fault{Kind: sim.CommitThenTimeout}, true, engine.TipUnknown},
		{"500 before commit", sim.Fault{Kind: sim.StatusFault, Status: 500}, false, engine.TipUnknown},
		{"dropped connection before commit", sim.Fault{Kind: sim.Drop}, false, engine.TipUnknown},
		{"403", sim.Fault{Kind: sim.StatusFault, Status: 403}, false, engine.TipFailed},
		{"429", sim.Fault{Kind: sim.RateLimit, RetryAfter: time.Second}, false, engine.TipPublished},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			r := w.race("Galloping", 0)
			p := w.tipsOnRace(r, "", twoTips...)
			f := tt.fault
			f.Method, f.Path, f.Times = "POST", "/pick/tipster/publish/", 1
			w.svc.InjectFault(f)
			opts := w.tipsterOptions(w.client(apiclient.WithTimeout(300 * time.Millisecond)))
			sent := func() int { return len(w.svc.PublishedTips()) }
			calls := func() int {
				n := 0
				for _, q := range w.svc.Requests() {
					if q.Method == "POST" && q.Path == "/pick/tipster/publish/" {
						n++
					}
				}
				return n
			}

			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			require.Len(t, res.Tips, 2)
			for _, tip := range res.Tips {
				assert.Equal(t, tt.status, tip.Status, "tip %s: %s", tip.ID, tip.Reason)
				assert.True(t, tip.Final)
			}
			want := 0
			if tt.committed || tt.status == engine.TipPublished {
				want = 2
			}
			assert.Equal(t, want, sent(), "tips that reached the service")
			if tt.status == engine.TipPublished {
				assert.False(t, res.Failed())
				assert.Equal(t, 2, calls(), "a 429 is refused before processing: the client sends it again once")
				return
			}
			assert.True(t, res.Failed(), "an unknown or failed tip fails the run")
			assert.Equal(t, 1, calls(), "the call that failed is never repeated in the run")

			// A second run, the fault gone: an unknown tip is never sent
			// again on its own; a refused one (403) is published now.
			res, err = engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			if tt.status == engine.TipFailed {
				assert.Equal(t, 2, sent(), "the refused tips are published once the key is accepted")
				for _, tip := range res.Tips {
					assert.Equal(t, engine.TipPublished, tip.Status, tip.ID)
				}
				return
			}
			assert.Equal(t, 1, calls(), "a re-run does not send an unknown publish again")
			for _, tip := range res.Tips {
				assert.Equal(t, engine.TipUnknown, tip.Status, tip.ID)
				assert.Contains(t, tip.Reason, "--republish")
			}

			// --republish one sends it once; a second --republish of the
			// now-published tip sends nothing.
			opts.Republish = []string{"one"}
			res, err = engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			assert.Equal(t, 2, calls(), "--republish sends one call")
			byID := tipsByID(res)
			assert.Equal(t, engine.TipPublished, byID["one"].Status, byID["one"].Reason)
			assert.Equal(t, engine.TipUnknown, byID["two"].Status, "a tip not named stays unknown")
			last := w.svc.Publishes()[len(w.svc.Publishes())-1]
			require.Len(t, last, 1)
			assert.Equal(t, r.Runners[0], last[0].Selection)
			res, err = engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			assert.Equal(t, 2, calls(), "a published tip is not sent again, --republish or not")
			assert.Equal(t, engine.TipPublished, tipsByID(res)["one"].Status)
		})
	}
}

// TestCrashAfterPublishIsUnknown: a run killed after the service answered
// and before the journal recorded it leaves the tip announced only; the
// next run reports it unknown and does not send it again.
func TestCrashAfterPublishIsUnknown(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.tipsOnRace(r, "", tipLine{id: "one", runner: 0, odds: 3})
	opts := w.tipsterOptions(w.client())
	opts.Checkpoint = func(point string) {
		if point == "posted-publish" {
			panic("crash")
		}
	}
	func() {
		defer func() { assert.Equal(t, "crash", recover()) }()
		engine.Run(context.Background(), p, opts)
	}()
	require.Len(t, w.svc.PublishedTips(), 1)

	opts.Checkpoint = nil
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Tips, 1)
	assert.Equal(t, engine.TipUnknown, res.Tips[0].Status)
	assert.Contains(t, res.Tips[0].Reason, "the run ended before the service's answer was recorded")
	assert.Len(t, w.svc.PublishedTips(), 1, "never sent again by itself")
}

// TestRefusedBatchIsSentTipByTip: a call refused for its data published
// nothing, so each tip goes again on its own.
func TestRefusedBatchIsSentTipByTip(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.tipsOnRace(r, "", twoTips...)
	w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/pick/tipster/publish/", Kind: sim.StatusFault, Status: 404, Times: 1})
	res, err := engine.Run(context.Background(), p, w.tipsterOptions(w.client()))
	require.NoError(t, err)
	pubs := w.svc.Publishes()
	require.Len(t, pubs, 2)
	assert.Len(t, pubs[0], 1)
	assert.Len(t, pubs[1], 1)
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipPublished, tip.Status, tip.ID)
		assert.Equal(t, 2, tip.Attempts, "tip %s: the refused call and its own", tip.ID)
	}
}

// TestWrongPackageKey: a 403 stops publishing for the run; the pre-alert,
// 404 on both paths, is reported failed. Nothing goes out.
func TestWrongPackageKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _, _ := w.tipPlan()
	opts := w.tipsterOptions(w.client())
	opts.TipsterAPIKey = "NOTTHEPACKAGEKEY"
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.True(t, res.Failed())
	assert.Empty(t, w.svc.PublishedTips())
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipFailed, tip.Status, tip.ID)
		assert.Contains(t, tip.Reason, "BETPLAN_TIPSTER_APIKEY", tip.ID)
	}
	require.Len(t, res.Prealerts, 2)
	alerts := map[string]engine.PrealertResult{}
	for _, pa := range res.Prealerts {
		alerts[pa.Race.Code] = pa
	}
	assert.Equal(t, engine.AlertFailed, alerts["Greyhounds"].Status, "the first race's pre-alert was refused")
	assert.Contains(t, alerts["Greyhounds"].Reason, "package API key is not valid")
	assert.Equal(t, engine.AlertSkipped, alerts["Galloping"].Status, "nothing more went out after the 403")
	assert.Contains(t, alerts["Galloping"].Reason, "BETPLAN_TIPSTER_APIKEY")
	for _, tip := range res.Tips {
		assert.NotContains(t, tip.Error+tip.Reason, "NOTTHEPACKAGEKEY")
	}
	assert.NotContains(t, journalText(t, opts, p.Name), "NOTTHEPACKAGEKEY")
}

// TestPrealertFallsBackToTheDocsPath: a service without the spec's path.
func TestPrealertFallsBackToTheDocsPath(t *testing.T) {
	t.Parallel()
	w := newWorldWith(t, sim.Options{PrealertDocsOnly: true})
	p, _, _ := w.tipPlan()
	res, err := engine.Run(context.Background(), p, w.tipsterOptions(w.client()))
	require.NoError(t, err)
	alerts := w.svc.Prealerts()
	require.Len(t, alerts, 2)
	for _, a := range alerts {
		assert.Equal(t, "/pick/tipster/prealert/", a.Path)
	}
	for _, pa := range res.Prealerts {
		assert.Equal(t, apiclient.PrealertDocPath, pa.Path)
	}
	assert.Contains(t, strings.Join(res.Assumptions, "\n"), "/pick/tipster/prealert/ answered")
}

// TestTipSkippedWhenTheRaceStarts: a tip whose when never held is skipped
// at the start, and no pre-alert goes for it.
func TestTipSkippedWhenTheRaceStarts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.tipsOnRace(r, "20m", tipLine{id: "never", runner: 0, odds: 3, when: "len(sessions) > 50"})
	res, err := engine.Run(context.Background(), p, w.tipsterOptions(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Tips, 1)
	assert.Equal(t, engine.TipSkipped, res.Tips[0].Status)
	assert.Contains(t, res.Tips[0].Reason, "the race started before")
	assert.Empty(t, w.svc.Publishes())
	assert.Empty(t, w.svc.Prealerts())
	assert.False(t, res.Failed(), "a skipped tip is no failure")
}

// TestTipsWithoutKeyAreNotPublished: an engine given no key publishes
// nothing and says why.
func TestTipsWithoutKeyAreNotPublished(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _, _ := w.tipPlan()
	opts := w.options(w.client())
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Empty(t, w.svc.Publishes())
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipFailed, tip.Status)
		assert.Contains(t, tip.Reason, "BETPLAN_TIPSTER_APIKEY")
	}
}

// TestTipsInPreviewAndStatus: plan says what run would do with each tip;
// status reads back what the journal knows, with the races' results.
func TestTipsInPreviewAndStatus(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _, _ := w.tipPlan()
	opts := w.tipsterOptions(w.client())
	res, _, err := engine.Preview(context.Background(), p, opts)
	require.NoError(t, err)
	byID := tipsByID(res)
	assert.Equal(t, engine.ActionPublish, byID["dog"].Action, byID["dog"].Reason)
	assert.Equal(t, engine.ActionWait, byID["gallop-a"].Action)
	assert.Contains(t, byID["gallop-a"].Reason, "race.minutes_to_start <= 15")
	assert.Empty(t, w.svc.Publishes(), "a preview publishes nothing")

	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	res, err = engine.ReadStatus(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Tips, 3)
	for _, tip := range res.Tips {
		assert.Equal(t, engine.TipPublished, tip.Status, tip.ID)
		assert.NotEmpty(t, tip.Result, "tip %s: the result is read back", tip.ID)
		assert.NotNil(t, tip.Units)
	}
	assert.Len(t, res.Prealerts, 2)
	for _, pa := range res.Prealerts {
		assert.Equal(t, engine.AlertSent, pa.Status)
	}
}

// TestCheckOnlineTips: validate --online finds a tip's race and runner
// with the same two read-only calls.
func TestCheckOnlineTips(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: online-tips
tips:
  - {id: fine, race: %[1]s, market: Fixed Win, selection: %[2]q, amount_units: 1, odds: 3, max_odds: 5, bookies: "41"}
  - {id: no-such-runner, race: %[1]s, market: Fixed Win, selection: "31", amount_units: 1, odds: 3, max_odds: 5, bookies: "41"}
  - {id: no-such-race, race: {venue: %[3]q, code: Galloping, event_number: 77}, market: Fixed Win, selection: "1", amount_units: 1, odds: 3, max_odds: 5, bookies: "41"}
  - {id: nowhere, for_each_race: race.venue == "Nowhere", market: Fixed Win, selection: "1", amount_units: 1, odds: 3, max_odds: 5, bookies: "41"}
`, raceYAML(a), a.Runners[0], a.Venue))
	diags, text := w.checkOnline(p)
	assert.Contains(t, text, "error line 5: tip no-such-runner: runner 31 is not in "+a.Venue)
	assert.Contains(t, text, "error line 6: tip no-such-race: no upcoming race "+a.Venue+" Galloping R77")
	assert.Contains(t, text, "warning line 7: tip nowhere: for_each_race matches none")
	assert.Len(t, diags, 3, text)
	assert.Empty(t, w.svc.Publishes())
}

// TestTipsOnSharedState: the journal in PostgreSQL guards tips the same
// way: a second machine (another state dir) neither publishes a tip again
// nor re-sends one of unknown outcome.
func TestTipsOnSharedState(t *testing.T) {
	t.Parallel()
	url, _ := pgtest.Schema(t)
	cfg, err := postgres.ParseURL(url, "", false)
	require.NoError(t, err)
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.tipsOnRace(r, "", tipLine{id: "one", runner: 0, odds: 3},
		tipLine{id: "two", runner: 1, odds: 5, when: "race.minutes_to_start <= 5"})
	w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/pick/tipster/publish/", Kind: sim.CommitThenStatus, Status: 502, Times: 1})
	machine := func(dir string) engine.Options {
		opts := w.tipsterOptions(w.client())
		w.moveState(&opts, dir)
		opts.Store = postgres.New(cfg)
		return opts
	}
	res, err := engine.Run(context.Background(), p, machine("a"))
	require.NoError(t, err)
	byID := tipsByID(res)
	assert.Equal(t, engine.TipUnknown, byID["one"].Status)
	assert.Equal(t, engine.TipPublished, byID["two"].Status)
	res, err = engine.Run(context.Background(), p, machine("b"))
	require.NoError(t, err)
	byID = tipsByID(res)
	assert.Equal(t, engine.TipUnknown, byID["one"].Status, "machine b sees machine a's unknown publish")
	assert.Equal(t, engine.TipPublished, byID["two"].Status)
	assert.Len(t, w.svc.PublishedTips(), 2, "nothing was published twice")
}

// TestTipOutcome: units won or lost at the tipped odds, market by market.
func TestTipOutcome(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		market, selection string
		units, odds       float64
		result            string
		outcome           string
		want              float64
		unknown           bool
	}{
		{"Fixed Win", "3", 2, 3.5, "3/7/1/5", engine.TipWon, 5, false},
		{"Fixed Win", "7", 2, 3.5, "3/7/1/5", engine.TipLost, -2, false},
		{"Fixed Place", "1", 1, 1.8, "3/7/1/5", engine.TipWon, 0.8, false},
		{"Tote Place", "5", 1, 1.8, "3/7/1/5", engine.TipLost, -1, false},
		{"Same Race Multi", "3:1,1:3", 1, 8, "3/7/1/5", engine.TipWon, 7, false},
		{"Same Race Multi", "3:1,5:3", 1, 8, "3/7/1/5", engine.TipLost, -1, false},
		{"Lay Win", "7", 2, 4, "3/7/1/5", engine.TipWon, 2, false},
		{"Lay Win", "3", 2, 4, "3/7/1/5", engine.TipLost, -6, false},
		{"Fixed Win", "3", 1, 3, "VOID", engine.TipVoid, 0, false},
		{"Fixed Place", "9", 1, 1.8, "3", "", 0, true}, // too few placings listed to tell
	} {
		name := tt.market + " " + tt.selection + " on " + tt.result
		outcome, units := engine.TipOutcome(&plan.Tip{Market: tt.market, Selection: tt.selection, AmountUnits: tt.units, Odds: tt.odds}, tt.result)
		assert.Equal(t, tt.outcome, outcome, name)
		if tt.unknown {
			assert.Nil(t, units, name)
			continue
		}
		require.NotNil(t, units, name)
		assert.InDelta(t, tt.want, *units, 1e-9, name)
	}
}

// TestTipsAskBeforeTheFirstPublication: a real run asks once, before the
// first pre-alert or tip, saying what will go out; a no publishes nothing.
func TestTipsAskBeforeTheFirstPublication(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _, _ := w.tipPlan()
	opts := w.tipsterOptions(w.client())
	var asked []string
	opts.Confirm = func(summary string) (bool, error) { asked = append(asked, summary); return false, nil }
	_, err := engine.Run(context.Background(), p, opts)
	require.ErrorIs(t, err, engine.ErrNotConfirmed)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "Up to 3 tips will be published to the tip package's subscribers.")
	assert.Empty(t, w.svc.Prealerts())
	assert.Empty(t, w.svc.Publishes())

	asked = nil
	opts.Confirm = func(summary string) (bool, error) { asked = append(asked, summary); return true, nil }
	_, err = engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	assert.Len(t, asked, 1, "asked once per run")
	assert.Len(t, w.svc.PublishedTips(), 3)
}

// TestBetsAndTipsTogether: a plan that bets and tips runs both to the end
// in one run, each once.
func TestBetsAndTipsTogether(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: both
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 10, max_total_stake: 10, max_bets: 1}
bets:
  - {id: bet, race: %[1]s, type: Fixed Wager, market: Fixed Win, selection: %[2]q, stake: 5, target_session: "4417", when: race.minutes_to_start <= 10}
tips:
  - {id: tip, race: %[1]s, market: Fixed Win, selection: %[2]q, amount_units: 1, odds: 3, max_odds: 60, bookies: "41", when: race.minutes_to_start <= 10}
`, raceYAML(r), r.Runners[0]))
	res, err := engine.Run(context.Background(), p, w.tipsterOptions(w.client()))
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	require.Len(t, res.Tips, 1)
	assert.Equal(t, engine.StatusSettled, res.Bets[0].Status, res.Bets[0].Reason)
	assert.Equal(t, engine.TipPublished, res.Tips[0].Status, res.Tips[0].Reason)
	assert.NotEmpty(t, res.Tips[0].Result)
	assert.Len(t, w.svc.PublishedTips(), 1)
	assert.Equal(t, 1, w.svc.NotificationsWithLabel(res.Bets[0].Label))
	assert.InDelta(t, 5.0, res.Limits.Committed, 0.001, "a tip commits nothing against the limits")
}
