package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
)

var balanceField = regexp.MustCompile(`"balance":\s*[0-9.eE+-]+`)

// TestAStakePastTheCeilingFailsItsBetAlone: the README's bankroll stake,
// 2% of the running sessions' balance, with a balance the service reports
// as 1e19 (two running sessions: 2e19): the stake of 4e17 is refused with its value before any create
// (it used to overflow int64 cents and pass max_stake_per_bet), and the
// plan's other bet is created.
func TestAStakePastTheCeilingFailsItsBetAlone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	real := w.srv
	proxy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		real.Config.Handler.ServeHTTP(rec, req)
		body := balanceField.ReplaceAll(rec.Body.Bytes(), []byte(`"balance": 1e19`))
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
		rw.WriteHeader(rec.Code)
		rw.Write(body)
	}))
	t.Cleanup(proxy.Close)
	w.srv = proxy

	r := w.race("Galloping", 0)
	p := w.plan(fmt.Sprintf(`version: 1
name: bankroll
poll: {interval: 30s, timeout: 12h}
limits: {max_stake_per_bet: 25, max_total_stake: 100, max_bets: 5}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: good
    race: %[1]s
    selection: %[2]q
    stake: 5
    when: race.minutes_to_start <= 10
  - id: bankroll
    race: %[1]s
    selection: %[3]q
    stake: round(total_balance(running(sessions)) * 0.02, 2)
    when: race.minutes_to_start <= 10
`, raceYAML(r), r.Runners[0], r.Runners[1]))
	w.clock.Set(r.Start.Add(-9 * time.Minute))
	opts := w.options(w.client())
	opts.Confirm = func(string) (bool, error) { return true, nil }
	opts.NoWait = true
	res, err := engine.Run(context.Background(), p, opts)
	require.NoError(t, err)
	bets := byID(res)
	assert.NotZero(t, bets["good"].NotificationID, "the good bet is created")
	bank := bets["bankroll"]
	assert.Zero(t, bank.NotificationID, "no create goes out with a stake of 4e17")
	assert.Equal(t, engine.StatusFailed, bank.Status)
	assert.Contains(t, bank.Reason, "gave 4e+17: a bet's stake or target profit is at most $1,000,000")
	assert.Equal(t, 1, w.svc.NotificationCount())
}
