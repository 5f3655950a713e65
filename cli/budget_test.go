package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/postgres/pgtest"
)

// accountRun is `betplan run` of a plan of its own (named name) on the
// machine whose HOME is home, at the default request rate, following its
// bets until it is interrupted.
type accountRun struct {
	name string
	cmd  *exec.Cmd
	out  bytes.Buffer
}

func (w *crashWorld) accountRun(home, name string, extra ...string) *accountRun {
	w.t.Helper()
	b, err := os.ReadFile(w.plan)
	require.NoError(w.t, err)
	plan := filepath.Join(home, "plans", name+".yaml")
	require.NoError(w.t, os.MkdirAll(filepath.Dir(plan), 0o755))
	require.NoError(w.t, os.WriteFile(plan, bytes.Replace(b, []byte("name: crash-card"), []byte("name: "+name), 1), 0o644))
	args := append([]string{"run", plan, "--yes", "--ambiguous-grace", "1s", "--http-timeout", "5s",
		"--state-dir", filepath.Join(home, "state"), "--report-dir", filepath.Join(home, "report", name),
		"--base-url", w.url}, extra...)
	r := &accountRun{name: name, cmd: w.machineCmd(home, args...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	return r
}

// runTogether starts the runs at once, lets them work for d (midway, if
// given, at d/2), then interrupts them and waits for them to end.
func runTogether(t *testing.T, runs []*accountRun, d time.Duration, midway func()) {
	t.Helper()
	for _, r := range runs {
		require.NoError(t, r.cmd.Start())
	}
	if midway != nil {
		time.Sleep(d / 2)
		midway()
		time.Sleep(d / 2)
	} else {
		time.Sleep(d)
	}
	for _, r := range runs {
		r.cmd.Process.Signal(os.Interrupt)
	}
	for _, r := range runs {
		r.cmd.Wait()
	}
}

// assertAccountRate checks the service never saw more than 6 requests in
// one second (the account's 4 per second, and a little for transit), and
// that the runs did send some.
func (w *crashWorld) assertAccountRate(runs []*accountRun) {
	w.t.Helper()
	var at []time.Time
	for _, r := range w.svc.Requests() {
		at = append(at, r.Time)
	}
	require.GreaterOrEqual(w.t, len(at), 8, "the runs sent requests")
	most, j := 0, 0
	for i := range at {
		for at[i].Sub(at[j]) > time.Second {
			j++
		}
		most = max(most, i-j+1)
	}
	w.t.Logf("the service saw %d requests over %v, at most %d in one second", len(at), at[len(at)-1].Sub(at[0]).Round(time.Millisecond), most)
	if !assert.LessOrEqual(w.t, most, 6, "requests the service saw in one second, %d in all over %v", len(at), at[len(at)-1].Sub(at[0])) {
		for _, r := range runs {
			w.t.Logf("%s:\n%s", r.name, r.out.String())
		}
	}
}

// Eight runs of eight plans on one host, started together against one
// service, spend one account's budget: 4 requests per second in all, not
// 4 each.
func TestOneBudgetOnOneHost(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	w := newCrashWorld(t, 3)
	home := filepath.Join(w.dir, "host")
	var runs []*accountRun
	for i := range 8 {
		runs = append(runs, w.accountRun(home, "card-"+string(rune('a'+i))))
	}
	runTogether(t, runs, 3*time.Second, nil)
	w.assertAccountRate(runs)
	for _, r := range runs {
		assert.NotContains(t, r.out.String(), "request budget:", "%s fell back", r.name)
	}
}

// sharedStateRuns are four runs, each on a machine of its own (nothing
// local in common), sharing a fresh schema as --state.
func sharedStateRuns(t *testing.T, w *crashWorld) (runs []*accountRun, schema string) {
	stateURL, schema := pgtest.Schema(t)
	for i := range 4 {
		name := "card-" + string(rune('a'+i))
		runs = append(runs, w.accountRun(filepath.Join(w.dir, "machine-"+name), name, "--state", stateURL))
	}
	return runs, schema
}

// Four machines sharing a --state spend one account's budget through the
// database.
func TestOneBudgetAcrossMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	w := newCrashWorld(t, 3)
	runs, _ := sharedStateRuns(t, w)
	runTogether(t, runs, 3*time.Second, nil)
	w.assertAccountRate(runs)
	for _, r := range runs {
		assert.NotContains(t, r.out.String(), "request budget:", "%s fell back", r.name)
	}
}

// When the database of the shared budget goes away mid-run, each machine
// keeps to its share of the rate, and says so once.
func TestBudgetWhenTheDatabaseGoesAway(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	w := newCrashWorld(t, 3)
	runs, schema := sharedStateRuns(t, w)
	runTogether(t, runs, 4*time.Second, func() {
		// The budget's connections (they name their tables), not the
		// plans' locks.
		pgtest.Exec(t, pgtest.ServerURL(t), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE application_name = 'betplan budget' AND query LIKE '%' || $1 || '%'`, schema)
	})
	w.assertAccountRate(runs)
	for _, r := range runs {
		out := r.out.String()
		assert.Equal(t, 1, strings.Count(out, "request budget:"), "%s says it fell back, once:\n%s", r.name, out)
		assert.Contains(t, out, "is out of reach", r.name)
		// Its share among the processes it saw spend the budget: all four,
		// unless one had not sent anything yet.
		assert.Regexp(t, `keeps to (1|1\.33|2)/s by itself, its share of 4/s among about [234] processes, and tries the database again every 30s`, out, r.name)
	}
}
