package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accountPlans writes, on machine name, plan card-NAME with one certain
// $30 bet on the world's first race, and the account file beside it;
// it returns the plan's path.
func (w *crashWorld) accountPlan(machine, account string) string {
	w.t.Helper()
	r := w.svc.Races()
	var race string
	for _, x := range r {
		if x.Start.After(time.Now().Add(2 * time.Minute)) {
			race = fmt.Sprintf("{venue: %q, code: %s, event_number: %d}\n    selection: %q", x.Venue, x.Code, x.EventNumber, x.Runners[0])
			break
		}
	}
	require.NotEmpty(w.t, race)
	dir := filepath.Join(w.dir, machine, "plans")
	require.NoError(w.t, os.MkdirAll(dir, 0o755))
	yaml := "version: 1\nname: card-" + machine + "\nlimits: {period: day, max_stake_per_bet: 30, max_total_stake: 30, max_bets: 1}\n" +
		"defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n" +
		"  - id: box\n    race: " + race + "\n    stake: 30\n"
	path := filepath.Join(dir, "card-"+machine+".yaml")
	require.NoError(w.t, os.WriteFile(path, []byte(yaml), 0o644))
	require.NoError(w.t, os.WriteFile(filepath.Join(dir, "betplan.yaml"), []byte(account), 0o644))
	return path
}

// TestAccountLimitOnSharedStateAcrossMachines: two machines (their own
// HOME, state dir and locks) share one PostgreSQL state; each runs its own
// plan of one $30 bet under an account max_total_stake of $50, started
// together, again and again. Exactly one bet is created each time: the
// other run is refused, naming the account limit, who committed what and
// its own bet's amount. In every other round both runs stop inside the
// account's gate: while one stands there the other must wait at it, and
// reads the first one's bet once let in.
func TestAccountLimitOnSharedStateAcrossMachines(t *testing.T) {
	t.Parallel()
	rounds := 6
	if heavy(t) {
		rounds = 3
	}
	refusal := regexp.MustCompile(`account max_total_stake \$50\.00 in day [0-9-]+: \$30\.00 at risk committed by card-[ab] \(\$30\.00\)`)
	for i := range rounds {
		state, _ := sharedState(t)
		w := newCrashWorld(t, 1)
		account := "version: 1\nlimits: {period: day, max_total_stake: 50}\n"
		a := w.onMachine("a", state, "run", w.accountPlan("a", account), "--no-wait")
		b := w.onMachine("b", state, "run", w.accountPlan("b", account), "--no-wait")
		gated := i%2 == 1
		if gated {
			a.pauseAt("account gate")
			b.pauseAt("account gate")
		}
		a.start()
		b.start()
		if gated {
			first, second := waitFirstPaused(t, a, b)
			// The second is past its own checks and about to announce its
			// bet: the gate is all that holds it now. (Slowed enough, it
			// would otherwise only start once the first's bet was in, and
			// be refused before the gate.)
			second.waitReached("announce")
			time.Sleep(500 * time.Millisecond)
			assert.False(t, second.isPaused(), "round %d: %s passed the account's gate while %s held it", i, second.name, first.name)
			first.resume()
			second.waitPaused()
			second.resume()
		}
		codes := map[*machineRun]int{a: a.wait(), b: b.wait()}
		created, refused := 0, 0
		for m, code := range codes {
			switch code {
			case 0:
				created++
			case 3:
				refused++
				t.Logf("round %d, machine %s refused:\n%s", i, m.name, m.stderr.String())
				assert.Regexp(t, refusal, m.stderr.String(), "round %d, machine %s names the limit and the numbers", i, m.name)
				if !regexp.MustCompile(`this bet adds \$30\.00|at bet box, account max_total_stake`).MatchString(m.output()) {
					t.Errorf("round %d, machine %s does not say its own bet:\n%s", i, m.name, m.output())
				}
			default:
				t.Errorf("round %d, machine %s exited %d:\n%s", i, m.name, code, m.output())
			}
		}
		assert.Equal(t, 1, created, "round %d: runs that created:\n%s\n%s", i, a.output(), b.output())
		assert.Equal(t, 1, refused, "round %d: runs refused by the account", i)
		assert.Equal(t, 1, w.svc.NotificationCount(), "round %d: never past the account's $50", i)

		if i == rounds-1 {
			// A third machine's doctor shows the account's use on the
			// shared state.
			dir := filepath.Join(w.dir, "c", "plans")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "betplan.yaml"), []byte(account), 0o644))
			d := w.onMachine("c", state, "doctor", dir)
			d.run()
			assert.Regexp(t, `(?m)^  ok +account +\S+betplan.yaml \(plan card-[ab]\): every limit has room$`, d.stdout.String())
			assert.Regexp(t, `(?m)^            max_total_stake +\$30\.00 at risk of \$50\.00 \(\$20\.00 left\)$`, d.stdout.String())
		}
	}
}

func (m *machineRun) isPaused() bool {
	_, err := os.Stat(filepath.Join(m.pause, "paused"))
	return err == nil
}

// waitFirstPaused waits until one of the runs stands at its checkpoint.
func waitFirstPaused(t *testing.T, a, b *machineRun) (first, second *machineRun) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		switch {
		case a.isPaused():
			return a, b
		case b.isPaused():
			return b, a
		}
	}
	t.Fatalf("neither run reached its checkpoint:\n%s\n%s", a.output(), b.output())
	return nil, nil
}
