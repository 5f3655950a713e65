package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state/local"
)

// A "yes" typed long after the prompt appeared must not create a bet
// whose race has started or whose condition no longer holds: what decided
// the create is checked again right before it.
func TestLateConfirmationChecksAgain(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		answer time.Duration // how long the user takes to answer
		status engine.Status
		reason string
	}{
		{"the race started meanwhile", 28 * time.Minute, engine.StatusSkipped, "started at "},
		// minutes_to_start is 0.3 then: the condition fails and never holds again.
		{"the condition no longer holds", 3*time.Minute + 12*time.Second, engine.StatusSkipped, `started before "race.minutes_to_start <= 4 && race.minutes_to_start > 0.5" was true`},
		{"in time", 10 * time.Second, engine.StatusSettled, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.race("Galloping", 0)
			w.clock.Set(a.Start.Add(-3*time.Minute - 30*time.Second))
			p := w.favPlan("late-yes", a, "race.minutes_to_start <= 4 && race.minutes_to_start > 0.5")
			opts := w.options(w.client())
			asked := 0
			opts.Confirm = func(summary string) (bool, error) {
				asked++
				// The prompt says what is certain now.
				assert.Contains(t, summary, "\nWorst case if every bet listed is created: $5.00 at risk in the period ($0.00 committed + $5.00 listed), within max_total_stake $50.00.")
				assert.Regexp(t, `\n  fav on `+a.Venue+` R`+fmt.Sprint(a.EventNumber)+`: \$5\.00 stake requested, .*; ready now\n`, summary)
				w.clock.Advance(tt.answer)
				return true, nil
			}
			var log strings.Builder
			opts.Log = logFunc(func(s string) { log.WriteString(s) })
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			assert.Equal(t, 1, asked)
			require.Len(t, res.Bets, 1)
			b := res.Bets[0]
			assert.Equal(t, tt.status, b.Status, b.Reason)
			if tt.status == engine.StatusSettled {
				assert.Equal(t, 1, w.svc.NotificationCount())
				return
			}
			assert.Contains(t, b.Reason, tt.reason)
			assert.Zero(t, w.svc.NotificationCount(), "a late yes created the bet:\n%s", log.String())
		})
	}
}

// While the prompt waits, the bet is created elsewhere (another machine
// without a shared state, same label): the answer is followed by a fresh
// look-up of the label, which adopts it, never a second create.
func TestConfirmationLooksTheLabelUpAgain(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	w.clock.Set(a.Start.Add(-3*time.Minute - 30*time.Second))
	p := w.favPlan("elsewhere", a, "race.minutes_to_start <= 4")
	opts := w.options(w.client())
	opts.NoWait = true
	opts.Confirm = func(string) (bool, error) {
		other := w.options(w.client())
		other.NoWait = true
		other.State = local.Layout{Dir: filepath.Join(w.dir, "other-state"), LockDir: filepath.Join(w.dir, "other-locks")}
		other.Store = local.Store{Layout: other.State}
		_, err := engine.Run(context.Background(), p, other)
		require.NoError(t, err)
		require.Equal(t, 1, w.svc.NotificationCount())
		return true, nil
	}
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	require.Len(t, res.Bets, 1)
	assert.NotZero(t, res.Bets[0].NotificationID)
	assert.Equal(t, 1, w.svc.NotificationCount(), "created twice after the prompt")
}

// favPlan is plan name: $5 on race a's first runner once when holds.
func (w *world) favPlan(name string, a sim.RaceInfo, when string) *plan.Plan {
	return w.plan(fmt.Sprintf(`version: 1
name: %s
poll: {interval: 30s, timeout: 1h}
limits: {max_total_stake: 50, max_stake_per_bet: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: fav
    race: %s
    selection: %q
    stake: 5
    when: %s
`, name, raceYAML(a), a.Runners[0], when))
}

// The question keeps the decision on one screen: a ten-bet card is a
// line per race under a basis said once, --verbose a line per bet.
func TestQuestionIsALinePerRace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	var bets strings.Builder
	for i := range 10 {
		fmt.Fprintf(&bets, "  - {id: b%d, race: {venue: %s, code: Galloping, event_number: %d}, selection: %q, stake: 5}\n", i, a.Venue, a.EventNumber, a.Runners[i%len(a.Runners)])
	}
	p := w.plan("version: 1\nname: ten\nlimits: {max_stake_per_bet: 10, max_total_stake: 100, max_bets: 10}\n" +
		"defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n" + bets.String())
	for _, verbose := range []bool{false, true} {
		opts := w.options(w.client())
		opts.NoWait, opts.Verbose = true, verbose
		var asked string
		opts.Confirm = func(s string) (bool, error) { asked = s; return false, nil }
		_, _ = engine.Run(context.Background(), p, opts)
		lines := strings.Split(asked, "\n")
		if verbose {
			assert.Contains(t, asked, "\n  b0 on "+a.Venue+" R"+fmt.Sprint(a.EventNumber)+": $5.00 stake requested, $5.00 at risk; ready now")
			assert.Contains(t, asked, "\n  b9 on ", "--verbose lists every bet")
			assert.NotContains(t, asked, "more line")
			continue
		}
		assert.LessOrEqual(t, len(lines), 6, asked)
		assert.Contains(t, asked, "\nAt risk of each bet: $5.00 × 1: the target session 4417 (Main Sportsbet) (a stake is placed by each session it reaches).")
		assert.Contains(t, asked, fmt.Sprintf("\n  %s R%d: 10 bets (b0, b1, b2, b3 and 6 more), $50.00 requested, $50.00 at risk; 10 ready now", a.Venue, a.EventNumber))
	}
}
