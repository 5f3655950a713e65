package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reason"
)

// finishingOrder is how the seeded world will run race r, read from a
// twin world moved past it: tests pick a winner or a loser before betting.
func (w *world) finishingOrder(r sim.RaceInfo) []string {
	w.t.Helper()
	clock := sim.NewManualClock(w.start)
	twin := sim.New(sim.Options{Seed: 7, Clock: clock})
	clock.Set(r.Start.Add(time.Hour))
	for _, x := range twin.Races() {
		if x.Venue == r.Venue && x.EventNumber == r.EventNumber && x.Start.Equal(r.Start) {
			require.NotEmpty(w.t, x.Result, "race %s R%d not resulted in the twin world", r.Venue, r.EventNumber)
			return strings.Split(x.Result, "/")
		}
	}
	w.t.Fatalf("no race %s R%d at %s in the twin world", r.Venue, r.EventNumber, r.Start)
	return nil
}

// raceAt is race n of venue in the current meeting round.
func (w *world) raceAt(venue string, n int) sim.RaceInfo {
	w.t.Helper()
	for _, r := range w.svc.Races() {
		if r.Venue == venue && r.EventNumber == n && r.Start.After(w.clock.Now()) {
			return r
		}
	}
	w.t.Fatalf("no upcoming %s R%d", venue, n)
	return sim.RaceInfo{}
}

func byID(res *engine.Result) map[string]engine.BetResult {
	out := map[string]engine.BetResult{}
	for _, b := range res.Bets {
		if old, ok := out[b.ID]; !ok || old.NotificationID == 0 {
			out[b.ID] = b
		}
	}
	return out
}

// TestAtRiskCountsTheSessionsThatPlaceIt: a Fixed Wager stake is placed
// by each running session it reaches, so a $10 bet puts $10, $20 or $30
// at risk with 1, 2 or 3 running sessions, $10 with a target session or
// as a total across sessions. The preview, the prompt and the limit count
// that, and it is what the simulated sessions then accept.
func TestAtRiskCountsTheSessionsThatPlaceIt(t *testing.T) {
	t.Parallel()
	all := []int{4417, 4418, 4419}
	tests := []struct {
		name      string
		running   []int
		fields    string
		wantRisk  float64
		wantBasis string
		refused   string // the limit's reason, when it refuses
	}{
		{"one running session", []int{4417}, "", 10, "$10.00 × 1: 1 session with a running bot (Main Sportsbet)", ""},
		{"two running sessions", []int{4417, 4418}, "", 20, "$10.00 × 2: 2 sessions with a running bot (Main Sportsbet, Ladbrokes 2)", ""},
		{"three running sessions", all, "", 30, "$10.00 × 3: 3 sessions with a running bot (Main Sportsbet, Ladbrokes 2, TAB spare)",
			"max_stake_per_bet $25.00: this bet puts $30.00 at risk ($10.00 × 3: 3 sessions with a running bot"},
		{"a target session among three", all, `target_session: "4418"`, 10, "$10.00 × 1: the target session 4418 (Ladbrokes 2)", ""},
		{"a total across three", all, `options: {ensure_total_wager: true}`, 10, "$10.00 in all, split across the sessions (ensure_total_wager)", ""},
		{"a total across one", []int{4418}, `options: {ensure_total_wager: true}`, 10, "$10.00 in all, split across the sessions (ensure_total_wager)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			for _, id := range all {
				running := false
				for _, r := range tt.running {
					running = running || r == id
				}
				w.svc.SetBotRunning(id, running)
			}
			r := w.race("Galloping", 0)
			p := w.plan(fmt.Sprintf(`version: 1
name: at-risk
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 25, max_total_stake: 100, max_bets: 5}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: one
    race: %s
    selection: %q
    stake: 10
    when: race.minutes_to_start <= 10
    %s
`, raceYAML(r), r.Runners[0], tt.fields))
			w.clock.Set(r.Start.Add(-9 * time.Minute))

			prev, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
			require.NoError(t, err)
			require.Len(t, prev.Bets, 1)
			assert.Equal(t, tt.wantRisk, prev.Bets[0].AtRisk)
			assert.Equal(t, tt.wantBasis, prev.Bets[0].AtRiskBasis)

			opts := w.options(w.client())
			var prompt string
			opts.Confirm = func(s string) (bool, error) { prompt = s; return true, nil }
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			b := res.Bets[0]
			if tt.refused != "" {
				assert.Equal(t, engine.ActionRefuse, prev.Bets[0].Action, prev.Bets[0].Reason)
				assert.Equal(t, engine.EndRefused, res.EndReason)
				assert.Contains(t, b.Reason, tt.refused)
				assert.Empty(t, prompt, "the prompt came before the limit")
				assert.Zero(t, w.svc.NotificationCount())
				return
			}
			assert.Equal(t, engine.ActionCreate, prev.Bets[0].Action, prev.Bets[0].Reason)
			assert.Contains(t, prompt, fmt.Sprintf("$10.00 requested, $%.2f at risk", tt.wantRisk))
			assert.Contains(t, prompt, fmt.Sprintf("one on %s R%d: $10.00 stake requested, $%.2f at risk (%s)", r.Venue, r.EventNumber, tt.wantRisk, tt.wantBasis))
			require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
			// What the limit counted is what the sessions placed.
			assert.Equal(t, tt.wantRisk, b.AmountAccepted)
			assert.Equal(t, tt.wantRisk, b.AtRisk)
			assert.Equal(t, "accepted by the sessions", b.AtRiskBasis)
		})
	}
}

// limitCase is one limit and the bets that meet it: each bet is made
// ready in turn (its race 9 minutes out, or at "at"), and the bet named
// refused must be refused for the reason given, the others created.
type limitCase struct {
	name    string
	limits  string
	bets    func(w *world) []limitBet
	refused string
	reason  string
}

type limitBet struct {
	id    string
	race  sim.RaceInfo
	sel   string
	stake string
	at    time.Time // when it is made ready; zero: 9 minutes before its race
	when  string    // default race.minutes_to_start <= 10
}

func limitCases() []limitCase {
	sequential := func(w *world) (a, b, c sim.RaceInfo) {
		return w.raceAt("Flemington", 2), w.raceAt("Flemington", 4), w.raceAt("Flemington", 6)
	}
	three := func(w *world) []limitBet {
		a, b, c := sequential(w)
		return []limitBet{{id: "a", race: a, stake: "10"}, {id: "b", race: b, stake: "10"}, {id: "c", race: c, stake: "10"}}
	}
	sameRace := func(w *world) []limitBet {
		a, _, _ := sequential(w)
		return []limitBet{
			{id: "a", race: a, sel: a.Runners[0], stake: "10"},
			{id: "b", race: a, sel: a.Runners[1], stake: "10", at: a.Start.Add(-7 * time.Minute), when: "race.minutes_to_start <= 8"},
		}
	}
	return []limitCase{
		{"max_stake_per_bet", "max_stake_per_bet: 15", func(w *world) []limitBet {
			a, b, _ := sequential(w)
			return []limitBet{{id: "a", race: a, stake: "10"}, {id: "b", race: b, stake: "20 + 0 * plan.bets"}}
		}, "b", "max_stake_per_bet $15.00: this bet puts $20.00 at risk ($20.00 × 1: the target session 4417 (Main Sportsbet))"},
		{"max_total_stake", "max_total_stake: 25", three, "c",
			"max_total_stake $25.00 in day %s: $20.00 at risk already committed by this plan, this bet adds $10.00"},
		{"max_bets", "max_bets: 2", three, "c", "max_bets 2 in day %s: 2 bets already committed by this plan"},
		{"max_open_stake", "max_open_stake: 15", func(w *world) []limitBet {
			a, _, c := sequential(w)
			// b's race starts within minutes of a's: a is still open then.
			b := w.raceAt("Randwick", 2)
			require.True(w.t, b.Start.Add(-9*time.Minute).Before(a.Start), "Randwick R2 should start just after Flemington R2")
			return []limitBet{{id: "a", race: a, stake: "10"}, {id: "b", race: b, stake: "10"}, {id: "c", race: c, stake: "10"}}
		}, "b", "max_open_stake $15.00 in day %s: $10.00 at risk on bets not resulted yet, this bet adds $10.00"},
		{"stop_loss", "stop_loss: 5", func(w *world) []limitBet {
			a, b, _ := sequential(w)
			order := w.finishingOrder(a)
			return []limitBet{{id: "a", race: a, sel: order[len(order)-1], stake: "10"}, {id: "b", race: b, stake: "10"}}
		}, "b", "stop_loss $5.00: the settled profit in day %s reached -$10.00 (it is -$10.00 now), at or below -$5.00; no new bet is created"},
		// Three bets open at once under a loss cap: the third would let the
		// day end at -$30 if all three lost, so it is refused.
		{"max_loss", "max_loss: 25", func(w *world) []limitBet {
			a, b, c := sequential(w)
			at := a.Start.Add(-9 * time.Minute)
			when := "race.minutes_to_start <= 240"
			return []limitBet{{id: "a", race: a, stake: "10", at: at, when: when}, {id: "b", race: b, stake: "10", at: at, when: when},
				{id: "c", race: c, stake: "10", at: at, when: when}}
		}, "c", "max_loss $25.00 in day %s: if every open bet and this one lost, the profit would be -$30.00 (settled $0.00, $20.00 open at risk, this bet $10.00 ($10.00 × 1: the target session 4417 (Main Sportsbet))), below -$25.00"},
		{"take_profit", "take_profit: 1", func(w *world) []limitBet {
			a, b, _ := sequential(w)
			return []limitBet{{id: "a", race: a, sel: w.finishingOrder(a)[0], stake: "10"}, {id: "b", race: b, stake: "10"}}
		}, "b", "take_profit $1.00: the settled profit in day %s reached $"},
		{"max_stake_per_race", "max_stake_per_race: 15", sameRace, "b",
			"max_stake_per_race $15.00 on Flemington R2 of %s: $10.00 at risk on it already committed by this plan, this bet adds $10.00"},
		{"max_bets_per_race", "max_bets_per_race: 1", sameRace, "b",
			"max_bets_per_race 1 on Flemington R2 of %s: 1 bet on it already committed by this plan"},
	}
}

// TestEveryLimitRefusesAtTheRightBet plays each limit out over runs of
// the plan, one per bet as cron would start them: the journal carries
// what earlier runs committed (or, with the state dir lost before every
// run, the service by label does), and the limit refuses exactly the bet
// that would break it, saying why, while the others are created.
func TestEveryLimitRefusesAtTheRightBet(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	for _, tc := range limitCases() {
		for _, mode := range []string{"journal", "lost state dir", "one run"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				w := newWorld(t)
				bets := tc.bets(w)
				var yaml strings.Builder
				fmt.Fprintf(&yaml, `version: 1
name: limit-%s
poll: {interval: 30s, timeout: 12h}
limits: {period: day, %s}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
`, strings.ReplaceAll(tc.name, "_", "-"), tc.limits)
				for i := range bets {
					b := &bets[i]
					if b.sel == "" {
						b.sel = b.race.Runners[0]
					}
					if b.when == "" {
						b.when = "race.minutes_to_start <= 10"
					}
					if b.at.IsZero() {
						b.at = b.race.Start.Add(-9 * time.Minute)
					}
					fmt.Fprintf(&yaml, "  - {id: %s, race: %s, selection: %q, stake: %q, when: %q}\n", b.id, raceYAML(b.race), b.sel, b.stake, b.when)
				}
				p := w.plan(yaml.String())
				// ranAt[id] is the result of the run that decided bet id.
				ranAt := map[string]*engine.Result{}
				if mode == "one run" {
					w.clock.Set(bets[0].at)
					res, err := engine.Run(context.Background(), p, w.options(w.client()))
					require.NoError(t, err)
					for _, b := range bets {
						ranAt[b.id] = res
					}
				} else {
					for i, b := range bets {
						w.clock.Set(b.at)
						opts := w.options(w.client())
						opts.NoWait = true
						if mode == "lost state dir" {
							w.moveState(&opts, fmt.Sprintf("state-%d", i))
						}
						res, err := engine.Run(context.Background(), p, opts)
						require.NoError(t, err)
						// The refused bet's run is the first that refused it:
						// a later run of the period held back by the same cap
						// says nothing new.
						if r := byID(res)[tc.refused]; ranAt[tc.refused] == nil && r.Status == engine.StatusFailed {
							ranAt[tc.refused] = res
						}
						if ranAt[b.id] == nil {
							ranAt[b.id] = res
						}
					}
				}
				day := bets[0].race.Start.Format("2006-01-02")
				for _, b := range bets {
					res := ranAt[b.id]
					r := byID(res)[b.id]
					assertOnePerLabel(t, w.svc, res)
					if b.id == tc.refused {
						assert.Equal(t, engine.StatusFailed, r.Status, "bet %s: %s", b.id, r.Reason)
						assert.Contains(t, r.Reason, "refused by a limit: "+strings.ReplaceAll(tc.reason, "%s", day))
						assert.Zero(t, r.NotificationID)
						if strings.HasPrefix(tc.reason, "stop_loss") || strings.HasPrefix(tc.reason, "take_profit") {
							// A stop ends the plan's period by its own rule: not a refusal (exit 0).
							assert.Equal(t, engine.EndLimit, res.EndReason, "a stop ends the run by its limit")
							assert.Equal(t, reason.Stop, r.Why.Code)
						} else {
							// A cap holding a bet back for the first time refuses the run (exit 3).
							assert.Equal(t, engine.EndRefused, res.EndReason, "a refused bet ends the run refused (exit 3)")
							assert.Equal(t, reason.Limit, r.Why.Code)
						}
						assert.Equal(t, strings.Fields(tc.reason)[0], r.Why.Limit)
						continue
					}
					assert.NotZero(t, r.NotificationID, "bet %s was not created: %s %s", b.id, r.Status, r.Reason)
					assert.Equal(t, 1, w.svc.NotificationsWithLabel(r.Label), "bet %s", b.id)
				}
				assert.Equal(t, len(bets)-1, w.svc.NotificationCount())
			})
		}
	}
}

// TestLimitsCountWithinTheirPeriod: a daily limit full today leaves
// tomorrow's races free; the same limit over the whole plan does not.
func TestLimitsCountWithinTheirPeriod(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	for _, period := range []string{"day", "plan"} {
		t.Run(period, func(t *testing.T) {
			w := newWorld(t)
			today := w.raceAt("Flemington", 2)
			p := w.plan(fmt.Sprintf(`version: 1
name: daily
poll: {interval: 30s, timeout: 2h}
limits: {period: %s, max_bets: 1, max_total_stake: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", selection: "1", stake: 10}
bets:
  - id: box1
    for_each_race: race.venue == "Flemington" && race.event_number <= 3
    when: race.minutes_to_start <= 10
`, period))
			var results []*engine.Result
			for day := 0; day < 3; day++ {
				w.clock.Set(today.Start.Add(time.Duration(day)*24*time.Hour - 40*time.Minute))
				res, err := engine.Run(context.Background(), p, w.options(w.client()))
				require.NoError(t, err)
				results = append(results, res)
			}
			created := 0
			for day, res := range results {
				todays := 0
				for _, b := range res.Bets {
					if b.NotificationID != 0 && b.CreatedAt.After(today.Start.Add(time.Duration(day)*24*time.Hour-2*time.Hour)) {
						todays++
					}
				}
				want := 1
				if period == "plan" && day > 0 {
					want = 0
				}
				assert.Equal(t, want, todays, "day %d: %+v", day, res.Bets)
				created += todays
				require.NotEmpty(t, res.Limits.Periods)
			}
			assert.Equal(t, created, w.svc.NotificationCount())
			last := results[2].Limits.Periods
			if period == "day" {
				require.Len(t, last, 1)
				assert.Equal(t, today.Start.Add(48*time.Hour).Format("2006-01-02"), last[0].Period)
				assert.Equal(t, 1, last[0].Bets)
				assert.Equal(t, 10.0, last[0].Staked)
			} else {
				assert.Equal(t, "", last[0].Period)
				assert.Equal(t, 1, last[0].Bets)
			}
		})
	}
}

// TestPeriodBoundaryIsTheMeetingDay: a day is the race's meeting day in
// its own time zone. Past midnight in Melbourne, Flemington's late races
// are the next day's, while Gloucester Park's races at the same moments
// are still the evening of the day before in Perth.
func TestPeriodBoundaryIsTheMeetingDay(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 20, 21, 30, 0, 0, time.FixedZone("AEDT", 11*3600))
	for _, venue := range []string{"Flemington", "Gloucester Park"} {
		t.Run(venue, func(t *testing.T) {
			w := newWorldAt(t, start)
			early, late := w.raceAt(venue, 2), w.raceAt(venue, 7)
			p := w.plan(fmt.Sprintf(`version: 1
name: boundary
poll: {interval: 30s, timeout: 12h}
limits: {period: day, max_bets: 1}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", stake: 5, when: race.minutes_to_start <= 10}
bets:
  - {id: early, race: %s, selection: %q}
  - {id: late, race: %s, selection: %q}
`, raceYAML(early), early.Runners[0], raceYAML(late), late.Runners[0]))
			res, err := engine.Run(context.Background(), p, w.options(w.client()))
			require.NoError(t, err)
			got := byID(res)
			assert.Equal(t, "2026-11-20", got["early"].Race.Start.Format("2006-01-02"))
			assert.Equal(t, engine.StatusSettled, got["early"].Status, got["early"].Reason)
			// The same instants, told in Sydney: the late race is past midnight.
			assert.Equal(t, "2026-11-21", got["late"].Race.Start.In(start.Location()).Format("2006-01-02"))
			if venue == "Flemington" {
				assert.Equal(t, "2026-11-21", got["late"].Race.Start.Format("2006-01-02"))
				assert.Equal(t, engine.StatusSettled, got["late"].Status, "a new meeting day in Melbourne: %s", got["late"].Reason)
				assert.Equal(t, engine.EndCompleted, res.EndReason)
				return
			}
			assert.Equal(t, "2026-11-20", got["late"].Race.Start.Format("2006-01-02"))
			assert.Equal(t, engine.StatusFailed, got["late"].Status)
			assert.Contains(t, got["late"].Reason, "max_bets 1 in day 2026-11-20: 1 bet already committed")
			assert.Equal(t, 1, w.svc.NotificationCount())
		})
	}
}

// TestCertainBetsOverALimitRefuseTheRun: the bets certain to be created
// (a named race, no when, a static amount) that break a limit together,
// with what the period committed before, refuse the whole run before any
// create, rather than creating some. Here the limit counts over the whole
// plan, and tomorrow's card does not fit beside today's.
func TestCertainBetsOverALimitRefuseTheRun(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a, b := w.raceAt("Flemington", 6), w.raceAt("Randwick", 6)
	p := w.plan(fmt.Sprintf(`version: 1
name: certain
poll: {interval: 30s, timeout: 2h}
limits: {period: plan, max_total_stake: 50, max_stake_per_bet: 20}
defaults: {market: Fixed Win, type: Fixed Wager, stake: 10}
bets:
  - {id: a, race: %s, selection: "1"}
  - {id: b, race: %s, selection: "1"}
`, raceYAML(a), raceYAML(b)))
	// Two running sessions: each bet puts $20 at risk, $40 together.
	w.clock.Set(a.Start.Add(-30 * time.Minute))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	assert.Equal(t, 2, w.svc.NotificationCount())
	assert.Equal(t, 40.0, res.Totals.AtRisk)

	// The next day: $40 more would make $80 of $50. Nothing is created.
	w.clock.Set(a.Start.Add(24*time.Hour - 30*time.Minute))
	prev, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	refused := 0
	for _, b := range prev.Bets {
		if b.Action == engine.ActionRefuse {
			refused++
			assert.Contains(t, b.Reason, "run would refuse the plan before creating any bet")
		}
	}
	assert.Equal(t, 2, refused, "%+v", prev.Bets)
	res, err = engine.Run(context.Background(), p, w.options(w.client()))
	require.Error(t, err)
	assert.True(t, engine.IsRefused(err), "%v", err)
	assert.Contains(t, err.Error(), "the bets certain to be created (a, b: a named race, no when, a static amount) break a limit together")
	assert.Contains(t, err.Error(), "max_total_stake $50.00: $40.00 at risk committed by this plan and by the certain bets before it, this bet adds $20.00")
	assert.Equal(t, engine.EndRefused, res.EndReason)
	assert.Equal(t, 2, w.svc.NotificationCount(), "a create was sent")
}

// TestPlanReadsOutcomes: plan and bets in expressions see what the plan's
// bets did, and a skipped bet's reason shows the values its condition saw.
func TestPlanReadsOutcomes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r3, r6 := w.raceAt("Randwick", 3), w.raceAt("Randwick", 6)
	order := w.finishingOrder(r3)
	p := w.plan(fmt.Sprintf(`version: 1
name: reads
poll: {interval: 30s, timeout: 12h}
limits: {period: day, max_stake_per_bet: 500, max_total_stake: 1000, max_bets: 5}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - {id: r3, race: %s, selection: %q, stake: 10, when: race.minutes_to_start <= 5}
  - id: r6-after-win
    race: %s
    selection: "1"
    stake: bets.r3.profit + 1
    when: race.minutes_to_start <= 5 && bets.r3.won && plan.won == 1 && plan.settled == 1
  - id: r6-after-loss
    race: %s
    selection: "2"
    stake: 5
    when: race.minutes_to_start <= 5 && bets.r3.lost
`, raceYAML(r3), order[0], raceYAML(r6), raceYAML(r6)))
	w.clock.Set(r3.Start.Add(-20 * time.Minute))
	res, err := engine.Run(context.Background(), p, w.options(w.client()))
	require.NoError(t, err)
	got := byID(res)
	require.Equal(t, engine.StatusSettled, got["r3"].Status)
	require.Greater(t, got["r3"].Profit, 0.0)
	assert.Equal(t, engine.StatusSettled, got["r6-after-win"].Status, got["r6-after-win"].Reason)
	assert.Equal(t, got["r3"].Profit+1, *got["r6-after-win"].Stake, "the stake read the r3 bet's profit")
	assert.Equal(t, engine.StatusSkipped, got["r6-after-loss"].Status)
	assert.Contains(t, got["r6-after-loss"].Reason, "bets.r3.lost = false")
	periods := res.Limits.Periods
	require.Len(t, periods, 1)
	assert.Equal(t, 2, periods[0].Settled)
	assert.Equal(t, 2, periods[0].Bets)
}

// TestEventIsItsOwnRaceForLimits: a sports event is a "race" for the
// per-race limits: a second bet on one event is refused, one on another
// event is not.
func TestEventIsItsOwnRaceForLimits(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	afl, nba := w.sportsEvent("AFL", 0), w.sportsEvent("NBA", 0)
	p := w.plan(strings.Replace(sportsHead, "max_bets: 10}", "max_bets: 10, max_bets_per_race: 1}", 1) + fmt.Sprintf(`  - id: pies
    event: {id: %d}
    market: Head To Head
    selection: Collingwood
  - id: blues
    event: {id: %d}
    market: Head To Head
    selection: Carlton
  - id: lakers
    event: {id: %d}
    market: Head To Head
    selection: Lakers
`, afl.ID, afl.ID, nba.ID))
	opts := w.options(w.client())
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	got := byID(res)
	assert.NotZero(t, got["pies"].NotificationID, got["pies"].Reason)
	assert.NotZero(t, got["lakers"].NotificationID, got["lakers"].Reason)
	assert.Zero(t, got["blues"].NotificationID)
	assert.Contains(t, got["blues"].Reason, "max_bets_per_race 1 on Collingwood v Carlton")
	assert.Equal(t, 2, w.svc.NotificationCount())
}
