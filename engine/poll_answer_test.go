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

// A bet's answer window (polls at the interval for its first two
// minutes) ends once its records show every running session it targets
// placed or refused it: the window's later polls would tell nothing new.
// A session whose bot runs but has not answered (here: it cannot log in
// to its bookmaker) keeps the window open, as before.
func TestAnswerWindowEndsWhenEverySessionAnswered(t *testing.T) {
	for _, tt := range []struct {
		name       string
		loginError bool
		window     int // polls for the answer window
	}{
		{name: "every session answered", window: 0},
		{name: "a running session silent", loginError: true, window: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
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
			c := &readsByReason{Backend: w.client()}
			opts := w.options(nil)
			opts.Backend = c
			res, err := engine.Run(context.Background(), p, opts)
			require.NoError(t, err)
			b := res.Bets[0]
			require.Equal(t, engine.StatusSettled, b.Status, b.Reason)
			t.Logf("reads: %v", c.n)
			assert.Equal(t, 1, c.n["GET /notification/ [first poll]"], "the placement is seen one interval after the create")
			assert.Equal(t, tt.window, c.n["GET /notification/ [answer window]"])
			assert.Contains(t, b.PlacedBy, "Main Sportsbet")
		})
	}
}
