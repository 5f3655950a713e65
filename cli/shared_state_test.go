package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// Two machines are two betplan processes with nothing local in common:
// their own HOME, XDG dirs (so no OS lock is shared), state dir and
// report dir. Only --state, a schema of the test database, is shared.

// machineRun is one betplan process on one machine.
type machineRun struct {
	w      *crashWorld
	name   string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	pause  string // the pause dir, when asked to stop at a checkpoint
}

// onMachine prepares `betplan ARGS...` on machine name with --state.
func (w *crashWorld) onMachine(name, state string, args ...string) *machineRun {
	return w.onMachineAt(name, w.url, state, args...)
}

// onMachineAt is onMachine with the service spelled baseURL, and no
// --state when state is empty (the local state of that machine).
func (w *crashWorld) onMachineAt(name, baseURL, state string, args ...string) *machineRun {
	home := filepath.Join(w.dir, name)
	all := append(slices.Clone(args), "--base-url", baseURL)
	if state != "" {
		all = append(all, "--state", state)
	}
	if args[0] != "unlock" {
		all = append(all, "--state-dir", filepath.Join(home, "state"), "--max-rps", "50", "--http-timeout", "2s")
	}
	if args[0] == "run" || args[0] == "status" {
		all = append(all, "--report-dir", filepath.Join(home, "report"))
	}
	if args[0] == "run" {
		all = append(all, "--yes")
		if !slices.Contains(args, "--ambiguous-grace") {
			all = append(all, "--ambiguous-grace", "1s")
		}
	}
	m := &machineRun{w: w, name: name, cmd: w.machineCmd(home, all...)}
	m.cmd.Stdout, m.cmd.Stderr = &m.stdout, &m.stderr
	return m
}

// machineCmd is betplan (this test binary in main mode) with args on the
// machine whose HOME is home: the world's token, nothing else of the
// environment's betplan settings.
func (w *crashWorld) machineCmd(home string, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	require.NoError(w.t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(),
		"BETPLAN_TEST_EXEC_MAIN=1",
		"GORACE=atexit_sleep_ms=10",
		"BETPLAN_TOKEN="+w.svc.Token(),
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "GITHUB_STEP_SUMMARY=", "BETPLAN_STATE=", "BETPLAN_BASE_URL=",
		"HOME="+home,
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
	)
	return cmd
}

// pauseAt makes the run stop at a checkpoint until resume.
func (m *machineRun) pauseAt(point string) *machineRun {
	m.pause = m.w.t.TempDir()
	m.cmd.Env = append(m.cmd.Env, pauseEnv+"="+point, pauseDirEnv+"="+m.pause)
	return m
}

func (m *machineRun) start() *machineRun {
	require.NoError(m.w.t, m.cmd.Start())
	return m
}

// waitPaused waits until the run stands at its checkpoint.
func (m *machineRun) waitPaused() {
	m.w.t.Helper()
	m.waitPauseFile("paused", 30*time.Second, "reached its checkpoint")
}

// waitReached waits until the run has passed checkpoint point (one
// before the checkpoint it pauses at).
func (m *machineRun) waitReached(point string) {
	m.w.t.Helper()
	m.waitPauseFile("reached "+point, 30*time.Second, "reached "+point)
}

// waitLost waits until the paused run's lease says its lock is lost
// (crashhook_test.go's lossNoting), and returns why.
func (m *machineRun) waitLost() string {
	m.w.t.Helper()
	return m.waitPauseFile("lost", 10*time.Second, "saw its lock lost")
}

// waitPauseFile waits, within bound, for the run to write name into its
// pause dir, and returns what it wrote.
func (m *machineRun) waitPauseFile(name string, bound time.Duration, what string) string {
	m.w.t.Helper()
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(m.pause, name)); err == nil {
			return string(b)
		}
	}
	m.w.t.Fatalf("%s never %s within %v:\n%s", m.name, what, bound, m.stderr.String())
	return ""
}

func (m *machineRun) resume() {
	require.NoError(m.w.t, os.WriteFile(filepath.Join(m.pause, "resume"), nil, 0o644))
}

// wait returns the exit code.
func (m *machineRun) wait() int {
	m.w.t.Helper()
	err := m.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(m.w.t, err)
	return 0
}

func (m *machineRun) run() int { m.start(); return m.wait() }

func (m *machineRun) output() string { return m.stdout.String() + m.stderr.String() }

type sharedReport struct {
	EndReason string `json:"end_reason"`
	Error     string `json:"error"`
	Bets      []struct {
		ID             string `json:"id"`
		Label          string `json:"label"`
		Status         string `json:"status"`
		Reason         string `json:"reason"`
		NotificationID int64  `json:"notification_id"`
	} `json:"bets"`
}

func (m *machineRun) report() sharedReport {
	m.w.t.Helper()
	var rep sharedReport
	b, err := os.ReadFile(filepath.Join(m.w.dir, m.name, "report", "report.json"))
	require.NoError(m.w.t, err, "%s wrote no report:\n%s", m.name, m.output())
	require.NoError(m.w.t, json.Unmarshal(b, &rep))
	return rep
}

// assertComplete checks a report lists every bet with its notification.
// assertEachOnce is assertComplete, and every bet of the report created
// exactly once on the service.
func (m *machineRun) assertEachOnce() {
	m.w.t.Helper()
	m.assertComplete()
	m.w.assertOnePerLabel(m.report().labels())
}

func (m *machineRun) assertComplete() {
	m.w.t.Helper()
	rep := m.report()
	require.Len(m.w.t, rep.Bets, m.w.bets, "%s's report", m.name)
	for _, b := range rep.Bets {
		assert.NotZero(m.w.t, b.NotificationID, "%s's report forgets bet %s (%s: %s)", m.name, b.ID, b.Status, b.Reason)
	}
}

// assertOnePerLabel checks the service holds exactly one notification for
// each bet of the plan, and received exactly one create for each.
func (w *crashWorld) assertOnePerLabel(labels []string) {
	w.t.Helper()
	require.Len(w.t, labels, w.bets)
	creates := map[string]int{}
	for _, c := range w.createsSeen() {
		creates[c.Label]++
	}
	for _, l := range labels {
		assert.Equal(w.t, 1, w.svc.NotificationsWithLabel(l), "notifications with label %s", l)
		assert.Equal(w.t, 1, creates[l], "creates sent for label %s", l)
	}
	assert.Equal(w.t, w.bets, w.svc.NotificationCount())
}

func (r sharedReport) labels() []string {
	var ls []string
	for _, b := range r.Bets {
		ls = append(ls, b.Label)
	}
	return ls
}

// sharedState is a fresh schema of the test database as a --state URL.
func sharedState(t *testing.T) (state, schema string) {
	t.Helper()
	state, schema = pgtest.Schema(t)
	return state, schema
}

func heavy(t *testing.T) bool {
	return testing.Short() && os.Getenv("CI") != "true"
}

func TestSharedStateSimultaneousStarts(t *testing.T) {
	t.Parallel()
	state, _ := sharedState(t)
	rounds := 20
	if heavy(t) {
		rounds = 3
	}
	for i := range rounds {
		w := newCrashWorld(t, 3)
		a := w.onMachine("a", state, "run", w.plan, "--no-wait")
		b := w.onMachine("b", state, "run", w.plan, "--no-wait")
		a.start()
		b.start()
		codes := map[*machineRun]int{a: a.wait(), b: b.wait()}
		var labels []string
		for m, code := range codes {
			require.Contains(t, []int{0, 3}, code, "round %d, machine %s:\n%s", i, m.name, m.output())
			if code == 0 {
				m.assertComplete()
				labels = m.report().labels()
			} else {
				assert.Contains(t, m.stderr.String(), "another run of this plan holds the lock of plan crash-card on "+w.url)
			}
		}
		require.NotEmpty(t, labels, "round %d: neither run finished:\n%s\n%s", i, a.output(), b.output())
		w.assertOnePerLabel(labels)
	}
}

func TestSharedStateRandomKills(t *testing.T) {
	t.Parallel()
	state, _ := sharedState(t)
	w := newCrashWorld(t, 6)
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill times from seed %d", seed)
	rng := rand.New(rand.NewPCG(14, seed))
	for i := range 10 {
		machine := []string{"a", "b"}[i%2]
		m := w.onMachine(machine, state, "run", w.plan, "--no-wait").start()
		d := time.Duration(20+rng.IntN(300)) * time.Millisecond
		time.Sleep(d)
		m.cmd.Process.Signal(syscall.SIGKILL)
		m.cmd.Wait()
		assert.LessOrEqual(t, w.svc.NotificationCount(), w.bets, "after kill %d (%v)", i, d)
	}
	final := w.onMachine("c", state, "run", w.plan, "--no-wait")
	require.Equal(t, 0, final.run(), "%s", final.output())
	final.assertComplete()
	labels := final.report().labels()
	for _, l := range labels {
		assert.Equal(t, 1, w.svc.NotificationsWithLabel(l), "label %s", l)
	}
	assert.Equal(t, w.bets, w.svc.NotificationCount(), "none lost, none twice")
}

// Fencing: run A holds the lock and stands between two creates when its
// lock connection is killed from the database side; run B takes over and
// finishes; A, resumed, sends no create after that moment.
func TestSharedStateFencing(t *testing.T) {
	t.Parallel()
	for _, point := range []string{
		"announce:2", // its look-up found nothing, about to announce the create
		"creating:2", // announced, not yet sent
	} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			state, schema := sharedState(t)
			server := pgtest.ServerURL(t)
			w := newCrashWorld(t, 3)
			a := w.onMachine("a", state, "run", w.plan, "--no-wait").pauseAt(point).start()
			a.waitPaused()

			var backend int
			pgtest.Query(t, server, fmt.Sprintf("SELECT holder_backend FROM %s.plans WHERE name = 'crash-card'", schema), nil, &backend)
			pgtest.Exec(t, server, "SELECT pg_terminate_backend($1)", backend)
			killed := time.Now()

			b := w.onMachine("b", state, "run", w.plan, "--no-wait", "--lock-timeout", "10s")
			require.Equal(t, 0, b.run(), "%s", b.output())
			bDone := time.Now()
			b.assertComplete()
			// A's engine stands still, its lock watcher does not: A goes
			// on once its lease says the lock is lost.
			why := a.waitLost()
			t.Logf("A's lease lost its lock %v after the kill: %s", time.Since(killed).Round(time.Millisecond), why)

			a.resume()
			require.Equal(t, 3, a.wait(), "A lost its lock: exit 3\n%s", a.output())
			assert.Contains(t, a.stderr.String(), "lost the plan's lock")
			rep := a.report()
			assert.Equal(t, "refused", rep.EndReason)
			assert.Contains(t, rep.Error, "lost the plan's lock")
			require.Len(t, rep.Bets, 3, "A's report lists every bet")
			assert.NotZero(t, rep.Bets[0].NotificationID, "A still reports what it created")

			for _, c := range w.createsSeen() {
				assert.False(t, c.At.After(bDone), "a create for %s reached the service after B finished: A sent it", c.Label)
				if c.At.After(killed) {
					assert.NotEqual(t, rep.Bets[0].Label, c.Label, "created before the kill, never after")
				}
			}
			w.assertOnePerLabel(b.report().labels())
		})
	}
}

// proxiedState is the test schema's URL through a proxy, with a password
// (trust authentication ignores it) that must never be printed.
func proxiedState(t *testing.T, state string, p *pgtest.Proxy) string {
	t.Helper()
	state = strings.Replace(state, "postgres://postgres@127.0.0.1:5432/", "postgres://postgres:Hunter2sekrit@"+p.Addr()+"/", 1)
	require.Contains(t, state, p.Addr(), "the test database is not the default one: cannot proxy it")
	return state
}

// assertNoPassword checks outputs and every report file.
func (m *machineRun) assertNoPassword() {
	m.w.t.Helper()
	assert.NotContains(m.w.t, m.output(), "Hunter2sekrit")
	dir := filepath.Join(m.w.dir, m.name, "report")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(m.w.t, err)
		assert.NotContains(m.w.t, string(b), "Hunter2sekrit", "report %s", e.Name())
	}
}

func TestSharedStateDatabaseDown(t *testing.T) {
	t.Parallel()
	if u := os.Getenv(pgtest.EnvURL); u != "" && u != pgtest.DefaultURL {
		t.Skip("proxies the default test database only")
	}
	t.Run("before the run", func(t *testing.T) {
		t.Parallel()
		state, _ := sharedState(t)
		p := pgtest.NewProxy(t, "127.0.0.1:5432")
		state = proxiedState(t, state, p)
		p.Cut()
		w := newCrashWorld(t, 3)
		for _, args := range [][]string{
			{"run", w.plan, "--no-wait"},
			{"status", w.plan},
			{"plan", w.plan},
			{"cancel", w.plan, "--yes"},
		} {
			m := w.onMachine("a", state, args...)
			require.Equal(t, 3, m.run(), "%v: the shared state out of reach is a refusal\n%s", args, m.output())
			assert.Contains(t, m.stderr.String(), "the shared state postgres://postgres:xxxxx@"+p.Addr())
			m.assertNoPassword()
			assert.Empty(t, w.svc.Requests(), "%v: no request to the service", args)
			_, err := os.Stat(filepath.Join(w.dir, m.name, "report", "report.json"))
			assert.True(t, os.IsNotExist(err), "%v: a run that never started writes no report", args)
		}
	})
	t.Run("mid-run", func(t *testing.T) {
		t.Parallel()
		state, schema := sharedState(t)
		p := pgtest.NewProxy(t, "127.0.0.1:5432")
		w := newCrashWorld(t, 3)
		a := w.onMachine("a", proxiedState(t, state, p), "run", w.plan, "--no-wait").pauseAt("created:1").start()
		a.waitPaused()
		p.Cut()
		a.resume()
		require.Equal(t, 3, a.wait(), "%s", a.output())
		assert.Contains(t, a.stderr.String(), "lost the plan's lock")
		a.assertNoPassword()
		rep := a.report()
		assert.Equal(t, "refused", rep.EndReason)
		require.Len(t, rep.Bets, 3, "a complete report")
		created := 0
		for _, b := range rep.Bets {
			if b.NotificationID != 0 {
				created++
				continue
			}
			assert.Equal(t, "failed", b.Status)
			assert.Contains(t, b.Reason, "not created: stopped creating: lost the plan's lock")
		}
		assert.Equal(t, 1, created)
		assert.Equal(t, 1, w.svc.NotificationCount(), "nothing created once the database was gone")
		// Every create that reached the service had its committed row.
		server := pgtest.ServerURL(t)
		for _, c := range w.createsSeen() {
			var n int
			pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.journal WHERE entry->>'op' = 'creating' AND entry->>'label' = $1", schema), []any{c.Label}, &n)
			assert.Equal(t, 1, n, "label %s was created without a committed creating row", c.Label)
		}
		// Back up: a run from another machine finishes the plan.
		b := w.onMachine("b", state, "run", w.plan, "--no-wait")
		require.Equal(t, 0, b.run(), "%s", b.output())
		b.assertEachOnce()
	})
}

// Two machines migrating a fresh schema at once: both go on, each version
// is applied once. A schema newer than the binary is refused.
func TestSharedStateMigration(t *testing.T) {
	t.Parallel()
	state, schema := sharedState(t)
	server := pgtest.ServerURL(t)
	w := newCrashWorld(t, 2)
	a := w.onMachine("a", state, "run", w.plan, "--no-wait", "--lock-timeout", "20s")
	b := w.onMachine("b", state, "run", w.plan, "--no-wait", "--lock-timeout", "20s")
	a.start()
	b.start()
	require.Equal(t, 0, a.wait(), "%s", a.output())
	require.Equal(t, 0, b.wait(), "%s", b.output())
	var versions int
	pgtest.Query(t, server, fmt.Sprintf("SELECT count(*) FROM %s.schema_version", schema), nil, &versions)
	assert.Equal(t, postgres.SchemaVersion, versions)
	w.assertOnePerLabel(a.report().labels())

	// A third machine, with no local state at all, reads the shared
	// journal.
	st := w.onMachine("d", state, "status", w.plan)
	require.Equal(t, 0, st.run(), "%s", st.output())
	st.assertComplete()

	pgtest.Exec(t, server, fmt.Sprintf("INSERT INTO %s.schema_version (version) VALUES ($1)", schema), postgres.SchemaVersion+1)
	before := len(w.svc.Requests())
	c := w.onMachine("c", state, "run", w.plan, "--no-wait")
	require.Equal(t, 3, c.run(), "%s", c.output())
	assert.Contains(t, c.stderr.String(), fmt.Sprintf("schema %s is at version %d, newer than this betplan knows (%d): upgrade betplan", schema, postgres.SchemaVersion+1, postgres.SchemaVersion))
	assert.Len(t, w.svc.Requests(), before, "no request to the service")
}

// unlock shows the holder of a shared lock, refuses a live one, and with
// --force fences it off; a waiting run says who it waits for.
func TestSharedStateUnlock(t *testing.T) {
	t.Parallel()
	state, _ := sharedState(t)
	w := newCrashWorld(t, 2)
	a := w.onMachine("a", state, "run", w.plan, "--no-wait").pauseAt("announce:1").start()
	a.waitPaused()

	waiting := w.onMachine("b", state, "run", w.plan, "--no-wait", "--lock-timeout", "300ms")
	require.Equal(t, 3, waiting.run(), "%s", waiting.output())
	holder := fmt.Sprintf(`pid %d on \S+ \(betplan run %s, since \S+\)`, a.cmd.Process.Pid, regexp.QuoteMeta(w.plan))
	assert.Regexp(t, "waiting up to 300ms for the plan's lock, held by "+holder, waiting.stderr.String())
	assert.Regexp(t, "another run of this plan holds the lock of plan crash-card on "+regexp.QuoteMeta(w.url)+" in postgres://\\S+ \\(schema bp_test_\\w+\\): "+holder, waiting.stderr.String())

	u := w.onMachine("b", state, "unlock", w.plan)
	require.Equal(t, 3, u.run(), "%s", u.output())
	assert.Regexp(t, holder+"; it is live: stop that run, or pass --force", u.stderr.String())

	u = w.onMachine("b", state, "unlock", w.plan, "--force")
	require.Equal(t, 0, u.run(), "%s", u.output())
	assert.Regexp(t, "fenced off and stopped the run holding the lock of plan crash-card on .*: "+holder, u.stdout.String())

	a.resume()
	require.Equal(t, 3, a.wait(), "%s", a.output())
	assert.Contains(t, a.stderr.String(), "lost the plan's lock")
	assert.Zero(t, w.svc.NotificationCount(), "the fenced run created nothing")

	b := w.onMachine("b", state, "run", w.plan, "--no-wait")
	require.Equal(t, 0, b.run(), "%s", b.output())
	w.assertOnePerLabel(b.report().labels())

	u = w.onMachine("b", state, "unlock", w.plan)
	require.Equal(t, 1, u.run(), "%s", u.output())
	assert.Contains(t, u.stderr.String(), "no run holds the lock of plan crash-card")
}

// cancel checks an instance id against the plan's journal before any
// request to the service, also when the journal is in the shared state:
// machine b, which never ran the plan, refuses an instance machine a did
// not create (exit 2, naming those it did), and cancels one it did.
func TestSharedStateCancelChecksInstanceIDs(t *testing.T) {
	t.Parallel()
	state, _ := sharedState(t)
	w := newCrashWorld(t, 1)
	dogs := filepath.Join(w.dir, "dogs.yaml")
	require.NoError(t, os.WriteFile(dogs, []byte(`version: 1
name: dogs
limits: {max_stake_per_bet: 5, max_total_stake: 20, max_bets: 4}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417", selection: "1", stake: 5}
bets:
  - id: box1
    for_each_race: race.code == "Greyhounds" && race.venue == "The Meadows" && race.event_number <= 2
`), 0o644))
	a := w.onMachine("a", state, "run", dogs, "--no-wait", "--allow-no-bot")
	require.Equal(t, 0, a.run(), "%s", a.output())
	require.Equal(t, 2, w.svc.NotificationCount())

	w.svc.ResetRequests()
	b := w.onMachine("b", state, "cancel", dogs, "--yes", "box1@the-meadows-r7")
	require.Equal(t, 2, b.run(), "%s", b.output())
	assert.Contains(t, b.stderr.String(), `no instance "box1@the-meadows-r7" of bet box1 in the journal of plan dogs; it knows: box1@the-meadows-r1, box1@the-meadows-r2`)
	assert.Empty(t, w.svc.Requests(), "no request to the service")

	b = w.onMachine("b", state, "cancel", dogs, "--yes", "box1@the-meadows-r2")
	require.Equal(t, 0, b.run(), "%s", b.output())
	assert.Regexp(t, `(?m)^box1@the-meadows-r2 .* cancelled `, b.stdout.String())
	assert.NotRegexp(t, `(?m)^box1@the-meadows-r1 .* cancelled `, b.stdout.String())
}
