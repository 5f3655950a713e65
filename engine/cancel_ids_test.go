package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
)

// TestCheckCancelIDs: an id cancel cannot take is refused from the plan
// and the journal alone, before any request, listing what they have.
func TestCheckCancelIDs(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	a := w.race("Greyhounds", 0)
	p := w.dogsPlan(fmt.Sprintf("race.event_number == %d", a.EventNumber), `  - id: single
    race: `+raceYAML(a)+`
    selection: "2"
    stake: 2
`)
	ctx := context.Background()
	// No journal yet: a well-formed instance id is left to Cancel.
	offline := w.options(nil)
	offline.Backend = nil
	require.NoError(t, engine.CheckCancelIDs(ctx, p, []string{"box1@the-meadows-r99", "single"}, offline))

	w.svc.SetBotRunning(4417, false)
	opts := w.options(w.client())
	opts.NoWait, opts.AllowNoBot = true, true
	_, err := engine.Run(ctx, p, opts)
	require.NoError(t, err)
	before := len(w.svc.Requests())
	known := fmt.Sprintf("box1@the-meadows-r%d", a.EventNumber)

	tests := []struct {
		name, id, want string
	}{
		{"a bet of the plan", "single", ""},
		{"an instance the journal knows", known, ""},
		{"no such bet", "box2", `no bet "box2" in plan dogs (did you mean "box1"?); its bets are: box1, single`},
		{"an instance of a bet with none", "single@the-meadows-r1", "bet single of plan dogs has no for_each_race, so no instances: cancel it as single"},
		{"not an instance id", "box1@nowhere", `"box1@nowhere" is not an instance id: they read ` + engine.InstanceIDForm},
		{"an instance the journal does not know", "box1@the-meadows-r99", `no instance "box1@the-meadows-r99" of bet box1 in the journal of plan dogs; it knows: ` + known},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.CheckCancelIDs(ctx, p, []string{tt.id}, offline)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			var bad *engine.CancelIDError
			require.ErrorAs(t, err, &bad)
			assert.Equal(t, tt.want, bad.Msg)
		})
	}
	assert.Equal(t, before, len(w.svc.Requests()), "no request to the service")
}

// TestCancelAccount cancels every open notification of the account, and
// says what it did with each.
func TestCancelAccount(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.svc.SetBotRunning(4417, false)
	opts := w.options(w.client())
	opts.NoWait, opts.AllowNoBot = true, true
	a, b := w.race("Greyhounds", 0), w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
poll: {interval: 30s, timeout: 12h}
name: card
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", stake: 2}
limits: {max_bets: 10, max_total_stake: 100}
bets:
  - {id: one, race: %s, selection: %q}
  - {id: two, race: %s, selection: %q}
`, raceYAML(a), a.Runners[0], raceYAML(b), b.Runners[0]))
	_, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	open := w.svc.NotificationCount()
	require.Equal(t, 2, open)

	var seen []*apiclient.Notification
	cancelled, failed, err := engine.CancelAccount(context.Background(), w.client(), w.clock.Now(), func(a engine.AccountCancel) {
		assert.NoError(t, a.Err)
		seen = append(seen, a.Notification)
	})
	require.NoError(t, err)
	assert.Equal(t, open, cancelled)
	assert.Zero(t, failed)
	assert.Len(t, seen, open)

	cancelled, _, err = engine.CancelAccount(context.Background(), w.client(), w.clock.Now(), func(engine.AccountCancel) {})
	require.NoError(t, err)
	assert.Zero(t, cancelled, "nothing left to cancel")
}

// TestExamine: doctor's checks run against the service and say why a run
// could not work.
func TestExamine(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	rep := engine.Examine(context.Background(), w.client(), w.srv.URL, w.clock.Now(), nil)
	assert.True(t, rep.Ready, "%v", rep.Reasons)
	assert.NotEmpty(t, rep.Sessions)

	for _, s := range rep.Sessions {
		w.svc.SetBotRunning(int(s.ID), false)
	}
	rep = engine.Examine(context.Background(), w.client(), w.srv.URL, w.clock.Now(), nil)
	assert.False(t, rep.Ready)
	assert.Contains(t, rep.Reasons, fmt.Sprintf("sessions: none of the %d sessions has a running bot: creates would reach no bookmaker", len(rep.Sessions)))
}
