package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// chaosEnv turns the take-over test on: it runs for minutes at the
// service's real speed, so it is a CI step of its own (.ci/run), not part
// of make test.
const chaosEnv = "BETPLAN_TEST_SERVE_CHAOS"

// seen is a request a serving process sent, as its proxy saw it.
type seen struct {
	At     time.Time
	Method string
	Path   string
	Label  string // a create's
}

// proxy stands between one slot's serving processes and the simulated
// service, on its own loopback address (127.0.0.x, one port for all: the
// service's identity is one), and keeps what they sent.
type proxy struct {
	url  string
	mu   sync.Mutex
	reqs []seen
}

func (p *proxy) sent() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.reqs...)
}

// newProxies serves one proxy per host to target, all on one port.
func newProxies(t *testing.T, target string, hosts ...string) []*proxy {
	u, err := url.Parse(target)
	require.NoError(t, err)
	var port string
	var out []*proxy
	for _, host := range hosts {
		addr := net.JoinHostPort(host, "0")
		if port != "" {
			addr = net.JoinHostPort(host, port)
		}
		ln, err := net.Listen("tcp", addr)
		require.NoError(t, err)
		_, port, _ = net.SplitHostPort(ln.Addr().String())
		p := &proxy{url: "http://" + ln.Addr().String()}
		rp := httputil.NewSingleHostReverseProxy(u)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s := seen{At: time.Now(), Method: r.Method, Path: r.URL.Path}
			if r.Method == http.MethodPost && r.URL.Path == "/notification/create/" {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				var body struct{ Label string }
				json.Unmarshal(b, &body)
				s.Label = body.Label
			}
			p.mu.Lock()
			p.reqs = append(p.reqs, s)
			p.mu.Unlock()
			rp.ServeHTTP(w, r)
		})}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		out = append(out, p)
	}
	return out
}

// On the simulated service at real speed, two serving processes on one
// PostgreSQL: the leader is SIGKILLed twice (once at a random moment,
// once between sending a create and journalling its answer) and
// SIGSTOPped past its lease, then continued. Every bet is created exactly
// once, no window is missed by more than the take-over bound, every
// outcome is seen, the paused leader sends nothing after waking, and the
// hand-overs are in the journal and the metrics.
func TestServeTakeOverAtRealSpeed(t *testing.T) {
	if os.Getenv(chaosEnv) == "" {
		t.Skipf("runs for about eight minutes at the service's real speed: set %s=1 (CI runs it as a step of its own)", chaosEnv)
	}
	stateURL, schema := pgtest.Schema(t)
	const takeover = 30 * time.Second // the default bound
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	t.Logf("seed %d", seed)

	w := newServeWorld(t, 1)
	proxies := newProxies(t, w.url, "127.0.0.2", "127.0.0.3")
	pa, pb := proxies[0], proxies[1]

	// Four races a minute and a half apart, each bet a minute before its
	// start.
	t0 := time.Now()
	picked := map[string]bool{}
	var races []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if len(races) == 4 || !r.Start.After(t0.Add(20*time.Minute)) || picked[r.Venue] {
			continue
		}
		picked[r.Venue] = true
		races = append(races, r)
	}
	require.Len(t, races, 4)
	var bets string
	windows := make([]time.Time, 4)
	for i := range races {
		start := t0.Add(time.Duration(90*(i+1)) * time.Second).Truncate(time.Second)
		require.True(t, w.svc.MoveStart(races[i], start))
		races[i].Start = start
		windows[i] = start.Add(-time.Minute)
		bets += fmt.Sprintf("  - id: bet%d\n    race: {venue: %q, code: %s, event_number: %d}\n    selection: %q\n    stake: %d\n",
			i+1, races[i].Venue, races[i].Code, races[i].EventNumber, races[i].Runners[0], i+2)
	}
	w.writePlan("card", `version: 1
name: card
defaults: {market: Fixed Win, type: Fixed Wager, when: race.minutes_to_start <= 1}
limits: {max_bets: 10, max_total_stake: 100}
poll: {interval: 5s, timeout: 2h}
bets:
`+bets)

	args := []string{"--yes", "--listen", "127.0.0.1:0", "--state", stateURL, "--takeover", takeover.String(), w.plans}
	start := func(p *proxy, env ...string) *serveProc {
		return w.serve(append([]string{"BETPLAN_BASE_URL=" + p.url}, env...), args...)
	}
	leads := func(p *serveProc) bool {
		if !p.running() {
			return false
		}
		_, rd := p.readiness()
		return rd.Role == "leader"
	}
	a := start(pa)
	until(t, 20*time.Second, "A to lead", func() bool { return leads(a) })
	b := start(pb, crashEnv+"=posted:1") // B dies as its first create is answered
	until(t, 20*time.Second, "B to stand by", func() bool { _, rd := b.readiness(); return rd.Role == "standby" })

	// 1. A creates bet 1, then is killed at a random moment.
	until(t, 90*time.Second, "bet 1", func() bool { return w.svc.NotificationCount() == 1 })
	kill1 := windows[0].Add(15*time.Second + time.Duration(rng.Int64N(int64(30*time.Second))))
	time.Sleep(time.Until(kill1))
	require.NoError(t, a.cmd.Process.Kill())
	killed1 := time.Now()
	a.exit(5 * time.Second)
	until(t, takeover+10*time.Second, "B to take over", func() bool { return leads(b) })
	t.Logf("take-over 1 (SIGKILL at a random moment): %v", time.Since(killed1))
	a = start(pa) // restarted once B leads: it stands by
	until(t, 20*time.Second, "A to stand by", func() bool { _, rd := a.readiness(); return rd.Role == "standby" })

	// 2. B creates bet 2 and dies between the create's answer and its
	// journal entry; A takes over and finds the bet by its label.
	until(t, 3*time.Minute, "B killed at its create", func() bool { return !b.running() })
	killed2 := time.Now()
	assert.True(t, killedBySIGKILL(b.err), "B killed itself at the checkpoint: %v", b.err)
	until(t, takeover+10*time.Second, "A to take over", func() bool { return leads(a) })
	t.Logf("take-over 2 (SIGKILL between a create and its journal entry): %v", time.Since(killed2))
	b = start(pb)
	until(t, 20*time.Second, "B to stand by", func() bool { _, rd := b.readiness(); return rd.Role == "standby" })

	// 3. A is stopped past its lease a little before window 3 opens, and
	// continued once B has taken over.
	time.Sleep(time.Until(windows[2].Add(-5 * time.Second)))
	require.True(t, leads(a), "A leads as it is stopped")
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGSTOP))
	stopped := time.Now()
	until(t, takeover+10*time.Second, "B to take over from the stopped A", func() bool { return leads(b) })
	t.Logf("take-over 3 (SIGSTOP): %v", time.Since(stopped))
	time.Sleep(time.Until(stopped.Add(takeover + 15*time.Second)))
	require.NoError(t, a.cmd.Process.Signal(syscall.SIGCONT))
	woke := time.Now()

	// Every bet, every outcome.
	until(t, time.Until(races[3].Start.Add(4*time.Minute)), "every outcome seen", func() bool {
		fams := b.metrics("")
		n, _ := metricValue(fams, "betplan_account_bets", map[string]string{"status": "settled"})
		return n == 4
	})
	time.Sleep(3 * time.Second) // a woken A would have spoken by now

	assert.Equal(t, 4, w.svc.NotificationCount(), "four bets, no more")
	var creates []seen
	for _, p := range proxies {
		for _, s := range p.sent() {
			if s.Label != "" {
				creates = append(creates, s)
			}
		}
	}
	byLabel := map[string][]seen{}
	for _, c := range creates {
		byLabel[c.Label] = append(byLabel[c.Label], c)
	}
	require.Len(t, byLabel, 4, "a create per bet: %v", creates)
	for label, cs := range byLabel {
		assert.Len(t, cs, 1, "label %s was sent once", label)
		assert.Equal(t, 1, w.svc.NotificationsWithLabel(label), "label %s created once", label)
	}
	// Each bet's create against its window's opening (the service's
	// clock is the wall clock here).
	for i := range races {
		var at time.Time
		for _, c := range creates {
			// Labels read bp:<plan>:<bet>:<hash>.
			if strings.HasPrefix(c.Label, "bp:card:bet"+strconv.Itoa(i+1)+":") {
				at = c.At
			}
		}
		require.False(t, at.IsZero(), "bet %d created", i+1)
		late := at.Sub(windows[i])
		t.Logf("bet %d created %v after its window opened", i+1, late.Round(100*time.Millisecond))
		assert.Less(t, late, takeover, "bet %d: no window missed by more than the take-over bound", i+1)
	}
	for _, s := range pa.sent() {
		assert.False(t, s.At.After(woke), "the paused leader sent %s %s after waking", s.Method, s.Path)
	}
	require.True(t, a.running(), "the woken A stands by")
	_, rd := a.readiness()
	assert.Equal(t, "standby", rd.Role)

	// The hand-overs in the journal: each run's start under its fence,
	// each create announced under the fence of the run that sent it.
	entries := pgJournal(t, stateURL, schema)
	var fences []int64
	var why []string
	for _, e := range entries {
		if e["op"] == "served" {
			f := int64(e["fence"].(float64))
			if len(fences) == 0 || fences[len(fences)-1] != f {
				fences = append(fences, f)
				why = append(why, fmt.Sprint(e["why"]))
			}
		}
	}
	t.Logf("served under fences %v: %q", fences, why)
	assert.Equal(t, []int64{1, 2, 3, 4}, fences, "four terms: A, B, A, B")
	for _, e := range entries {
		if e["op"] == "creating" {
			assert.NotZero(t, e["fence"], "a create announced under a fence: %v", e)
		}
	}
	// And in the metrics.
	bf, af := b.metrics(""), a.metrics("")
	v, _ := metricValue(bf, "betplan_leader", nil)
	assert.Equal(t, 1.0, v, "B leads")
	v, _ = metricValue(bf, "betplan_leader_fence", nil)
	assert.Equal(t, 4.0, v)
	v, _ = metricValue(bf, "betplan_leader_terms_total", nil)
	assert.Equal(t, 1.0, v, "this B took the account over once")
	v, _ = metricValue(af, "betplan_leader", nil)
	assert.Equal(t, 0.0, v, "the woken A stands by")
	v, _ = metricValue(af, "betplan_leader_lost_total", nil)
	assert.Equal(t, 1.0, v, "and counts the term it lost")
	v, _ = metricValue(af, "betplan_leader_fence", nil)
	assert.Equal(t, 4.0, v, "it saw who took it")
	for _, p := range []*serveProc{a, b} {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
		assert.Equal(t, 143, p.exit(10*time.Second))
	}
}

// pgJournal reads the journal rows of the schema, in order.
func pgJournal(t *testing.T, stateURL, schema string) []map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, stateURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT entry::text FROM "+pgx.Identifier{schema, "journal"}.Sanitize()+" ORDER BY plan_id, serial")
	require.NoError(t, err)
	var out []map[string]any
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &e))
		out = append(out, e)
	}
	require.NoError(t, rows.Err())
	return out
}
