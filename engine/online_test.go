package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

func TestCheckOnline(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Galloping", 0)
	w.svc.SetBotRunning(4418, false)
	p := w.plan(fmt.Sprintf(`version: 1
name: online
defaults: {market: Fixed Win, type: Fixed Wager}
limits: {max_stake_per_bet: 10, max_total_stake: 50, max_bets: 5}
bets:
  - id: fine
    race: %[1]s
    selection: %[2]q
    stake: 5
  - id: no-such-runner
    race: %[1]s
    selection: "31"
    stake: 5
  - id: no-such-race
    race: {venue: %[3]q, code: Galloping, event_number: 77}
    selection: "1"
    stake: 5
  - id: stranger
    race: %[1]s
    selection: %[2]q
    stake: 5
    target_session: "999"
  - id: sleeping
    race: %[1]s
    selection: %[2]q
    stake: 5
    target_session: "4418"
`, raceYAML(a), a.Runners[0], a.Venue))
	diags, text := w.checkOnline(p)
	// A runner not in the field is a normal day: run skips the bet.
	assert.Contains(t, text, "warning line 10: bet no-such-runner: runner 31 is not in the field of "+a.Venue)
	assert.Contains(t, text, ": run skips it")
	assert.Contains(t, text, "bet no-such-race: no upcoming race "+a.Venue+" Galloping R77; upcoming at "+a.Venue)
	assert.Contains(t, text, "error line 18: bet stranger: target_session 999 is not one of the account's sessions")
	assert.Contains(t, text, "warning line 23: bet sleeping: session 4418 has no running bot")
	assert.NotContains(t, text, "bet fine")
	assert.Len(t, diags, 4, text)
	assert.Zero(t, w.svc.NotificationCount())
}

// checkOnline runs validate --online's check of p and returns its
// findings, also as one "severity line N: summary" a line; the check must
// make only its two read-only calls.
func (w *world) checkOnline(p *plan.Plan) (plan.Diagnostics, string) {
	w.t.Helper()
	before := len(w.svc.Requests())
	diags, err := engine.CheckOnline(context.Background(), p, w.client(), w.clock)
	require.NoError(w.t, err)
	assert.Equal(w.t, 2, len(w.svc.Requests())-before, "one races call, one sessions call")
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%s line %d: %s", d.Severity, d.Line, d.Summary))
	}
	return diags, strings.Join(got, "\n")
}
