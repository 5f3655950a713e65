package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// receiver is a webhook receiver on loopback: it keeps the bodies it
// answered 200, and answers 500 to the first failFirst requests.
type receiver struct {
	srv *httptest.Server

	mu        sync.Mutex
	failFirst int
	requests  int
	bodies    []map[string]any
	raw       [][]byte
	paths     []string
}

func newReceiver(failFirst int) *receiver {
	rc := &receiver{failFirst: failFirst}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.requests++
		if rc.requests <= rc.failFirst {
			rw.WriteHeader(http.StatusInternalServerError)
			return
		}
		rc.paths = append(rc.paths, r.Method+" "+r.URL.Path)
		if r.Header.Get("Content-Type") != "application/json" {
			return // a heartbeat
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		rc.bodies, rc.raw = append(rc.bodies, m), append(rc.raw, b)
	}))
	return rc
}

func (rc *receiver) received() []map[string]any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]map[string]any(nil), rc.bodies...)
}

// downURL is a loopback URL nothing listens on.
func downURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// cmdReceiver is `receiver [fail N | down]`: a webhook receiver on
// loopback for the rest of the script, at $RECEIVER_URL; what it took is
// written, one JSON body a line, to $WORK/received.jsonl when the script
// runs `received`. With fail N it answers 500 to its first N requests;
// with down nothing listens at $RECEIVER_URL.
func cmdReceiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! receiver")
	}
	switch {
	case len(args) == 1 && args[0] == "down":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		addr := l.Addr().String()
		l.Close()
		ts.Setenv("RECEIVER_URL", "http://"+addr)
		return
	case len(args) == 2 && args[0] == "fail":
	case len(args) == 0:
	default:
		ts.Fatalf("usage: receiver [fail N | down]")
	}
	fail := 0
	if len(args) == 2 {
		n, err := json.Number(args[1]).Int64()
		ts.Check(err)
		fail = int(n)
	}
	rc := newReceiver(fail)
	ts.Defer(rc.srv.Close)
	ts.Setenv("RECEIVER_URL", rc.srv.URL)
	ts.Value(scriptSimKey{}).(*scriptSim).receiver = rc
}

// cmdReceived is `received`: it writes the JSON bodies the script's
// receiver took to $WORK/received.jsonl, and every request's method and
// path (heartbeats too) to received.paths.
func cmdReceived(ts *testscript.TestScript, neg bool, args []string) {
	rc := ts.Value(scriptSimKey{}).(*scriptSim).receiver
	if neg || rc == nil {
		ts.Fatalf("usage: received, after receiver")
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var b, p bytes.Buffer
	for _, raw := range rc.raw {
		b.Write(raw)
		b.WriteByte('\n')
	}
	for _, path := range rc.paths {
		p.WriteString(path + "\n")
	}
	ts.Check(os.WriteFile(ts.MkAbs("received.jsonl"), b.Bytes(), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs("received.paths"), p.Bytes(), 0o644))
}

// alertCard is the README's card with alerts to hook (read from $HOOK)
// and a total limit that refuses its last bet.
func alertCard(t *testing.T, dir, on string) string {
	src, err := os.ReadFile("examples/saturday-card.yaml")
	require.NoError(t, err)
	card := strings.Replace(string(src), "max_total_stake: 100", "max_total_stake: 65", 1)
	require.NotEqual(t, string(src), card)
	card = strings.Replace(card, "\nbets:\n", "\nnotify:\n  - url: ${HOOK}\n    on: ["+on+"]\nbets:\n", 1)
	path := filepath.Join(dir, "card.yaml")
	require.NoError(t, os.WriteFile(path, []byte(card), 0o644))
	return path
}

// betplanExec runs this test binary as betplan with env added.
func betplanExec(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10",
		"BETPLAN_BASE_URL=", "BETPLAN_TOKEN=", "GITHUB_STEP_SUMMARY=", "CI=",
		"HOME="+filepath.Join(dir, "home"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	cmd.Env = append(cmd.Env, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return o.String(), e.String(), code
}

const secretPath = "/hook/T0KEN-s3cr3t-9f8e7d"

type reportDoc struct {
	EndReason string `json:"end_reason"`
	Bets      []struct {
		ID             string   `json:"id"`
		InstanceID     string   `json:"instance_id"`
		Label          string   `json:"label"`
		Status         string   `json:"status"`
		Reason         string   `json:"reason"`
		ReasonCode     string   `json:"reason_code"`
		NotificationID int64    `json:"notification_id"`
		Stake          *float64 `json:"stake"`
		AmountAccepted float64  `json:"amount_accepted"`
		Profit         float64  `json:"profit"`
	} `json:"bets"`
	Totals struct {
		Bets           int     `json:"bets"`
		AmountAccepted float64 `json:"amount_accepted"`
		Profit         float64 `json:"profit"`
	} `json:"totals"`
	Undelivered []struct {
		Event   string `json:"event"`
		Bet     string `json:"bet"`
		Target  string `json:"target"`
		Outcome string `json:"outcome"`
	} `json:"undelivered_alerts"`
}

func readReport(t *testing.T, dir string) reportDoc {
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	require.NoError(t, err)
	var rep reportDoc
	require.NoError(t, json.Unmarshal(b, &rep))
	return rep
}

// assertNoSecret checks that no output and no file under dirs holds the
// secret part of the target URL.
func assertNoSecret(t *testing.T, secret string, outputs []string, dirs ...string) {
	t.Helper()
	for _, o := range outputs {
		assert.NotContains(t, o, secret)
	}
	for _, d := range dirs {
		filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(path)
			assert.NotContains(t, string(b), secret, "%s holds the target URL's secret", path)
			return nil
		})
	}
}

func TestAlertsOfARehearsedCard(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc, dir, stdout, stderr, rep := rehearseCard(t, 0, "placed, not_placed, settled, limit, in_doubt, run_failed, summary")
	assert.Empty(t, rep.Undelivered)

	got := rc.received()
	byKey := map[string]map[string]any{}
	ids := map[string]bool{}
	for _, b := range got {
		key := b["event"].(string) + " " + str(b["instance"])
		assert.Nil(t, byKey[key], "%s sent twice", key)
		byKey[key] = b
		assert.False(t, ids[b["id"].(string)], "alert id %s sent twice", b["id"])
		ids[b["id"].(string)] = true
		assert.Equal(t, "saturday-card", b["plan"])
		assert.NotEmpty(t, b["message"])
		assert.NotEmpty(t, b["time"])
	}
	won, lost, limits := 0, 0, 0
	for _, bet := range rep.Bets {
		switch bet.Status {
		case "settled":
			p := byKey["placed "+bet.InstanceID]
			require.NotNil(t, p, "placed %s", bet.InstanceID)
			assert.Equal(t, bet.Label, p["label"])
			assert.EqualValues(t, bet.NotificationID, p["notification_id"])
			assert.EqualValues(t, *bet.Stake, p["requested"])
			s := byKey["settled "+bet.InstanceID]
			require.NotNil(t, s, "settled %s", bet.InstanceID)
			assert.Equal(t, "settled", s["status"])
			assert.EqualValues(t, bet.Profit, s["profit"], bet.InstanceID)
			assert.EqualValues(t, bet.AmountAccepted, s["accepted"], bet.InstanceID)
			if bet.Profit > 0 {
				won++
				assert.Contains(t, s["message"], "won "+bet.InstanceID)
			} else {
				lost++
				assert.Contains(t, s["message"], "lost "+bet.InstanceID)
			}
			race, _ := s["race"].(map[string]any)
			assert.NotEmpty(t, race["venue"])
			assert.NotEmpty(t, race["start"])
		case "failed":
			l := byKey["limit "+bet.InstanceID]
			require.NotNil(t, l, "limit %s: %s", bet.InstanceID, bet.Reason)
			assert.Contains(t, l["message"], "max_total_stake")
			limits++
		}
	}
	assert.Positive(t, won, "a winner on the card")
	assert.Positive(t, lost, "a loser on the card")
	assert.Equal(t, 1, limits, "one bet refused by the limit")
	sum := byKey["summary "]
	require.NotNil(t, sum, "the run's summary")
	totals := sum["totals"].(map[string]any)
	assert.EqualValues(t, rep.Totals.Bets, totals["bets"])
	assert.EqualValues(t, rep.Totals.Profit, totals["profit"])
	assert.EqualValues(t, rep.Totals.AmountAccepted, totals["accepted"])
	// A limit doing its job is not a failure: its one alert says it.
	assert.Nil(t, byKey["run_failed "], "a limit's refusal is no run failure")
	assert.Len(t, got, 2*(won+lost)+limits+1, "nothing else was sent")
	for _, p := range rc.paths {
		assert.Equal(t, "POST "+secretPath, p)
	}
	assertNoSecret(t, "s3cr3t", []string{stdout, stderr}, dir)
}

// rehearseCard rehearses the alert card (alertCard) told of events, its
// target a receiver that answers the first fail requests 500; a limit
// refuses one of its bets, which exits 3.
func rehearseCard(t *testing.T, fail int, events string) (rc *receiver, dir, stdout, stderr string, rep reportDoc) {
	t.Helper()
	rc = newReceiver(fail)
	t.Cleanup(rc.srv.Close)
	dir = t.TempDir()
	stdout, stderr, code, rep := rc.rehearse(t, dir, alertCard(t, dir, events))
	assert.Equal(t, exitRefused, code, "a limit refused a bet: %s", stderr)
	return rc, dir, stdout, stderr, rep
}

// rehearse runs plan (in dir) with --sim and extra flags, its alerts'
// target ${HOOK} the receiver, and reads the run's report.
func (rc *receiver) rehearse(t *testing.T, dir, plan string, extra ...string) (stdout, stderr string, code int, rep reportDoc) {
	t.Helper()
	args := append([]string{"run", "--sim"}, extra...)
	stdout, stderr, code = betplanExec(t, dir, []string{"HOOK=" + rc.srv.URL + secretPath},
		append(args, plan, "--report-dir", filepath.Join(dir, "rep"), "--state-dir", filepath.Join(dir, "state"))...)
	return stdout, stderr, code, readReport(t, filepath.Join(dir, "rep"))
}

// notifyHook gives the world's plan one alert target, ${HOOK}, told of
// the events on.
func (w *crashWorld) notifyHook(on string) {
	src, err := os.ReadFile(w.plan)
	require.NoError(w.t, err)
	withAlerts := string(src) + "notify:\n  - url: ${HOOK}\n    on: [" + on + "]\n"
	require.NoError(w.t, os.WriteFile(w.plan, []byte(withAlerts), 0o644))
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func TestAlertsRetryAfterA500(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc, _, _, stderr, rep := rehearseCard(t, 1, "placed, settled, limit, summary")
	assert.Empty(t, rep.Undelivered, "the alert answered 500 was sent again and taken")
	got := rc.received()
	require.NotEmpty(t, got)
	// The first alert was refused once, then taken: it is the first body
	// taken, and nothing was taken twice.
	seen := map[string]bool{}
	for _, b := range got {
		id := b["id"].(string)
		assert.False(t, seen[id], "%s taken twice", id)
		seen[id] = true
	}
	assert.Equal(t, "placed", got[0]["event"])
	assert.Equal(t, len(got)+1, rc.requests, "one request more than bodies taken: the 500")
	assert.Contains(t, stderr, "not delivered (attempt 1): answered 500 Internal Server Error")
}

func TestAlertsReceiverDownForTheWholeRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	dir := t.TempDir()
	card := alertCard(t, dir, "placed, settled, limit, summary, run_failed")
	args := []string{"run", "--sim", card, "--state-dir", filepath.Join(dir, "state")}
	// The same card without alerts exits as it does with a target down.
	plain := filepath.Join(dir, "plain.yaml")
	src, err := os.ReadFile(card)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plain, []byte(strings.Replace(string(src), "url: ${HOOK}", "url: ${HOOK_NOT_USED}", 1)), 0o644))
	_, _, want := betplanExec(t, dir, []string{"HOOK_NOT_USED=http://127.0.0.1:1/x"}, "validate", plain)
	require.Equal(t, 0, want)

	stdout, stderr, code := betplanExec(t, dir, []string{"HOOK=" + downURL(t) + secretPath}, append(args, "--report-dir", filepath.Join(dir, "rep"))...)
	assert.Equal(t, exitRefused, code, "a target that is down changes nothing in how the run exits: %s", stderr)
	rep := readReport(t, filepath.Join(dir, "rep"))
	require.NotEmpty(t, rep.Undelivered)
	events := map[string]int{}
	for _, u := range rep.Undelivered {
		events[u.Event]++
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+/…$`, u.Target)
		assert.Equal(t, "not delivered: the next run tries again", u.Outcome)
	}
	assert.Equal(t, 1, events["summary"])
	assert.Equal(t, 0, events["run_failed"], "a limit's refusal is no run failure")
	assert.Equal(t, 1, events["limit"])
	assert.Positive(t, events["settled"])
	assert.Contains(t, stdout, "ALERTS NOT DELIVERED")
	assert.Regexp(t, `\d+ alerts? to http://127\.0\.0\.1:\d+/… not delivered \(`, stderr)
	assert.NotContains(t, stderr, "not delivered (not delivered")
	assertNoSecret(t, "s3cr3t", []string{stdout, stderr}, dir)
}

func TestAlertsNeedTheirVariables(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	dir := t.TempDir()
	card := alertCard(t, dir, "summary")
	// A service nothing listens on: the run must stop before any request.
	_, stderr, code := betplanExec(t, dir, []string{"BETPLAN_BASE_URL=" + downURL(t), "BETPLAN_TOKEN=x"},
		"run", "--yes", card, "--state-dir", filepath.Join(dir, "state"))
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "card.yaml:31: notify url: environment variable HOOK is not set")
	assert.NotContains(t, stderr, "cannot be reached", "stopped before any request")
}

// TestAlertsOnceAcrossKills kills runs of a plan right after an alert
// reached the receiver (before the journal said so) and right after an
// attempt was announced (before it went out): no alert ever arrives twice,
// and the one that may never have gone out is reported, not sent again.
func TestAlertsOnceAcrossKills(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary many times")
	}
	rc := newReceiver(0)
	defer rc.srv.Close()
	w := newCrashWorld(t, 3)
	w.notifyHook("placed, not_placed, settled, summary, run_failed")
	hook := "HOOK=" + rc.srv.URL + secretPath

	run := func(crashAt string) (string, bool) {
		cmd := w.betplan(crashAt)
		cmd.Env = append(cmd.Env, hook)
		out, err := cmd.CombinedOutput()
		if killedBySIGKILL(err) {
			return string(out), true
		}
		return string(out), false
	}
	// The first run creates the bets and dies right after its summary
	// was taken, before its journal said so.
	out, killed := run("alert-posted:1")
	require.True(t, killed, "killed after the first alert was taken: %s", out)
	require.Len(t, rc.received(), 1, "the first alert reached the receiver")
	assert.Equal(t, "summary", rc.received()[0]["event"])
	first := rc.received()[0]["id"].(string)

	// The simulated bots take the bets up 3 seconds after their create:
	// the second run sees them placed, and dies right after announcing
	// its first attempt, before it went out.
	w.waitPlaced(w.bets)
	out, killed = run("alert-sending:1")
	require.True(t, killed, "killed after announcing an attempt: %s", out)
	require.Len(t, rc.received(), 1, "nothing went out after the announcement")

	out, killed = run("")
	require.False(t, killed, out)
	rep := readReport(t, filepath.Join(w.dir, "report"))
	// The first run's summary: the second run found its attempt without
	// an outcome and never repeated it (its report was never written).
	// The second run's first attempt: the last run reports it, and never
	// sends it.
	require.Len(t, rep.Undelivered, 1, "%+v", rep.Undelivered)
	assert.Equal(t, "outcome unknown", rep.Undelivered[0].Outcome)
	assert.Equal(t, "placed", rep.Undelivered[0].Event)
	lost := rep.Undelivered[0].Bet

	seen := map[string]int{}
	placed := map[string]int{}
	for _, b := range rc.received() {
		seen[b["id"].(string)]++
		if b["event"] == "placed" {
			placed[b["instance"].(string)]++
		}
	}
	for id, n := range seen {
		assert.Equal(t, 1, n, "alert %s arrived %d times", id, n)
	}
	assert.Equal(t, 1, seen[first])
	for i := range w.bets {
		bet := fmt.Sprintf("bet-%d", i)
		if bet == lost {
			assert.Zero(t, placed[bet], "the attempt announced before the kill is never made")
		} else {
			assert.Equal(t, 1, placed[bet], "placed %s, once", bet)
		}
	}
	assertNoSecret(t, "s3cr3t", []string{out}, w.dir)
}

// TestHeartbeatWithTheExitStatus runs a plan for real (on a simulated
// service over loopback): its heartbeat is requested once at the end, with
// the exit status, whether the run succeeds or is refused.
func TestHeartbeatWithTheExitStatus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc := newReceiver(0)
	defer rc.srv.Close()
	w := newCrashWorld(t, 2)
	src, err := os.ReadFile(w.plan)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(w.plan, append(src, "heartbeat: ${PING}\n"...), 0o644))
	ping := "PING=" + rc.srv.URL + "/ping/hc-s3cr3t"

	cmd := w.betplan("")
	cmd.Env = append(cmd.Env, ping)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, []string{"POST /ping/hc-s3cr3t/0"}, rc.paths)

	// The second bet no longer fits the total limit: refused, exit 3.
	w2 := newCrashWorld(t, 2)
	src, err = os.ReadFile(w2.plan)
	require.NoError(t, err)
	tight := strings.Replace(string(src), "max_total_stake: 500", "max_total_stake: 3", 1)
	tight = strings.ReplaceAll(tight, "stake: 2\n", "stake: vars.unit + 0 * plan.bets\n") + "vars: {unit: 2}\nheartbeat: ${PING}\n"
	require.NoError(t, os.WriteFile(w2.plan, []byte(tight), 0o644))
	cmd = w2.betplan("")
	cmd.Env = append(cmd.Env, ping)
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, exitRefused, ee.ExitCode(), "%s", out)
	assert.Equal(t, []string{"POST /ping/hc-s3cr3t/0", "POST /ping/hc-s3cr3t/3"}, rc.paths)
	assert.NotContains(t, string(out), "s3cr3t")
}

// A loss cap refuses every bet after it: it is told once, as no new bets
// in its period, not once for every bet it refused.
func TestAlertsStopLossOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc := newReceiver(0)
	defer rc.srv.Close()
	dir := t.TempDir()
	src, err := os.ReadFile("examples/stop-for-the-day.yaml")
	require.NoError(t, err)
	p := strings.Replace(string(src), " && plan.lowest_profit > -50 && plan.won < 3", "", 1)
	p = strings.Replace(p, "max_loss: 50", "max_loss: 20", 1)
	p = strings.Replace(p, "\nbets:\n", "\nnotify:\n  - url: ${HOOK}\n    on: [limit]\nbets:\n", 1)
	path := filepath.Join(dir, "stop.yaml")
	require.NoError(t, os.WriteFile(path, []byte(p), 0o644))
	_, stderr, code, rep := rc.rehearse(t, dir, path, "--sim-start", "2026-11-28T00:42:00Z")
	assert.Equal(t, exitRefused, code, stderr)
	refused := 0
	for _, b := range rep.Bets {
		if strings.Contains(b.Reason, "refused by a limit: max_loss") {
			refused++
		}
	}
	require.Greater(t, refused, 1, "the stop-loss refused several bets")
	got := rc.received()
	require.Len(t, got, 1, "one alert for the stop")
	assert.Equal(t, "limit", got[0]["event"])
	assert.Contains(t, got[0]["message"], "no new bets for stop-for-the-day in day 2026-11-28: max_loss $20.00: if every open bet")
	assert.Contains(t, got[0]["message"], "; 0 bets still open, $0.00 at risk")
}

// A stop-loss reached ends the plan's day by its own rule: the bets of
// every later race are held back, the limit is told once (not once a
// race), nothing is a failure, and the run exits 0 with end reason limit.
func TestStopLossSaidOnceExitsZero(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc := newReceiver(0)
	defer rc.srv.Close()
	dir := t.TempDir()
	src, err := os.ReadFile("examples/stop-for-the-day.yaml")
	require.NoError(t, err)
	p := strings.Replace(string(src), " && plan.lowest_profit > -50 && plan.profit - plan.open_stake >= -40 && plan.won < 3", "", 1)
	p = strings.Replace(p, "max_loss: 50", "max_loss: 500\n  stop_loss: 5", 1)
	p = strings.Replace(p, "\nbets:\n", "\nnotify:\n  - url: ${HOOK}\n    on: [limit, run_failed]\nbets:\n", 1)
	path := filepath.Join(dir, "stop.yaml")
	require.NoError(t, os.WriteFile(path, []byte(p), 0o644))
	_, stderr, code, rep := rc.rehearse(t, dir, path, "--sim-start", "2026-11-28T00:42:00Z")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "limit", rep.EndReason)
	held := 0
	for _, b := range rep.Bets {
		if b.ReasonCode == "stop" {
			held++
			assert.Contains(t, b.Reason, "refused by a limit: stop_loss $5.00")
		}
	}
	require.GreaterOrEqual(t, held, 5, "the stop-loss held back the bets of five races or more")
	got := rc.received()
	require.Len(t, got, 1, "one alert for the stop, none for a failure")
	assert.Equal(t, "limit", got[0]["event"])
	assert.Regexp(t, `^no new bets for stop-for-the-day in day 2026-11-28: stop_loss \$5\.00: the settled profit reached -\$\d+\.00 \(it is -\$\d+\.00 now\), at or below -\$5\.00; 0 bets still open, \$0\.00 at risk$`, got[0]["message"])
}

// A target added to a plan that already has bets hears what they do from
// then on, not everything they did before it was added.
func TestAlertsAddedTargetHearsWhatComesNext(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	rc := newReceiver(0)
	defer rc.srv.Close()
	w := newCrashWorld(t, 2)
	out, err := w.betplan("").CombinedOutput()
	require.NoError(t, err, "%s", out)
	// The simulated bots take the bets up 3 seconds after their create.
	w.waitPlaced(w.bets)

	w.notifyHook("placed, not_placed, settled, summary")
	cmd := w.betplan("")
	cmd.Env = append(cmd.Env, "HOOK="+rc.srv.URL+secretPath)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var events []string
	for _, b := range rc.received() {
		events = append(events, b["event"].(string))
	}
	assert.Empty(t, events, "the bets' earlier events are not sent to the new target, and a cron run with nothing new sends no summary")
	journals, _ := filepath.Glob(filepath.Join(w.dir, "state", "*.journal.jsonl"))
	require.Len(t, journals, 1)
	journal, err := os.ReadFile(journals[0])
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(journal), `"op":"alert_skipped"`), "both bets were placed before the target was added")
}

func TestHeartbeatURLForEachService(t *testing.T) {
	for _, tt := range []struct {
		hb   string
		code int
		want string
	}{
		{"https://hc-ping.com/5f2c", 0, "https://hc-ping.com/5f2c/0"},
		{"https://hc-ping.com/5f2c/", 3, "https://hc-ping.com/5f2c/3"},
		{"https://hc-ping.com/ping/key/slug?create=1", 1, "https://hc-ping.com/ping/key/slug/1?create=1"},
		{"https://cronitor.link/p/KEY/nightly", 0, "https://cronitor.link/p/KEY/nightly?state=complete&status_code=0"},
		{"https://cronitor.link/p/KEY/nightly?env=prod", 3, "https://cronitor.link/p/KEY/nightly?env=prod&state=fail&status_code=3"},
	} {
		got, err := heartbeatURLFor(tt.hb, tt.code)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%s exit %d", tt.hb, tt.code)
	}
}
