package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/reason"
)

// pollInterval is the interval of the plans below.
const pollInterval = 30 * time.Second

// dayClock is the world's manual clock with the racing day's surprises
// scheduled on it: each change is made on the service the moment the
// engine's sleep passes its time, as the real service would show it.
type dayClock struct {
	*sim.ManualClock
	mu      sync.Mutex
	changes []dayChange
}

type dayChange struct {
	at time.Time
	do func()
}

func (c *dayClock) at(t time.Time, do func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes = append(c.changes, dayChange{t, do})
	sort.SliceStable(c.changes, func(i, j int) bool { return c.changes[i].at.Before(c.changes[j].at) })
}

func (c *dayClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	end := c.Now().Add(d)
	for {
		c.mu.Lock()
		if len(c.changes) == 0 || c.changes[0].at.After(end) {
			c.mu.Unlock()
			break
		}
		ch := c.changes[0]
		c.changes = c.changes[1:]
		c.mu.Unlock()
		if ch.at.After(c.Now()) {
			c.Set(ch.at)
		}
		ch.do()
	}
	c.Set(end)
	return nil
}

// oneBetPlan is one bet, ready at once, on race r.
func (w *world) oneBetPlan(r sim.RaceInfo, options string) string {
	return fmt.Sprintf(`version: 1
poll: {interval: %s, timeout: 12h}
name: early
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: early
    race: %s
    selection: %q
    stake: 10%s
`, pollInterval, raceYAML(r), r.Runners[0], options)
}

// runDay runs p with the day's changes on the clock and records when the
// live line first showed each status.
func runDay(t *testing.T, w *world, yaml string, changes func(c *dayClock)) (*engine.Result, map[engine.Status]time.Time) {
	t.Helper()
	clock := &dayClock{ManualClock: w.clock}
	if changes != nil {
		changes(clock)
	}
	opts := w.options(w.client())
	opts.Clock = clock
	seen := map[engine.Status]time.Time{}
	opts.Live = func(p engine.Progress) {
		for s, n := range p.ByStatus {
			if _, ok := seen[s]; !ok && n > 0 {
				seen[s] = p.Now
			}
		}
	}
	res, err := engine.Run(context.Background(), w.plan(yaml), opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	if res.Bets[0].Why.Code == reason.OddsBound {
		// Refused for the plan's own odds bound: the limit did its job.
		assert.Equal(t, engine.EndLimit, res.EndReason)
	} else {
		assert.Equal(t, engine.EndCompleted, res.EndReason)
	}
	assertOnePerLabel(t, w.svc, res)
	return res, seen
}

func TestEarlyOutcomesEndTheBetPromptly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// day schedules what happens to the race r after the create at
		// simStart; it returns when the service shows the outcome.
		day        func(w *world, c *dayClock, r sim.RaceInfo) time.Time
		options    string
		wantStatus engine.Status
		wantReason string
		wantCode   reason.Code
		// within is how long after the outcome appears the run may see it.
		within time.Duration
	}{
		{
			name: "race data an hour wrong: resulted 2s after the create",
			day: func(w *world, c *dayClock, r sim.RaceInfo) time.Time {
				// The race really ran two minutes before the result the
				// service shows 2s after the create.
				require.True(t, w.svc.RunAt(r, simStart.Add(2*time.Second-2*time.Minute)))
				return simStart.Add(2 * time.Second)
			},
			wantStatus: engine.StatusNotTaken,
			wantCode:   reason.NotTaken,
			within:     pollInterval,
		},
		{
			name: "start moved 50 minutes earlier after the create",
			day: func(w *world, c *dayClock, r sim.RaceInfo) time.Time {
				start := simStart.Add(12 * time.Minute)
				c.at(simStart.Add(10*time.Minute), func() { require.True(t, w.svc.MoveStart(r, start)) })
				return start.Add(2 * time.Minute)
			},
			wantStatus: engine.StatusSettled,
			within:     pollInterval,
		},
		{
			name: "scratched selection: void",
			day: func(w *world, c *dayClock, r sim.RaceInfo) time.Time {
				at := simStart.Add(20*time.Minute + 7*time.Second)
				c.at(at, func() { require.True(t, w.svc.Scratch(r, r.Runners[0])) })
				return at
			},
			wantStatus: engine.StatusSettled,
			wantReason: "void",
			within:     5*time.Minute + pollInterval,
		},
		{
			name: "every session refuses",
			day: func(w *world, c *dayClock, r sim.RaceInfo) time.Time {
				return simStart.Add(3 * time.Second) // the bots' answer
			},
			options:    "\n    options: {check_odds: true, odds: 900}",
			wantStatus: engine.StatusFailed,
			wantReason: "every session refused",
			wantCode:   reason.OddsBound, // the plan's own odds floor
			within:     pollInterval,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			r := w.raceAfter(time.Hour)
			var shown time.Time
			res, _ := runDay(t, w, w.oneBetPlan(r, tt.options), func(c *dayClock) { shown = tt.day(w, c, r) })
			b := res.Bets[0]
			assert.Equal(t, tt.wantStatus, b.Status, b.Reason)
			assert.True(t, b.Final)
			assert.Contains(t, b.Reason, tt.wantReason)
			assert.Equal(t, tt.wantCode, b.Why.Code)
			assert.True(t, b.CreatedAt.Equal(simStart), "created at %s", b.CreatedAt)
			late := res.FinishedAt.Sub(shown)
			assert.GreaterOrEqual(t, late, time.Duration(0))
			assert.LessOrEqual(t, late, tt.within, "the outcome shown at %s was seen at %s", shown, res.FinishedAt)
			assert.True(t, res.FinishedAt.Before(r.Start), "the run ended at %s, not before the listed start %s", res.FinishedAt, r.Start)
			if tt.wantStatus == engine.StatusSettled {
				assert.Positive(t, b.AmountAccepted)
				assert.NotEmpty(t, b.PlacedBy)
			}
			if tt.wantReason == "void" {
				assert.Zero(t, b.Profit, "a void bet returns the stake")
			}
		})
	}
}

func TestSlowBotsPlacedStateSeenWithinAnInterval(t *testing.T) {
	t.Parallel()
	const answer = 90 * time.Second
	w := newWorldWith(t, sim.Options{TakeUpDelay: answer})
	r := w.raceAfter(time.Hour)
	res, seen := runDay(t, w, w.oneBetPlan(r, ""), nil)
	b := res.Bets[0]
	require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
	placed, ok := seen[engine.StatusPlaced]
	require.True(t, ok, "the live line never showed the bet placed")
	answered := b.CreatedAt.Add(answer)
	assert.False(t, placed.Before(answered))
	assert.LessOrEqual(t, placed.Sub(answered), pollInterval, "placed at %s, seen at %s", answered, placed)
	// The records say exactly when (the session's submit time, which the
	// simulated service puts 400 ms before the record) and by whom.
	assert.True(t, b.PlacedAt.Equal(answered.Add(-400*time.Millisecond)), "placed at %s", b.PlacedAt)
	assert.Equal(t, []string{"Main Sportsbet"}, b.PlacedBy)
	// The run ends with the result, not at poll.timeout.
	assert.LessOrEqual(t, res.FinishedAt.Sub(r.Start), 2*time.Minute+pollInterval)
}

func TestBurstCreatesWithinOneCallPerBet(t *testing.T) {
	t.Parallel()
	const n = 50
	const rate = 4 // requests a second: the CLI's default
	w := newWorld(t)
	r := w.raceAfter(30 * time.Minute)
	res, err := engine.Run(context.Background(), w.plan(burstPlan(r, n)), w.options(w.client()))
	require.NoError(t, err)
	assertOnePerLabel(t, w.svc, res)
	require.Equal(t, n, w.svc.NotificationCount())
	calls, _ := tickToLastCreate(w.svc.Requests())
	// At rate requests a second, N / rate + 1 s leaves room for rate calls
	// besides the creates.
	assert.LessOrEqual(t, calls, n+rate, "%d calls from the tick to the last create", calls)
}

// burstPlan is n bets of $1 on race r, all due a minute before it.
func burstPlan(r sim.RaceInfo, n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: burst\nlimits: {max_stake_per_bet: 5, max_total_stake: %d, max_bets: %d}\n", n*5, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, when: race.minutes_to_start <= 1}\nbets:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - id: b%03d\n    race: %s\n    selection: %q\n    stake: 1\n", i, raceYAML(r), r.Runners[i%len(r.Runners)])
	}
	return sb.String()
}

// tickToLastCreate counts the calls of the tick of the last create, up to
// it, and the creates among them.
func tickToLastCreate(reqs []sim.Request) (calls, creates int) {
	last := -1
	for i, q := range reqs {
		if q.Method == "POST" && q.Path == "/notification/create/" {
			last = i
		}
	}
	if last < 0 {
		return 0, 0
	}
	tick := reqs[last].SimTime
	for i := last; i >= 0 && reqs[i].SimTime.Equal(tick); i-- {
		calls++
		if reqs[i].Method == "POST" && reqs[i].Path == "/notification/create/" {
			creates++
		}
	}
	return calls, creates
}

// raceAfter returns the first Galloping race starting at least d from now.
func (w *world) raceAfter(d time.Duration) sim.RaceInfo {
	w.t.Helper()
	for _, r := range w.svc.Races() {
		if r.Code == "Galloping" && !r.Start.Before(w.clock.Now().Add(d)) {
			return r
		}
	}
	w.t.Fatalf("no race %s from now", d)
	return sim.RaceInfo{}
}

// A burst's labels checked in one list read still find what another
// machine (its own state, a journal that never saw these bets) created:
// each is adopted, none created twice. With a history too long for the
// read to cover, each label is looked up on its own, with the same result.
func TestBurstLabelCheckAdoptsWhatExists(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	for _, history := range []int{0, 450} {
		t.Run(fmt.Sprintf("%d older notifications", history), func(t *testing.T) {
			const n = 5
			w := newWorld(t)
			c := w.client()
			r := w.raceAfter(30 * time.Minute)
			for i := range history {
				_, err := c.CreateNotification(context.Background(), &apiclient.CreateNotificationRequest{
					Type: "Fixed Wager", Sports: "RACING", Competition: r.Venue, Code: r.Code, EventNumber: r.EventNumber,
					Market: "Fixed Win", Selection: r.Runners[0], Stake: 1, Label: fmt.Sprintf("by-hand-%d", i),
				})
				require.NoError(t, err)
			}
			var sb strings.Builder
			fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: burst\nlimits: {max_stake_per_bet: 5, max_total_stake: 50, max_bets: %d}\n", n)
			sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, when: race.minutes_to_start <= 1}\nbets:\n")
			for i := range n {
				fmt.Fprintf(&sb, "  - id: b%d\n    race: %s\n    selection: %q\n    stake: 1\n", i, raceYAML(r), r.Runners[i])
			}
			p := w.plan(sb.String())
			elsewhere, here := w.options(c), w.options(c)
			w.moveState(&elsewhere, "elsewhere")
			elsewhere.NoWait, here.NoWait = true, true
			// This machine's journal exists (an earlier run found nothing
			// ready) and knows none of the bets.
			_, err := engine.Run(context.Background(), p, here)
			require.NoError(t, err)
			w.clock.Set(r.Start.Add(-time.Minute))
			_, err = engine.Run(context.Background(), p, elsewhere)
			require.NoError(t, err)
			require.Equal(t, history+n, w.svc.NotificationCount())

			w.svc.ResetRequests()
			res, err := engine.Run(context.Background(), p, here)
			require.NoError(t, err)
			assert.Equal(t, history+n, w.svc.NotificationCount(), "a bet was created again")
			assertOnePerLabel(t, w.svc, res)
			pages, lookups, creates := 0, 0, 0
			for _, q := range w.svc.Requests() {
				switch {
				case q.Method == "POST" && q.Path == "/notification/create/":
					creates++
				case q.Path == "/notification/" && strings.Contains(q.Query, "label="):
					lookups++
				case q.Path == "/notification/":
					pages++
				}
			}
			for _, b := range res.Bets {
				assert.NotZero(t, b.NotificationID, "bet %s not adopted: %s", b.ID, b.Reason)
			}
			assert.Zero(t, creates)
			// One list page: it covers the burst, or says the list is too
			// long to read for it.
			assert.Equal(t, 1, pages)
			if history == 0 {
				assert.Zero(t, lookups)
			} else {
				assert.Equal(t, n, lookups, "a long history: one look-up per label")
			}
		})
	}
}

// Bots that answer some bets within seconds and others after about 90 s
// (the seed picks): each bet's placed state is seen within one interval
// of its own answer.
func TestMixedBotAnswersEachSeenWithinAnInterval(t *testing.T) {
	t.Parallel()
	const n = 12
	w := newWorldWith(t, sim.Options{SlowBots: 0.5})
	r := w.raceAfter(time.Hour)
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: %s, timeout: 12h}\nname: mixed\nlimits: {max_stake_per_bet: 5, max_total_stake: 100, max_bets: %d}\n", pollInterval, n)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - id: m%02d\n    race: %s\n    selection: %q\n    stake: 1\n", i, raceYAML(r), r.Runners[i%len(r.Runners)])
	}
	opts := w.options(w.client())
	var mu sync.Mutex
	seen := map[string]time.Time{}
	opts.Log = logFunc(func(line string) {
		stamp, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		id, ok := strings.CutPrefix(rest, "placed ")
		if !ok {
			return
		}
		id, _, _ = strings.Cut(id, ":")
		at, err := time.Parse("2006-01-02T15:04:05Z", stamp)
		require.NoError(t, err)
		mu.Lock()
		seen[id] = at
		mu.Unlock()
	})
	res, err := engine.Run(context.Background(), w.plan(sb.String()), opts)
	require.NoError(t, err)
	slow := 0
	for _, b := range res.Bets {
		if b.Status != engine.StatusSettled {
			continue // the world refuses a few
		}
		answered := b.PlacedAt
		if answered.Sub(b.CreatedAt) > time.Minute {
			slow++
		}
		got, ok := seen[b.ID]
		require.True(t, ok, "bet %s: never logged placed", b.ID)
		assert.LessOrEqual(t, got.Sub(answered), pollInterval, "bet %s answered at %s, seen at %s", b.ID, answered, got)
	}
	assert.Positive(t, slow, "no bet was answered slowly: the test shows nothing")
}

// Creates go ahead of polling: on a tick where earlier bets are due for a
// poll and new ones are ready, every create is sent before any poll.
func TestCreatesGoBeforeThePollsOfTheirTick(t *testing.T) {
	t.Parallel()
	const first, second = 10, 20
	w := newWorld(t)
	a, b := w.raceAfter(time.Hour), w.raceAfter(2*time.Hour)
	// The second wave's condition turns true on the second tick (30s).
	ready := b.Start.Sub(simStart).Minutes() - 0.5
	var sb strings.Builder
	fmt.Fprintf(&sb, "version: 1\npoll: {interval: 30s, timeout: 12h}\nname: waves\nlimits: {max_stake_per_bet: 5, max_total_stake: 500, max_bets: %d}\n", first+second)
	sb.WriteString("defaults: {market: Fixed Win, type: Fixed Wager}\nbets:\n")
	for i := range first {
		fmt.Fprintf(&sb, "  - id: a%02d\n    race: %s\n    selection: %q\n    stake: 1\n", i, raceYAML(a), a.Runners[i%len(a.Runners)])
	}
	for i := range second {
		fmt.Fprintf(&sb, "  - id: b%02d\n    race: %s\n    selection: %q\n    stake: 1\n    when: race.minutes_to_start <= %.2f\n", i, raceYAML(b), b.Runners[i%len(b.Runners)], ready)
	}
	opts := w.options(w.client())
	opts.NoWait = true // first tick: the first wave
	_, err := engine.Run(context.Background(), w.plan(sb.String()), opts)
	require.NoError(t, err)
	require.Equal(t, first, w.svc.NotificationCount())
	w.clock.Advance(30 * time.Second) // second tick: the first wave is young, so due
	w.svc.ResetRequests()
	res, err := engine.Run(context.Background(), w.plan(sb.String()), opts)
	require.NoError(t, err)
	assertOnePerLabel(t, w.svc, res)
	require.Equal(t, first+second, w.svc.NotificationCount())
	reqs := w.svc.Requests()
	calls, creates := tickToLastCreate(reqs)
	require.Equal(t, second, creates)
	// Before the last create: races and sessions (a new run reads them),
	// one list read for the labels, the creates; the polls come after.
	assert.LessOrEqual(t, calls, second+3, "%d calls up to the last create", calls)
	polls := 0
	for _, q := range reqs[calls:] {
		if q.Path == "/notification/" {
			polls++
		}
	}
	assert.Positive(t, polls, "the first wave was polled after the creates")
}

// Polls read the page of the service's list that holds their bets, found
// from where earlier pages showed them. Notifications the punter creates
// by hand on the same account push the plan's bets down the list mid-run:
// the next poll's page misses, the envelope's count says by how much, and
// the page it points to then holds them. Every bet is still followed to
// its result within an interval, through pages, with no look-up by label.
func TestPollPagesFollowTheListAsItGrows(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	// 150 bets on two pages, pushed down by 65 by hand twice: onto a
	// third page, then off the first.
	const n, byHand = 150, 130
	w := newWorld(t)
	var races []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if r.Code == "Galloping" && r.Start.After(simStart.Add(20*time.Minute)) && len(races) < 3 {
			races = append(races, r)
		}
	}
	clock := &dayClock{ManualClock: w.clock}
	byHandClient := w.client()
	for _, at := range []time.Duration{10 * time.Minute, races[1].Start.Sub(simStart) - time.Minute} {
		clock.at(simStart.Add(at), func() {
			r := races[len(races)-1]
			for i := range byHand / 2 {
				_, err := byHandClient.CreateNotification(context.Background(), &apiclient.CreateNotificationRequest{
					Type: "Fixed Wager", Sports: "RACING", Competition: r.Venue, Code: r.Code, EventNumber: r.EventNumber,
					Market: "Fixed Win", Selection: r.Runners[0], Stake: 1, Label: fmt.Sprintf("by-hand-%s-%d", at, i),
				})
				require.NoError(t, err)
			}
		})
	}
	opts := w.options(w.client())
	opts.Clock = clock
	res, err := engine.Run(context.Background(), w.plan(spreadPlan("grows", n, races)), opts)
	require.NoError(t, err)
	assertOnePerLabel(t, w.svc, res)
	require.Equal(t, n+byHand, w.svc.NotificationCount())
	for _, b := range res.Bets {
		require.True(t, b.Final, "bet %s: %s %s", b.ID, b.Status, b.Reason)
		if b.Status == engine.StatusSettled {
			assert.NotEmpty(t, b.Records, "bet %s: no per-session records", b.ID)
		}
	}
	assert.LessOrEqual(t, res.FinishedAt.Sub(races[len(races)-1].Start), 2*time.Minute+pollInterval, "the last race's result was seen late")
	pages, lookups := 0, 0
	for _, q := range w.svc.Requests() {
		switch {
		case q.Path == "/notification/" && strings.Contains(q.Query, "label="):
			lookups++
		case q.Path == "/notification/":
			pages++
		}
	}
	assert.Zero(t, lookups, "a poll fell back to label look-ups")
	perTick := map[time.Time][]string{}
	var ticks []time.Time
	for _, q := range w.svc.Requests() {
		if q.Path == "/notification/" && !strings.Contains(q.Query, "label=") {
			if perTick[q.SimTime] == nil {
				ticks = append(ticks, q.SimTime)
			}
			perTick[q.SimTime] = append(perTick[q.SimTime], q.Query)
		}
	}
	ticks = ticks[1:] // the first checks the labels before its creates, then polls
	// Each later tick reads the pages that hold its bets, each once: a page
	// the index predicted wrongly (the list grew by hand) is put right from
	// the counts the same tick read, never by reading the list again from
	// its head. The whole list is three pages.
	for _, at := range ticks {
		read := map[string]bool{}
		for _, q := range perTick[at] {
			assert.False(t, read[q], "at %s the tick read %s twice: %v", at.Format("15:04:05"), q, perTick[at])
			read[q] = true
		}
		assert.LessOrEqual(t, len(perTick[at]), (n+byHand+follow.PageSize-1)/follow.PageSize, "at %s: %v", at.Format("15:04:05"), perTick[at])
	}
	t.Logf("%d bets, %d by hand: %d list pages", n, byHand, pages)
}

// TestOneSessionRefusesAnotherAccepts: Main Sportsbet places $600,
// Ladbrokes 2 (with $500 in its account) refuses it. The log, the live
// line and the result name who placed it and who refused it with the
// service's reason, and only the $600 placed is at risk.
func TestOneSessionRefusesAnotherAccepts(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.svc.SetBotRunning(4417, true)
	w.svc.SetBotRunning(4418, true)
	w.svc.SetBotRunning(4419, false)
	r := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: split
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 1200, max_total_stake: 1200, max_bets: 1}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: big, race: %s, selection: %q, stake: 600, when: race.minutes_to_start <= 10}
`, raceYAML(r), r.Runners[0]))
	w.clock.Set(r.Start.Add(-9 * time.Minute))
	var log strings.Builder
	var live *engine.PlacedBet
	opts := w.options(w.client())
	opts.Log = &log
	opts.Live = func(pr engine.Progress) {
		if pr.LastPlaced != nil && r.Start.After(pr.Now) {
			c := *pr.LastPlaced
			live = &c
		}
	}
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	b := res.Bets[0]
	refusal := "Ladbrokes 2: Insufficient funds in your account."
	assert.Contains(t, log.String(), "placed big: $600.00 accepted by Main Sportsbet; refused by "+refusal)
	assert.NotContains(t, log.String(), "Main Sportsbet, Ladbrokes 2")
	require.NotNil(t, live, "the live line never showed the bet placed before the race")
	assert.Equal(t, []string{"Main Sportsbet"}, live.By)
	assert.Equal(t, []string{refusal}, live.Refused)
	assert.Equal(t, []string{"Main Sportsbet"}, b.PlacedBy)
	assert.Equal(t, []string{refusal}, b.RefusedBy)
	assert.Equal(t, 600.0, b.AmountAccepted)
	assert.Equal(t, 600.0, b.AtRisk, b.AtRiskBasis)
	require.Len(t, res.Limits.Periods, 1)
	assert.Equal(t, 600.0, res.Limits.Periods[0].Staked)
}

// TestPlacementWithoutRecordsIsNoError: the records of a placed bet
// cannot be read; the notification says it is placed, the log says so
// and that who placed it is not known yet, and the bet has no error.
func TestPlacementWithoutRecordsIsNoError(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	p, _ := w.firstBetPlaced()
	w.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bet/notification/1*", Kind: sim.StatusFault, Status: 404})

	var log strings.Builder
	opts := w.options(w.client())
	opts.Log = &log
	res, err := engine.ReadStatus(context.Background(), p, opts)
	require.NoError(t, err)
	b := byID(res)["first"]
	assert.Equal(t, engine.StatusPlaced, b.Status, b.Reason)
	assert.Empty(t, b.Error)
	assert.False(t, b.PlacedAt.IsZero())
	assert.Contains(t, log.String(), "placed first: $10.00 accepted; who placed it is not known yet")
}
