package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

// Reports read as a race card: bets by race start, whatever order the
// plan lists them in; bets on one race keep the plan's order.
func TestBetsListedByRaceStart(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	early, late := w.race("Galloping", 0), w.race("Galloping", 1)
	require.True(t, early.Start.Before(late.Start))
	p := w.plan(fmt.Sprintf(`version: 1
name: card-order
limits: {max_total_stake: 100, max_stake_per_bet: 10}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: late-a
    race: %[1]s
    selection: %[3]q
    stake: 5
  - id: early
    race: %[2]s
    selection: %[4]q
    stake: 5
  - id: late-b
    race: %[1]s
    selection: %[3]q
    stake: 5
    when: race.minutes_to_start < 1
`, raceYAML(late), raceYAML(early), late.Runners[0], early.Runners[0]))
	for _, cmd := range []struct {
		name string
		run  func() (*engine.Result, error)
	}{
		{"plan", func() (*engine.Result, error) {
			res, _, err := engine.Preview(context.Background(), p, w.options(w.client()))
			return res, err
		}},
		{"status", func() (*engine.Result, error) {
			return engine.ReadStatus(context.Background(), p, w.options(w.client()))
		}},
	} {
		res, err := cmd.run()
		require.NoError(t, err, cmd.name)
		var ids []string
		for _, b := range res.Bets {
			ids = append(ids, b.ID)
		}
		assert.Equal(t, []string{"early", "late-a", "late-b"}, ids, cmd.name)
	}
}
