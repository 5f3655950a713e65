package engine_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// The examples that read outcomes and keep daily limits, each played out
// on the simulated service: what the comments in examples/ promise.

// example loads examples/NAME, with each edit (old, new) applied to its
// text first.
func (w *world) example(name string, edits ...[2]string) *plan.Plan {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", name))
	require.NoError(w.t, err)
	src := string(b)
	for _, e := range edits {
		require.Contains(w.t, src, e[0], "examples/%s changed: the test edits it", name)
		src = strings.ReplaceAll(src, e[0], e[1])
	}
	return w.plan(src)
}

// resultDelay is when the simulated service results a race, after its
// start (sim.Options.ResultDelay's default).
const resultDelay = 2 * time.Minute

func created(res *engine.Result) []engine.BetResult {
	var out []engine.BetResult
	for _, b := range res.Bets {
		if b.NotificationID != 0 {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out
}

// TestExampleStopForTheDay: once the day's settled bets have lost $50, or
// three have won, no bet is created for the rest of the day, even when a
// later result brings the profit back; the races after are skipped, their
// reasons showing the totals the condition saw.
func TestExampleStopForTheDay(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	stops := 0
	w := newWorld(t)
	p := w.example("stop-for-the-day.yaml")
	for day := 0; day < 3; day++ {
		// A run a day: the world's meetings of that day, the plan's
		// journal (and limits) carried across days.
		from := simStart.Add(time.Duration(day) * 24 * time.Hour)
		w.clock.Set(from)
		res, err := engine.Run(context.Background(), p, w.options(w.client()))
		require.NoError(t, err)
		require.Equal(t, engine.EndCompleted, res.EndReason, res.Error)

		// When did the day stop? Results land resultDelay after a race's
		// start; the stop is the first result that takes the running
		// profit to -$50 or the winners to three.
		var bets []engine.BetResult
		for _, b := range created(res) {
			if b.Race.Start.After(from) {
				bets = append(bets, b) // today's, not an earlier day's followed again
			}
		}
		byResult := append([]engine.BetResult(nil), bets...)
		sort.Slice(byResult, func(i, j int) bool { return byResult[i].Race.Start.Before(byResult[j].Race.Start) })
		var stoppedAt time.Time
		profit, won := 0.0, 0
		for _, b := range byResult {
			profit += b.Profit
			if b.Profit > 0 {
				won++
			}
			if profit <= -50 || won >= 3 {
				stoppedAt = b.Race.Start.Add(resultDelay)
				break
			}
		}
		// max_loss caps the day: whatever the order of the results, it
		// never ends below -$50.
		assert.GreaterOrEqual(t, roundCents(dayProfit(bets)), -50.0, "day %d ended below max_loss", day)
		skipped, noRoom := 0, 0
		for _, b := range res.Bets {
			if b.Status == engine.StatusSkipped && b.Race.Start.After(from) {
				skipped++
				assert.Contains(t, b.Reason, "plan.lowest_profit = ")
				assert.Contains(t, b.Reason, "plan.won = ")
				if stoppedAt.IsZero() || b.Race.Start.Before(stoppedAt) {
					// Skipped before any stop: the open bets left no room.
					assert.Contains(t, b.Reason, "plan.open_stake = ")
					noRoom++
				}
			}
		}
		if stoppedAt.IsZero() {
			assert.Equal(t, noRoom, skipped, "day %d: nothing stopped the day, yet bets were skipped with room under the cap", day)
			continue
		}
		stops++
		assert.NotZero(t, skipped, "day %d stopped at %s but skipped nothing", day, stoppedAt)
		for _, b := range bets {
			// A poll interval after the stopping result, nothing more.
			assert.False(t, b.CreatedAt.After(stoppedAt.Add(time.Minute)), "day %d: %s on %s R%d created at %s, after the stop at %s",
				day, b.ID, b.Race.Venue, b.Race.EventNumber, b.CreatedAt, stoppedAt)
		}
	}
	assert.NotZero(t, stops, "no simulated day reached a stop: the test shows nothing")
}

func dayProfit(bets []engine.BetResult) float64 {
	p := 0.0
	for _, b := range bets {
		p += b.Profit
	}
	return p
}

func roundCents(v float64) float64 { return math.Round(v*100) / 100 }

// TestExampleAfterALoss: race 6 is bet only when the race 3 bet lost, at
// twice the race 3 stake capped at $20; when race 3 won, race 6 is
// skipped and says what bets.r3.lost was. The race 3 selection is set to
// the runner that loses, then to the one that wins.
func TestExampleAfterALoss(t *testing.T) {
	t.Parallel()
	for _, lose := range []bool{true, false} {
		w := newWorld(t)
		order := w.finishingOrder(w.raceAt("Randwick", 3))
		pick := order[0]
		if lose {
			pick = order[len(order)-1]
		}
		p := w.example("after-a-loss.yaml", [2]string{"race: r3\n    selection: \"1\"", "race: r3\n    selection: \"" + pick + "\""})
		res, err := engine.Run(context.Background(), p, w.options(w.client()))
		require.NoError(t, err)
		got := byID(res)
		r3, r6 := got["r3"], got["r6"]
		require.Equal(t, engine.StatusSettled, r3.Status, r3.Reason)
		require.Equal(t, lose, r3.Profit < 0, "r3 on runner %s: %s", pick, r3.Reason)
		if lose {
			require.Equal(t, engine.StatusSettled, r6.Status, r6.Reason)
			assert.Equal(t, 20.0, *r6.Stake, "twice $15, capped at $20")
			assert.Equal(t, 20.0, r6.AtRisk)
			assert.True(t, r6.CreatedAt.After(r3.Race.Start), "r6 was created before r3's result")
			continue
		}
		assert.Equal(t, engine.StatusSkipped, r6.Status)
		assert.Zero(t, r6.NotificationID)
		assert.Contains(t, r6.Reason, "bets.r3.lost = false")
		assert.Equal(t, engine.EndCompleted, res.EndReason)
	}
}

// TestExampleBankroll: each bet stakes 2% of the running sessions'
// balance, capped at $25, as a total across them, and a day's bets stay
// within $200.
func TestExampleBankroll(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		stopped  []int
		first    float64 // 2% of the balance the first bet sees
		sessions int
	}{
		{"two sessions", nil, 25, 2},        // 2% of $1,500 is $30: capped at $25
		{"one session", []int{4418}, 20, 1}, // 2% of $1,000
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, id := range tc.stopped {
				w.svc.SetBotRunning(id, false)
			}
			p := w.example("bankroll.yaml")
			res, err := engine.Run(context.Background(), p, w.options(w.client()))
			require.NoError(t, err)
			require.Equal(t, engine.EndCompleted, res.EndReason, res.Error)
			bets := created(res)
			require.NotEmpty(t, bets)
			assert.Equal(t, tc.first, *bets[0].Stake)
			perDay := map[string]float64{}
			for _, b := range bets {
				assert.LessOrEqual(t, *b.Stake, 25.0)
				assert.LessOrEqual(t, b.AtRisk, 25.0, "at most $25 a race")
				assert.Len(t, b.Records, tc.sessions)
				sum := 0.0
				for _, r := range b.Records {
					sum += r.Amount
				}
				assert.InDelta(t, *b.Stake, sum, 0.001, "the stake is the total across the sessions")
				perDay[b.Race.Start.Format("2006-01-02")] += b.AtRisk
			}
			for day, v := range perDay {
				assert.LessOrEqual(t, v, 200.0, "day %s", day)
			}
		})
	}
}

// TestExampleEachWay: the win and place halves go on together, on one
// runner of one race, and max_stake_per_race limits the pair together: a
// pair too big for it has its place half refused.
func TestExampleEachWay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	res, err := engine.Run(context.Background(), w.example("each-way.yaml"), w.options(w.client()))
	require.NoError(t, err)
	got := byID(res)
	win, place := got["ew_win"], got["ew_place"]
	require.Equal(t, engine.StatusSettled, win.Status, win.Reason)
	require.Equal(t, engine.StatusSettled, place.Status, place.Reason)
	assert.Equal(t, "Fixed Win", win.Market)
	assert.Equal(t, "Fixed Place", place.Market)
	assert.Equal(t, win.Race, place.Race)
	assert.Equal(t, win.Selection, place.Selection)
	assert.Equal(t, 20.0, win.AtRisk+place.AtRisk)
	assert.WithinDuration(t, win.CreatedAt, place.CreatedAt, time.Second, "one pair, created together")

	w = newWorld(t)
	big := w.example("each-way.yaml", [2]string{"stake: 10", "stake: 12"}, [2]string{"max_stake_per_bet: 10", "max_stake_per_bet: 12"})
	res, err = engine.Run(context.Background(), big, w.options(w.client()))
	require.NoError(t, err)
	got = byID(res)
	assert.Equal(t, engine.StatusSettled, got["ew_win"].Status)
	assert.Equal(t, engine.StatusFailed, got["ew_place"].Status)
	assert.Contains(t, got["ew_place"].Reason, "max_stake_per_race $20.00 on Caulfield R5")
	assert.Contains(t, got["ew_place"].Reason, "$12.00 at risk on it already committed by this plan, this bet adds $12.00")
	assert.Equal(t, engine.EndRefused, res.EndReason)
}

// TestExampleGreyhoundCronOverThreeDays plays the cron plan as cron runs
// it, a --no-wait run every four minutes of three simulated days. Its
// limits are daily: it bets every race of every day (where, counting
// over the whole plan, it would stop for good on the second day), each
// day's totals are what the service shows for that day's bets, and with
// a tighter daily limit it stops at the limit each day and bets again the
// next.
func TestExampleGreyhoundCronOverThreeDays(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	for _, tc := range []struct {
		name    string
		edits   [][2]string
		days    int
		perDay  int     // bets a day
		limit   float64 // max_total_stake
		refused bool
	}{
		{"as written", nil, 3, 16, 80, false},
		{"a tighter daily limit", [][2]string{{"max_total_stake: 80", "max_total_stake: 40"}}, 2, 10, 40, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			p := w.example("greyhound-cron.yaml", tc.edits...)
			c := w.client()
			refusals := 0
			for day := 0; day < tc.days; day++ {
				// The day's greyhound cards run from about 20 minutes to
				// 4h20 after the world's daily start.
				from := simStart.Add(time.Duration(day) * 24 * time.Hour)
				for at := from.Add(10 * time.Minute); at.Before(from.Add(270 * time.Minute)); at = at.Add(4 * time.Minute) {
					w.clock.Set(at)
					opts := w.options(c)
					opts.NoWait = true
					res, err := engine.Run(context.Background(), p, opts)
					require.NoError(t, err)
					if res.EndReason == engine.EndRefused {
						refusals++
						assert.Contains(t, res.Error, fmt.Sprintf("max_total_stake $%.2f", tc.limit))
					}
					for _, u := range res.Limits.Periods {
						assert.LessOrEqual(t, u.Staked, tc.limit, "day %s over its limit after the run at %s", u.Period, at)
						assert.LessOrEqual(t, u.Bets, 20)
					}
				}
			}
			assert.Equal(t, tc.refused, refusals > 0)

			// The service's view, day by day: what the bets of each meeting
			// day accepted, against what the plan's report says of the day.
			notifs := allNotifications(t, c)
			accepted := map[string]float64{}
			count := map[string]int{}
			for _, n := range notifs {
				day := n.Tip.Competition.StartTime.Format("2006-01-02")
				accepted[day] += float64(n.TotalAccepted)
				count[day]++
			}
			require.Len(t, count, tc.days, "a meeting day a day: %v", count)
			for day, n := range count {
				assert.Equal(t, tc.perDay, n, "bets on %s", day)
			}
			// A status after the last day reads every day's bets back.
			res, err := engine.ReadStatus(context.Background(), p, w.options(c))
			require.NoError(t, err)
			for day := range count {
				var staked float64
				bets := 0
				for _, b := range res.Bets {
					if b.NotificationID != 0 && b.Race.Start.Format("2006-01-02") == day {
						staked += b.AtRisk
						bets++
					}
				}
				assert.InDelta(t, accepted[day], staked, 0.001, "at risk on %s", day)
				assert.LessOrEqual(t, staked, tc.limit)
				assert.Equal(t, count[day], bets)
			}
		})
	}
}

// allNotifications reads every notification of the account.
func allNotifications(t *testing.T, c *apiclient.Client) []apiclient.Notification {
	t.Helper()
	var out []apiclient.Notification
	for page := 1; ; page++ {
		p, err := c.ListNotifications(context.Background(), apiclient.ListNotificationsOptions{Page: page, PageSize: 100})
		require.NoError(t, err)
		out = append(out, p.Results...)
		if p.Next == nil || len(p.Results) == 0 {
			return out
		}
	}
}

// TestPreviewReadsEarlierOutcomes: betplan plan, which polls nothing,
// sees what an earlier run's bet did through its scan of the service: the
// race 6 bet of after-a-loss reads as ready once race 3 lost.
func TestPreviewReadsEarlierOutcomes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r3, r6 := w.raceAt("Randwick", 3), w.raceAt("Randwick", 6)
	order := w.finishingOrder(r3)
	p := w.example("after-a-loss.yaml", [2]string{"race: r3\n    selection: \"1\"", "race: r3\n    selection: \"" + order[len(order)-1] + "\""})
	w.clock.Set(r3.Start.Add(-4 * time.Minute))
	opts := w.options(w.client())
	opts.NoWait = true
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Equal(t, 1, w.svc.NotificationCount())

	w.clock.Set(r6.Start.Add(-4 * time.Minute))
	prev, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	got := byID(prev)
	assert.Equal(t, engine.ActionCreate, got["r6"].Action, got["r6"].Reason)
	assert.Equal(t, 20.0, *got["r6"].Stake)
}
