package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
)

// serveWorld is a simulated service served over loopback, outliving the
// serving processes a test starts, and a folder of plans.
type serveWorld struct {
	t     *testing.T
	svc   *sim.Service
	url   string
	dir   string // the test's own: plans/, state/, cache/
	plans string
	env   []string
}

// newServeWorld serves a simulated world whose clock runs speed times
// faster than the wall clock (1: real speed).
func newServeWorld(t *testing.T, speed float64) *serveWorld {
	var clock sim.Clock = sim.RealClock()
	if speed != 1 {
		// Ten in the morning at the venues: a fast card never runs into
		// the next meeting day, whatever the hour here.
		aedt := time.FixedZone("AEDT", 11*3600)
		y, m, d := time.Now().In(aedt).Date()
		clock = sim.NewScaledClock(time.Date(y, m, d, 10, 0, 0, 0, aedt), speed)
	}
	svc := sim.New(sim.Options{Seed: 5, Clock: clock, ResultDelay: time.Minute})
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	w := &serveWorld{t: t, svc: svc, url: srv.URL, dir: dir, plans: filepath.Join(dir, "plans")}
	require.NoError(t, os.MkdirAll(w.plans, 0o755))
	w.env = []string{
		"BETPLAN_TEST_EXEC_MAIN=1",
		"GORACE=atexit_sleep_ms=10",
		"BETPLAN_BASE_URL=" + srv.URL,
		"BETPLAN_TOKEN=" + svc.Token(),
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "BETPLAN_STATE=", "BETPLAN_CONFIG=", "BETPLAN_SERVE_TOKEN=",
		"GITHUB_STEP_SUMMARY=", "CI=",
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
	}
	return w
}

// race is the n-th race to start, of those starting at least after
// from now by the service's clock.
func (w *serveWorld) race(after time.Duration, n int) sim.RaceInfo {
	w.t.Helper()
	var got []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if r.Start.After(w.now().Add(after)) {
			got = append(got, r)
		}
	}
	require.Greater(w.t, len(got), n)
	sort.SliceStable(got, func(i, j int) bool { return got[i].Start.Before(got[j].Start) })
	return got[n]
}

// now is the service's clock.
func (w *serveWorld) now() time.Time { return w.svc.Clock().Now() }

// writePlan writes a plan file of the folder.
func (w *serveWorld) writePlan(name, yaml string) string {
	w.t.Helper()
	path := filepath.Join(w.plans, name+".yaml")
	require.NoError(w.t, os.WriteFile(path+".tmp", []byte(yaml), 0o644))
	require.NoError(w.t, os.Rename(path+".tmp", path))
	return path
}

// namedPlan bets stake on race r's first runner once window minutes are
// left; extra goes at the top level.
func namedPlan(name string, r sim.RaceInfo, stake float64, window int, extra string) string {
	return fmt.Sprintf(`version: 1
name: %s
defaults: {market: Fixed Win, type: Fixed Wager}
limits: {max_bets: 10, max_total_stake: 100}
poll: {interval: 5s, timeout: 2h}
%sbets:
  - id: one
    race: {venue: %q, code: %s, event_number: %d}
    selection: %q
    stake: %g
    when: race.minutes_to_start <= %d
`, name, extra, r.Venue, r.Code, r.EventNumber, r.Runners[0], stake, window)
}

// serveProc is a `betplan serve` process: the real binary (this test
// binary in main mode).
type serveProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan struct{}
	err  error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// betplan runs a command of the real binary to its end.
func (w *serveWorld) betplan(env []string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	exe, err := os.Executable()
	require.NoError(w.t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), w.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(w.t, err)
	}
	return out.String(), errb.String(), code
}

// serve starts `betplan serve` with args and env beside the world's.
func (w *serveWorld) serve(env []string, args ...string) *serveProc {
	w.t.Helper()
	return w.start(env, append([]string{"serve"}, args...)...)
}

// start starts a command of the real binary in the background.
func (w *serveWorld) start(env []string, args ...string) *serveProc {
	w.t.Helper()
	exe, err := os.Executable()
	require.NoError(w.t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), w.env...), env...)
	p := &serveProc{t: w.t, cmd: cmd, log: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	require.NoError(w.t, cmd.Start())
	go func() { p.err = cmd.Wait(); close(p.done) }()
	w.t.Cleanup(func() {
		if p.running() {
			cmd.Process.Kill()
			<-p.done
		}
		if w.t.Failed() {
			w.t.Logf("%s pid %d said:\n%s", args[0], cmd.Process.Pid, p.log.String())
		}
	})
	return p
}

func (p *serveProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// exit waits for the process to end and returns its exit code.
func (p *serveProc) exit(within time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(within):
		p.t.Fatalf("serve did not exit within %s:\n%s", within, p.log.String())
	}
	if p.err == nil {
		return 0
	}
	ee, ok := p.err.(*exec.ExitError)
	require.True(p.t, ok, "%v", p.err)
	return ee.ExitCode()
}

var listenLine = regexp.MustCompile(`/status on http://([^;\s]+);`)

// addr is where the process serves /healthz and the rest, once it says.
func (p *serveProc) addr() string {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenLine.FindStringSubmatch(p.log.String()); m != nil {
			host, port, _ := strings.Cut(m[1], ":")
			if host == "0.0.0.0" || host == "[::]" {
				host = "127.0.0.1"
			}
			return host + ":" + port
		}
		if !p.running() {
			p.t.Fatalf("serve exited before listening:\n%s", p.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("serve did not say where it listens:\n%s", p.log.String())
	return ""
}

// get requests path of the process's HTTP endpoints, with the bearer
// token when one is given.
func (p *serveProc) get(path, token string) (int, string) {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+p.addr()+path, nil)
	require.NoError(p.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	require.NoError(p.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(p.t, err)
	return resp.StatusCode, string(b)
}

// readiness reads /readyz.
func (p *serveProc) readiness() (int, readyz) {
	p.t.Helper()
	code, body := p.get("/readyz", "")
	var r readyz
	require.NoError(p.t, json.Unmarshal([]byte(body), &r), body)
	return code, r
}

type readyz struct {
	Ready   bool   `json:"ready"`
	Role    string `json:"role"`
	Fence   int64  `json:"fence"`
	Service string `json:"service"`
	Plans   []struct {
		Plan, File, Hash, State, Note string
	} `json:"plans"`
	Invalid []struct {
		File, Where, Problems string
	} `json:"invalid"`
}

// until waits up to d for ok, saying what it waited for.
func until(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metrics scrapes /metrics and parses it with Prometheus's text parser.
func (p *serveProc) metrics(token string) map[string]*dto.MetricFamily {
	p.t.Helper()
	code, body := p.get("/metrics", token)
	require.Equal(p.t, http.StatusOK, code, body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	require.NoError(p.t, err, "the metrics parse as Prometheus's text format")
	return fams
}

// metricValue is the value of the metric of fams named name whose labels
// include labels; ok false when there is none.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		}
	}
	return 0, false
}

// journalEntries reads a plan's journal file below the state dir.
func journalEntries(t *testing.T, stateDir, plan string) []map[string]any {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(stateDir, plan+".*.journal.jsonl"))
	require.NoError(t, err)
	require.Len(t, paths, 1, "one journal of %s in %s", plan, stateDir)
	f, err := os.Open(paths[0])
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		out = append(out, e)
	}
	return out
}

// A serve listening off loopback without a token refuses to start,
// before anything else; with one, a request without it gets 401 and
// nothing else.
func TestServeOffLoopbackNeedsAToken(t *testing.T) {
	t.Parallel()
	w := newServeWorld(t, 1)
	w.writePlan("card", namedPlan("card", w.race(time.Hour, 0), 5, 5, ""))

	_, stderr, code := w.betplan([]string{"BETPLAN_BASE_URL=http://127.0.0.1:1"}, "serve", "--yes", "--listen", "0.0.0.0:0", "--state", filepath.Join(w.dir, "state"), w.plans)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "--listen 0.0.0.0:0 is not a loopback address")
	assert.Contains(t, stderr, "BETPLAN_SERVE_TOKEN")

	const token = "s3cret-token-of-the-test"
	tokenFile := filepath.Join(w.dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(token+"\n"), 0o600))
	for _, how := range []struct {
		name string
		env  []string
		args []string
	}{
		{"environment", []string{"BETPLAN_SERVE_TOKEN=" + token}, nil},
		{"file", nil, []string{"--listen-token-file", tokenFile}},
	} {
		t.Run(how.name, func(t *testing.T) {
			p := w.serve(how.env, append([]string{"--yes", "--listen", "0.0.0.0:0", "--state", filepath.Join(w.dir, "state-"+how.name), w.plans}, how.args...)...)
			for _, path := range []string{"/healthz", "/readyz", "/metrics", "/status", "/nothing"} {
				for _, bad := range []string{"", "wrong", token + "x"} {
					code, body := p.get(path, bad)
					assert.Equal(t, http.StatusUnauthorized, code, "%s with %q", path, bad)
					assert.Empty(t, body, "a 401 says nothing else")
				}
			}
			code, body := p.get("/healthz", token)
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, "ok\n", body)
			fams := p.metrics(token)
			_, ok := metricValue(fams, "betplan_leader", nil)
			assert.True(t, ok, "the metrics are served with the token")
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			assert.Equal(t, 143, p.exit(10*time.Second), "SIGTERM ends serve with 143")
		})
	}
}

// alertSink is a webhook on loopback that keeps the alerts it is sent.
type alertSink struct {
	mu     sync.Mutex
	events []map[string]any
	url    string
}

func newAlertSink(t *testing.T) *alertSink {
	s := &alertSink{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &m) == nil {
			s.mu.Lock()
			s.events = append(s.events, m)
			s.mu.Unlock()
		}
		rw.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// of are the alerts of event received so far.
func (s *alertSink) of(event string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, m := range s.events {
		if m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}

// An edit that breaks a plan keeps its last valid version running:
// /readyz says so with the file's line and column, one plan_invalid alert
// is sent (however often the folder is read again), the old version still
// creates its bet when the window opens, and a fix is picked up without
// a restart, journalled with the new version's hash.
func TestServeKeepsTheLastValidPlanThroughABrokenEdit(t *testing.T) {
	t.Parallel()
	w := newServeWorld(t, 60)
	sink := newAlertSink(t)
	r := w.race(20*time.Minute, 0)
	notify := fmt.Sprintf("notify:\n  - url: %s\n", sink.url)
	good := namedPlan("card", r, 5, 8, notify)
	path := w.writePlan("card", good)
	state := filepath.Join(w.dir, "state")
	p := w.serve(nil, "--yes", "--listen", "127.0.0.1:0", "--state", state, "--rescan", "1s", w.plans)
	until(t, 20*time.Second, "serve to lead and run the plan", func() bool {
		code, rd := p.readiness()
		return code == http.StatusOK && rd.Role == "leader" && len(rd.Plans) == 1 && rd.Plans[0].State == "running"
	})
	_, rd := p.readiness()
	oldHash := rd.Plans[0].Hash

	// The stake becomes a word: line 12, column 12 of the file.
	broken := strings.Replace(good, "stake: 5", "stake: five", 1)
	require.NotEqual(t, good, broken)
	w.writePlan("card", broken)
	rel := path
	until(t, 10*time.Second, "/readyz to say the plan is invalid", func() bool {
		code, rd := p.readiness()
		return code == http.StatusServiceUnavailable && len(rd.Invalid) == 1
	})
	_, rd = p.readiness()
	assert.Equal(t, rel+":12:12", rd.Invalid[0].Where, "the file's line and column")
	assert.Contains(t, rd.Invalid[0].Problems, "stake must be a number")
	assert.Equal(t, "running", rd.Plans[0].State, "the last valid version keeps running")
	assert.Equal(t, oldHash, rd.Plans[0].Hash)
	until(t, 15*time.Second, "the plan_invalid alert", func() bool { return len(sink.of("plan_invalid")) > 0 })
	alert := sink.of("plan_invalid")[0]
	assert.Contains(t, alert["message"], rel+":12:12")
	assert.Equal(t, "card", alert["plan"])
	for range 2 {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP)) // read the folder again, at once
		time.Sleep(1500 * time.Millisecond)
	}
	assert.Len(t, sink.of("plan_invalid"), 1, "one alert per broken version")

	// The old version creates its bet when the window opens.
	until(t, 60*time.Second, "the bet created by the last valid version", func() bool { return w.svc.NotificationCount() == 1 })

	fixed := strings.Replace(good, "max_bets: 10", "max_bets: 9", 1)
	w.writePlan("card", fixed)
	until(t, 10*time.Second, "/readyz to recover without a restart", func() bool {
		code, rd := p.readiness()
		return code == http.StatusOK && len(rd.Invalid) == 0 && rd.Plans[0].Hash != oldHash && rd.Plans[0].State == "running"
	})
	_, rd = p.readiness()
	newHash := rd.Plans[0].Hash
	until(t, 10*time.Second, "the reload journalled", func() bool {
		for _, e := range journalEntries(t, state, "card") {
			if e["op"] == "served" && e["why"] == "reload" && e["plan_hash"] == newHash {
				return true
			}
		}
		return false
	})
	var served []string
	for _, e := range journalEntries(t, state, "card") {
		if e["op"] == "served" {
			served = append(served, fmt.Sprint(e["why"], " ", e["plan_hash"]))
		}
	}
	assert.Equal(t, []string{"start " + oldHash, "reload " + newHash}, served, "each version journalled with its hash")
	assert.Equal(t, 1, w.svc.NotificationCount(), "the reload created nothing twice")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, p.exit(10*time.Second))
}

// /metrics parses with Prometheus's text parser, and its bets and money
// are status --format json's at the same moment.
func TestServeMetricsAreTheStatusFigures(t *testing.T) {
	t.Parallel()
	w := newServeWorld(t, 60)
	a, b := w.race(6*time.Minute, 0), w.race(6*time.Minute, 2)
	w.writePlan("first", namedPlan("first", a, 5, 3, ""))
	w.writePlan("second", namedPlan("second", b, 7, 3, ""))
	state := filepath.Join(w.dir, "state")
	p := w.serve(nil, "--yes", "--listen", "127.0.0.1:0", "--state", state, w.plans)
	began := time.Now()
	until(t, 90*time.Second, "both bets settled", func() bool {
		fams := p.metrics("")
		n, _ := metricValue(fams, "betplan_account_bets", map[string]string{"status": "settled"})
		return n == 2
	})
	t.Logf("both bets settled after %v", time.Since(began).Round(time.Second))
	// The service changes nothing more: the two read the same moment.
	fams := p.metrics("")
	stdout, stderr, code := w.betplan(nil, "status", "--format", "json", "--state-dir", state, w.plans)
	require.Equal(t, 0, code, stderr)
	t.Logf("status read after %v", time.Since(began).Round(time.Second))
	var status struct {
		Plans []struct {
			Name   string
			Totals map[string]any
		}
		Account map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &status), stdout)
	require.Len(t, status.Plans, 2)
	money := map[string]string{
		"stake_requested": "betplan_staked_dollars", "at_risk": "betplan_at_risk_dollars",
		"amount_accepted": "betplan_accepted_dollars", "profit": "betplan_profit_dollars",
	}
	for _, pl := range status.Plans {
		for field, metric := range money {
			v, ok := metricValue(fams, metric, map[string]string{"plan": pl.Name})
			require.True(t, ok, "%s{plan=%s}", metric, pl.Name)
			assert.Equal(t, pl.Totals[field], v, "%s of %s", field, pl.Name)
		}
		for st, n := range pl.Totals["by_status"].(map[string]any) {
			v, ok := metricValue(fams, "betplan_bets", map[string]string{"plan": pl.Name, "status": st})
			require.True(t, ok)
			assert.Equal(t, n, v, "%s bets of %s", st, pl.Name)
		}
		v, _ := metricValue(fams, "betplan_bets_open", map[string]string{"plan": pl.Name})
		assert.Equal(t, pl.Totals["open"], v)
	}
	for field, metric := range money {
		v, ok := metricValue(fams, strings.Replace(metric, "betplan_", "betplan_account_", 1), nil)
		require.True(t, ok)
		assert.Equal(t, status.Account[field], v, "the account's %s", field)
	}
	for st, n := range status.Account["by_status"].(map[string]any) {
		v, _ := metricValue(fams, "betplan_account_bets", map[string]string{"status": st})
		assert.Equal(t, n, v, "the account's %s bets", st)
	}
	assert.NotZero(t, status.Account["at_risk"], "the figures compared are not all zero")

	// /status is the same summary.
	code, body := p.get("/status", "")
	require.Equal(t, http.StatusOK, code)
	var served struct {
		Account map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(body), &served))
	assert.Equal(t, status.Account, served.Account)
	lead, _ := metricValue(fams, "betplan_leader", nil)
	assert.Equal(t, 1.0, lead)
	reqs, ok := metricValue(fams, "betplan_requests_total", map[string]string{"endpoint": "POST /notification/create/", "code": "200"})
	assert.True(t, ok)
	assert.Equal(t, 2.0, reqs, "the creates, by endpoint and status")
	h := fams["betplan_outcome_seen_seconds"]
	require.NotNil(t, h)
	assert.EqualValues(t, 2, h.Metric[0].Histogram.GetSampleCount(), "each outcome seen once")
}

// The examples of serve name what serve does: the systemd unit counts
// SIGTERM's 143 as a success, the compose replicas name serve (the
// image's default command stays help), and every metric the Grafana
// dashboard and the Prometheus config read is one serve exports.
func TestServeExamplesNameWhatServeDoes(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("examples", "serve", name))
		require.NoError(t, err)
		return string(b)
	}
	assert.Contains(t, read("betplan-serve.service"), "\nSuccessExitStatus=143\n")
	assert.Contains(t, read("betplan-serve.service"), "ExecStart=/usr/local/bin/betplan serve ")
	compose := read("compose.yaml")
	assert.Contains(t, compose, `command: ["serve", "--yes"`)
	assert.Equal(t, 2, strings.Count(compose, "<<: *serve"), "two replicas")
	df, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	assert.Contains(t, string(df), `CMD ["help"]`, "a bare docker run never serves")

	src, err := os.ReadFile(filepath.Join("serve", "metrics.go"))
	require.NoError(t, err)
	name := regexp.MustCompile(`betplan_[a-z_]+`)
	defined := map[string]bool{}
	for _, n := range name.FindAllString(string(src), -1) {
		defined[n] = true
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(read("grafana-dashboard.json")), &dash))
	require.NotEmpty(t, dash.Panels)
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, p.Title)
		for _, tg := range p.Targets {
			for _, n := range name.FindAllString(tg.Expr, -1) {
				n = strings.TrimSuffix(n, "_bucket")
				assert.True(t, defined[n], "panel %q reads %s, which serve does not export", p.Title, n)
			}
		}
	}
	for _, n := range name.FindAllString(read("prometheus.yml"), -1) {
		assert.True(t, defined[n], "prometheus.yml names %s, which serve does not export", n)
	}
}

// run from cron and serve share one state without a bet twice: a plan
// whose lock a run holds is waited for, never taken from it, and taken
// once the run lets it go; a run from cron while serve leads is refused
// by the lock, which names serve.
func TestServeAndCronShareOneState(t *testing.T) {
	t.Parallel()
	w := newServeWorld(t, 10)
	r := w.race(9*time.Minute, 0)
	path := w.writePlan("card", namedPlan("card", r, 5, 8, ""))
	state := filepath.Join(w.dir, "state")
	pause := t.TempDir()
	until(t, 60*time.Second, "the bet's window", func() bool { return w.now().After(r.Start.Add(-7 * time.Minute)) })

	// A run from cron, stopped between announcing its create and
	// sending it: it holds the plan's lock.
	cron := w.start([]string{pauseEnv + "=creating", pauseDirEnv + "=" + pause}, "run", "--yes", "--no-wait", "--state-dir", state, path)
	until(t, 20*time.Second, "the run to stop at its create", func() bool {
		_, err := os.Stat(filepath.Join(pause, "paused"))
		return err == nil
	})
	p := w.serve(nil, "--yes", "--listen", "127.0.0.1:0", "--state", state, w.plans)
	until(t, 20*time.Second, "serve to lead and find the plan's lock held", func() bool {
		_, rd := p.readiness()
		return rd.Role == "leader" && len(rd.Plans) == 1 && strings.Contains(rd.Plans[0].Note, "betplan run")
	})
	_, rd := p.readiness()
	assert.Equal(t, "starting", rd.Plans[0].State, "the plan waits for the run")
	time.Sleep(2 * time.Second)
	require.NoError(t, os.WriteFile(filepath.Join(pause, "resume"), nil, 0o644))
	assert.Equal(t, 0, cron.exit(30*time.Second), "the run kept its lock: its create and record went through")
	assert.Equal(t, 1, w.svc.NotificationCount())

	until(t, 45*time.Second, "serve to take the plan once the run let it go", func() bool {
		_, rd := p.readiness()
		return rd.Plans[0].State == "running"
	})
	time.Sleep(3 * time.Second) // a few of its ticks
	assert.Equal(t, 1, w.svc.NotificationCount(), "serve found the bet the run made: nothing twice")

	_, stderr, code := w.betplan(nil, "run", "--yes", "--no-wait", "--state-dir", state, path)
	assert.Equal(t, exitRefused, code, stderr)
	assert.Contains(t, stderr, "betplan serve", "the refusal names who holds the lock")
	assert.Equal(t, 1, w.svc.NotificationCount())
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, p.exit(10*time.Second))
}

// betplan stop works against a serving account as against a run: the
// stop mark, read before every create, keeps the plan's bet from being
// created while the serving process runs it; stop --resume lets it
// create again, without a restart.
func TestServeHonoursTheStopMark(t *testing.T) {
	t.Parallel()
	w := newServeWorld(t, 10)
	r := w.race(15*time.Minute, 0)
	path := w.writePlan("card", namedPlan("card", r, 5, 12, ""))
	state := filepath.Join(w.dir, "state")
	p := w.serve(nil, "--yes", "--listen", "127.0.0.1:0", "--state", state, w.plans)
	until(t, 20*time.Second, "serve to run the plan", func() bool {
		_, rd := p.readiness()
		return rd.Role == "leader" && len(rd.Plans) == 1 && rd.Plans[0].State == "running"
	})
	_, stderr, code := w.betplan(nil, "stop", "--yes", "--wait", "1m", "--state-dir", state, path)
	require.Equal(t, 0, code, stderr)
	until(t, 60*time.Second, "the bet's window open a while", func() bool { return w.now().After(r.Start.Add(-10 * time.Minute)) })
	assert.Zero(t, w.svc.NotificationCount(), "a stopped plan creates nothing, served or not")
	assert.True(t, p.running())

	_, stderr, code = w.betplan(nil, "stop", "--resume", "--state-dir", state, path)
	require.Equal(t, 0, code, stderr)
	until(t, 60*time.Second, "the bet created once resumed", func() bool { return w.svc.NotificationCount() == 1 })
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 143, p.exit(10*time.Second))
}
