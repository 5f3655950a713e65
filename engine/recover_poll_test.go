package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// A run whose state dir was lost recovers its bets from the service and
// follows them at once: a bet resulted just after the recovery is seen at
// the next tick, however long ago it was created and whether or not a
// running session has answered it (it used to be polled every five
// minutes once its two-minute answer window had passed, and seen only at
// the last look before poll.timeout).
func TestRecoveredBetIsFollowedAtOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		gap     time.Duration // between the create and the recovering run
		timeout string
		within  time.Duration // how soon the run sees the result
		// silent makes Ladbrokes 2 (running) unable to answer, and the
		// bet target every session.
		silent bool
	}{
		// The recovering run waits out its lost journal's grace (30s) first.
		{"created 10s before, a session silent", 10 * time.Second, "8m", time.Minute, true},
		{"created 3 minutes before, every session answered", 3 * time.Minute, "8m", time.Minute, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.race("Galloping", 0)
			w.clock.Set(a.Start.Add(-9 * time.Minute))
			target := `, target_session: "4417"`
			if tt.silent {
				w.svc.SetLoginError(4418, "Incorrect password")
				target = ""
			}
			p := w.plan(fmt.Sprintf(`version: 1
name: recovered
poll: {interval: 30s, timeout: %s}
limits: {max_total_stake: 50, max_stake_per_bet: 10}
defaults: {market: Fixed Win, type: Fixed Wager%s}
bets:
  - id: fav
    race: %s
    selection: %q
    stake: 5
    when: race.minutes_to_start <= 10
`, tt.timeout, target, raceYAML(a), a.Runners[0]))
			opts := w.options(w.client())
			opts.NoWait = true
			first, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			require.NotZero(t, first.Bets[0].NotificationID)
			w.clock.Advance(tt.gap)

			// The state dir is lost; the runner is scratched once the
			// recovering run has read the bet placed.
			opts.NoWait = false
			w.moveState(&opts, "lost")
			scratched := false
			opts.Live = func(engine.Progress) {
				if !scratched {
					scratched = true
					require.True(t, w.svc.Scratch(sim.RaceInfo{Venue: a.Venue, EventNumber: a.EventNumber, Start: a.Start}, a.Runners[0]))
				}
			}
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err, "the run ended %s", res.EndReason)
			require.True(t, scratched)
			require.Len(t, res.Bets, 1)
			b := res.Bets[0]
			assert.Equal(t, engine.StatusSettled, b.Status, b.Reason)
			assert.Contains(t, b.Reason, "void")
			assert.Equal(t, engine.EndCompleted, res.EndReason)
			assert.LessOrEqual(t, res.FinishedAt.Sub(res.StartedAt), tt.within)
			assert.Equal(t, 1, w.svc.NotificationCount())
			assert.False(t, b.CreatedAt.IsZero(), "a recovered bet's created_at is the service's")
		})
	}
}
