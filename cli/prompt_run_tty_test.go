package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

// ptyRun is the real binary running on a pseudo-terminal: what it drew,
// and the keyboard.
type ptyRun struct {
	screen *syncBuffer
	master *os.File
	exited chan error
}

// startOnPTY runs betplan ARGS on a terminal against the service at base
// with token, its state under dir.
func startOnPTY(t *testing.T, dir, base, token string, args ...string) *ptyRun {
	t.Helper()
	master, tty := openPTY(t)
	t.Cleanup(func() { master.Close() })
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(),
		"BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10", "CI=", "NO_COLOR=1",
		"BETPLAN_BASE_URL="+base, "BETPLAN_TOKEN="+token, "BETPLAN_CONFIG=",
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "GITHUB_STEP_SUMMARY=",
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Start())
	tty.Close()
	p := &ptyRun{screen: &syncBuffer{}, master: master, exited: make(chan error, 1)}
	go func() { _, _ = copyUntilEOF(p.screen, master) }()
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return p
}

// waitFor waits until the screen shows text, failing if the run ends
// first.
func (p *ptyRun) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.screen.String(), text) {
		select {
		case err := <-p.exited:
			p.exited <- err
			t.Fatalf("the run ended (%v) before showing %q:\n%s", err, text, p.screen.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "%q not shown within 30s:\n%s", text, p.screen.String())
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *ptyRun) typeLine(t *testing.T, line string) {
	t.Helper()
	_, err := p.master.Write([]byte(line + "\n"))
	require.NoError(t, err)
}

// end waits for the run to exit and returns the whole screen.
func (p *ptyRun) end(t *testing.T) (string, error) {
	t.Helper()
	select {
	case err := <-p.exited:
		// The last output may still be on its way through the terminal.
		time.Sleep(50 * time.Millisecond)
		return p.screen.String(), err
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end:\n%s", p.screen.String())
	}
	return "", nil
}

const promptQuestion = "Type yes (or y) to go on: "

// readyPlan writes a plan named name with one bet, ready now, on the first
// Galloping race of svc starting in more than ten minutes.
func readyPlan(t *testing.T, svc *sim.Service, dir, name string, stake int) {
	t.Helper()
	now := time.Now()
	var race sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Code == "Galloping" && r.Start.After(now.Add(10*time.Minute)) {
			race = r
			break
		}
	}
	require.NotEmpty(t, race.Venue)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(fmt.Sprintf(`version: 1
name: %s
limits: {max_total_stake: 20, max_stake_per_bet: 10, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager, target_session: "4417"}
bets:
  - id: %s-fav
    race: {venue: %q, code: Galloping, event_number: %d}
    selection: %q
    stake: %d
`, name, name, race.Venue, race.EventNumber, race.Runners[0], stake)), 0o644))
}

// A service on this machine that says it is a simulation (a `betplan sim`
// served by hand) is asked the same question as a real one, in words that
// say what it claims: the header never skips nor softens the confirmation.
func TestPromptServedSimulationStillAsks(t *testing.T) {
	svc := sim.New(sim.Options{Seed: 3})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(apiclient.SimulatedHeader, "1")
		svc.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	readyPlan(t, svc, dir, "served", 5)

	run := startOnPTY(t, dir, srv.URL, svc.Token(), "run", "served.yaml", "--no-wait")
	run.waitFor(t, promptQuestion)
	asked := run.screen.String()
	assert.Contains(t, asked, "The service says it is a simulation (betplan sim on this machine); if it is not, this acts on real money.")
	assert.Zero(t, svc.NotificationCount(), "created before the yes")
	run.typeLine(t, "y")
	out, err := run.end(t)
	require.NoError(t, err, out)
	assert.Equal(t, 1, svc.NotificationCount(), out)
	assert.Contains(t, out, "betplan run: served [simulated service]")
}

// A punter at a terminal runs a folder of plans for real, two with a bet
// ready and one of them with a bet still waiting: one question lists every
// plan's bets and the account's limits, stays whole on the screen (no live
// line drawn over it), and one yes creates both plans' bets.
func TestPromptOneQuestionForSeveralPlans(t *testing.T) {
	svc := sim.New(sim.Options{Seed: 3})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	dir := t.TempDir()
	plans := filepath.Join(dir, "plans")
	require.NoError(t, os.Mkdir(plans, 0o755))
	readyPlan(t, svc, plans, "p1", 4)
	readyPlan(t, svc, plans, "p2", 6)
	// p1 has a bet that waits for its race's last minute, too.
	b, err := os.ReadFile(filepath.Join(plans, "p1.yaml"))
	require.NoError(t, err)
	bet := string(b[strings.Index(string(b), "  - id: p1-fav"):])
	later := strings.Replace(bet, "p1-fav", "p1-late", 1) + "    when: race.minutes_to_start <= 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(plans, "p1.yaml"), append(b, later...), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(plans, "betplan.yaml"), []byte("version: 1\nlimits: {max_total_stake: 30}\n"), 0o644))

	run := startOnPTY(t, dir, srv.URL, svc.Token(), "run", "plans", "--no-wait")
	run.waitFor(t, promptQuestion)
	// Give the other plan's ticks and the live line time to draw over it,
	// as they did.
	time.Sleep(1500 * time.Millisecond)
	asked := run.screen.String()
	assert.Equal(t, 1, strings.Count(asked, promptQuestion), asked)
	assert.Empty(t, strings.SplitN(asked, promptQuestion, 2)[1], "something was drawn over the question while it waited")
	for _, want := range []string{
		"2 plans of this run: up to 3 bets may be created, $14.00 requested, $14.00 at risk. One yes covers every bet of these plans in this run, now and later.",
		`Plan "p1" against `, `Plan "p2" against `,
		// One line per race: p1's two bets share Flemington R2.
		"Flemington R2: 2 bets (p1-fav, p1-late), $8.00 requested, $8.00 at risk; 1 ready now, 1 when its condition holds",
		"p2-fav on Flemington R2: $6.00 stake requested, $6.00 at risk ($6.00 × 1: the target session 4417 (Main Sportsbet)); ready now",
		"Account limits of plans/betplan.yaml, every plan together, over all time: max_total_stake $30.00 ($0.00 used).",
	} {
		assert.Contains(t, asked, want)
	}
	assert.Zero(t, svc.NotificationCount(), "created before the yes")
	run.typeLine(t, "y")
	out, err := run.end(t)
	require.NoError(t, err, out)
	assert.Equal(t, 1, strings.Count(out, promptQuestion), "asked again:\n%s", out)
	assert.Equal(t, 2, svc.NotificationCount(), out)
	assert.Contains(t, out, "[p1] ")
	assert.Regexp(t, `\[p1\] .*created p1-fav on `, out)
	assert.Regexp(t, `\[p2\] .*created p2-fav on `, out)
}
