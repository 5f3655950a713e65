package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// A bet is polled on every tick from the one after its create until it
// is final, whatever its sessions answered: the placement is seen at the
// first poll, a session that stays silent (here: it cannot log in to its
// bookmaker) changes nothing, and each tick reads the one page holding
// it. It used to be read at the interval for an answer window, then every
// five minutes until its race ran.
func TestBetPolledEveryTickUntilFinal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		loginError bool
	}{
		{name: "every session answered"},
		{name: "a running session silent", loginError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const interval = 30 * time.Second
			w := newWorld(t)
			w.svc.SetBotRunning(4417, true)
			w.svc.SetBotRunning(4418, true)
			w.svc.SetBotRunning(4419, false)
			if tt.loginError {
				w.svc.SetLoginError(4418, "Incorrect password")
			}
			r := w.raceAfter(time.Hour)
			p := w.plan(fmt.Sprintf(`version: 1
name: window
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 20, max_total_stake: 20, max_bets: 1}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: one, race: %s, selection: %q, stake: 10}
`, raceYAML(r), r.Runners[0]))
			c := &readsByReason{Backend: w.client(), clock: w.clock}
			opts := w.options(nil)
			opts.Backend = c
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			b := res.Bets[0]
			require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
			assert.Equal(t, 1, c.n["GET /notification/ [first poll]"], "the placement is seen one interval after the create")
			assert.Contains(t, b.PlacedBy, "Main Sportsbet")
			resulted := func(string) time.Time { return r.Start.Add(2 * time.Minute) }
			f, worst := assertPollRule(t, c.timeline(), interval, resulted)
			// Every tick from the one after the create to the one that saw
			// the result read the page, once.
			ticks := int(res.FinishedAt.Sub(b.CreatedAt) / interval)
			assert.Equal(t, ticks, f.ticks, "one poll a tick")
			assert.Equal(t, 1, f.maxPerTick)
			t.Logf("%d polls, the result seen %s after the service showed it", f.ticks, worst)
		})
	}
}
