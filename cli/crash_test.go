package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
)

// crashWorld is a simulated service that outlives the betplan processes
// a test starts and kills.
type crashWorld struct {
	t    *testing.T
	svc  *sim.Service
	url  string
	dir  string
	plan string
	bets int

	mu      sync.Mutex
	creates []createSeen // every create that reached the service
	// slowCreate, when set, holds the next create that reaches the service
	// this long before the service stores it (a create in flight), then
	// is cleared; landed tells when it was stored.
	slowCreate time.Duration
	landed     chan struct{}
}

// createSeen is a create as the service received it.
type createSeen struct {
	Label string
	At    time.Time
}

func newCrashWorld(t *testing.T, bets int) *crashWorld {
	svc := sim.New(sim.Options{Seed: 3})
	w := &crashWorld{t: t, svc: svc}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/notification/create/" {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var body struct {
				Label string `json:"label"`
			}
			json.Unmarshal(b, &body)
			w.mu.Lock()
			w.creates = append(w.creates, createSeen{Label: body.Label, At: time.Now()})
			slow, landed := w.slowCreate, w.landed
			w.slowCreate = 0
			w.mu.Unlock()
			if slow > 0 {
				time.Sleep(slow)
				svc.ServeHTTP(rw, r)
				close(landed)
				return
			}
		}
		svc.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	var races []sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Start.After(time.Now().Add(2 * time.Minute)) {
			races = append(races, r)
		}
	}
	require.GreaterOrEqual(t, len(races), bets)
	yaml := "version: 1\nname: crash-card\nlimits: {max_stake_per_bet: 10, max_total_stake: 500, max_bets: 50}\n" +
		"defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\nbets:\n"
	for i := range bets {
		r := races[i]
		yaml += fmt.Sprintf("  - id: bet-%d\n    race: {venue: %q, code: %s, event_number: %d}\n    selection: %q\n    stake: 2\n",
			i, r.Venue, r.Code, r.EventNumber, r.Runners[0])
	}
	path := filepath.Join(dir, "crash.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
	w.url, w.dir, w.plan, w.bets = srv.URL, dir, path, bets
	return w
}

// createsSeen returns the creates the service received, in order.
func (w *crashWorld) createsSeen() []createSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.creates)
}

// waitPlaced waits until the simulated bots took n bets up (3 seconds
// after their create), or ten seconds passed: the next run then finds
// them placed, and the test waits no longer than the bots take.
func (w *crashWorld) waitPlaced(n int) {
	for deadline := time.Now().Add(10 * time.Second); w.svc.PlacedCount() < n && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
}

// betplan starts the real binary (this test binary in main mode).
func (w *crashWorld) betplan(crashAt string, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	require.NoError(w.t, err)
	all := append([]string{"run", w.plan, "--no-wait", "--yes", "--ambiguous-grace", "1s",
		"--max-rps", "50", "--http-timeout", "2s", "--state-dir", filepath.Join(w.dir, "state"),
		"--report-dir", filepath.Join(w.dir, "report"), "--base-url", w.url}, args...)
	cmd := exec.Command(exe, all...)
	cmd.Env = append(os.Environ(),
		"BETPLAN_TEST_EXEC_MAIN=1",
		"GORACE=atexit_sleep_ms=10", // a -race child otherwise sleeps 1s as it exits
		"BETPLAN_TOKEN="+w.svc.Token(),
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "GITHUB_STEP_SUMMARY=",
		"XDG_CACHE_HOME="+filepath.Join(w.dir, "cache"),
		crashEnv+"="+crashAt,
	)
	return cmd
}

func killedBySIGKILL(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func (w *crashWorld) assertAtMostOnce(when string) {
	w.t.Helper()
	assert.LessOrEqual(w.t, w.svc.NotificationCount(), w.bets, "after %s: more notifications than bets", when)
}

// finish runs betplan to the end and checks every bet exists exactly once.
func (w *crashWorld) finish() {
	w.t.Helper()
	out, err := w.betplan("").CombinedOutput()
	require.NoError(w.t, err, "final run: %s", out)
	assert.Equal(w.t, w.bets, w.svc.NotificationCount(), "every bet created exactly once:\n%s", out)
	var rep struct {
		Bets []struct {
			ID             string `json:"id"`
			Label          string `json:"label"`
			NotificationID int64  `json:"notification_id"`
		} `json:"bets"`
	}
	b, err := os.ReadFile(filepath.Join(w.dir, "report", "report.json"))
	require.NoError(w.t, err)
	require.NoError(w.t, json.Unmarshal(b, &rep))
	require.Len(w.t, rep.Bets, w.bets)
	for _, bet := range rep.Bets {
		assert.NotZero(w.t, bet.NotificationID, "bet %s was forgotten", bet.ID)
		assert.Equal(w.t, 1, w.svc.NotificationsWithLabel(bet.Label), "bet %s label %s", bet.ID, bet.Label)
	}
}

func TestCrashAtCheckpoints(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary many times")
	}
	w := newCrashWorld(t, 3)
	// Each run dies at one point; the next run picks up from the journal.
	kills := 0
	for _, at := range []string{"creating:1", "posted:1", "created:1", "posted:1", "creating:1", "posted:2", "created:1"} {
		out, err := w.betplan(at).CombinedOutput()
		if killedBySIGKILL(err) {
			kills++
		} else {
			// Everything was created before the point was reached.
			require.NoError(t, err, "run crashing at %s: %s", at, out)
		}
		w.assertAtMostOnce(at)
	}
	// Three bets: the first four runs die at their point (before a POST,
	// between a POST and its journal entry, after it, and between the last
	// POST and its entry); after that everything exists and the later
	// points are never reached.
	assert.Equal(t, 4, kills, "runs killed at their checkpoint")
	w.finish()
}

func TestCrashAtRandomTimes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary many times")
	}
	w := newCrashWorld(t, 6)
	for _, d := range []time.Duration{5, 15, 30, 45, 60, 80, 120} {
		cmd := w.betplan("")
		require.NoError(t, cmd.Start())
		time.Sleep(d * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		w.assertAtMostOnce(fmt.Sprintf("a kill after %dms", d))
	}
	w.finish()
}

func TestInterruptWritesTheReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	w := newCrashWorld(t, 2)
	// Ready bets are created at once; then the run follows them (races are
	// minutes away on the real clock) until it is interrupted.
	cmd := w.betplan("")
	cmd.Args = slices.DeleteFunc(cmd.Args, func(a string) bool { return a == "--no-wait" })
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(20 * time.Second)
	for w.svc.NotificationCount() < w.bets && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, w.bets, w.svc.NotificationCount(), "both bets created before the interrupt")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 130, ee.ExitCode(), "a run stopped by Ctrl-C exits 128+SIGINT")

	var rep struct {
		EndReason string `json:"end_reason"`
		Bets      []struct {
			Status         string `json:"status"`
			NotificationID int64  `json:"notification_id"`
		} `json:"bets"`
	}
	b, rerr := os.ReadFile(filepath.Join(w.dir, "report", "report.json"))
	require.NoError(t, rerr, "the report is written on Ctrl-C")
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, "interrupted", rep.EndReason)
	require.Len(t, rep.Bets, w.bets)
	for _, bet := range rep.Bets {
		// The service counted the create; the interrupt may still beat
		// its answer to the run, which then reports the bet in doubt.
		if bet.Status == "in_doubt" {
			continue
		}
		assert.NotZero(t, bet.NotificationID)
		assert.Contains(t, []string{"created", "placed"}, bet.Status)
	}
}

func TestDefaultRequestRate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	w := newCrashWorld(t, 2)
	cmd := w.betplan("")
	// Drop the test's --max-rps 50: the default must hold.
	for i, a := range cmd.Args {
		if a == "--max-rps" {
			cmd.Args = slices.Delete(cmd.Args, i, i+2)
			break
		}
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	reqs := w.svc.Requests()
	require.GreaterOrEqual(t, len(reqs), 6, "races, sessions, scan, look-ups and creates")
	// 4 per second with a burst of 1: requests leave 250 ms apart. They
	// are seen where they arrive, so one late in transit makes the next
	// gap short by as much: the pace is checked over them all, and no
	// gap may be so short that two left together.
	for i := 1; i < len(reqs); i++ {
		gap := reqs[i].Time.Sub(reqs[i-1].Time)
		assert.GreaterOrEqual(t, gap, 100*time.Millisecond, "%s %s came %v after %s %s",
			reqs[i].Method, reqs[i].Path, gap, reqs[i-1].Method, reqs[i-1].Path)
	}
	span := reqs[len(reqs)-1].Time.Sub(reqs[0].Time)
	assert.GreaterOrEqual(t, span, time.Duration(len(reqs)-1)*240*time.Millisecond, "%d requests in %v", len(reqs), span)
}

// TestInterruptMidCreateIsInDoubt stops the real binary while a create is
// on the wire: the bet may have been placed, so the output, the report and
// `betplan status` must say "in doubt" with its label, never waiting with
// nothing at stake, and the next run must adopt it rather than create it
// again.
func TestInterruptMidCreateIsInDoubt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			w := newCrashWorld(t, 1)
			// The create is stored, then its answer never comes in time.
			w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenTimeout, Latency: time.Minute, Times: 1})
			cmd := w.betplan("", "--http-timeout", "2m")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			journal := w.journalPath()
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				if b, _ := os.ReadFile(journal); bytes.Contains(b, []byte(`"op":"creating"`)) && w.svc.NotificationCount() == 1 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			require.Equal(t, 1, w.svc.NotificationCount(), "the create landed before the signal")
			require.NoError(t, cmd.Process.Signal(tt.sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
			assert.Equal(t, tt.code, ee.ExitCode())
			assert.Contains(t, stderr.String(), "interrupted: re-run to resume; nothing will be created twice")
			assert.Contains(t, stdout.String(), "in doubt")
			assert.NotRegexp(t, `bet-0 .* waiting`, stdout.String())

			var rep struct {
				EndReason string `json:"end_reason"`
				Bets      []struct {
					Label  string   `json:"label"`
					Status string   `json:"status"`
					Stake  *float64 `json:"stake"`
					Reason string   `json:"reason"`
				} `json:"bets"`
			}
			b, rerr := os.ReadFile(filepath.Join(w.dir, "report", "report.json"))
			require.NoError(t, rerr)
			require.NoError(t, json.Unmarshal(b, &rep))
			assert.Equal(t, "interrupted", rep.EndReason)
			require.Len(t, rep.Bets, 1)
			bet := rep.Bets[0]
			assert.Equal(t, "in_doubt", bet.Status)
			require.NotNil(t, bet.Stake, "the stake at risk is shown")
			assert.Equal(t, 2.0, *bet.Stake)
			assert.Contains(t, bet.Reason, bet.Label)

			exe, err := os.Executable()
			require.NoError(t, err)
			status := exec.Command(exe, "status", w.plan, "--state-dir", filepath.Join(w.dir, "state"),
				"--report-dir", filepath.Join(w.dir, "status-report"), "--base-url", w.url)
			status.Env = w.betplan("").Env
			out, _ := status.CombinedOutput()
			assert.Contains(t, string(out), "in doubt", "betplan status:\n%s", out)
			assert.Contains(t, string(out), bet.Label)

			w.finish()
		})
	}
}
