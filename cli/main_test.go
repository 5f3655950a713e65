package cli

import (
	"context"
	"errors"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/expr-lang/expr"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

func TestMain(m *testing.M) {
	// Crash tests start this test binary as the real betplan process.
	if os.Getenv("BETPLAN_TEST_EXEC_MAIN") == "1" {
		os.Exit(Main())
	}
	testscript.Main(ownCache{m}, map[string]func(){
		"betplan": func() { os.Exit(Main()) },
	})
}

// ownCache runs the tests from the repository's root, with the user's
// cache dir (plan locks, intent files) in a temporary dir of their own: a test that runs a command in
// this process never reads or leaves anything in the real one. Scripts
// and the processes tests start set their own.
type ownCache struct{ m *testing.M }

func (c ownCache) Run() int {
	// The tests read the repository's files (the examples, the docs, the
	// CI kit, install.sh, the shared fixtures under testdata/) by their
	// paths from its root, as a user types them there.
	if err := os.Chdir(".."); err != nil {
		return 1
	}
	dir, err := os.MkdirTemp("", "betplan-test-cache-")
	if err != nil {
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CACHE_HOME", dir)
	waitersParallel()
	return c.m.Run()
}

// rootParallel is how many of this package's parallel tests run at once
// unless -test.parallel says otherwise. Most of them (the scripts, the
// crash and terminal tests, the rehearsals) wait on the processes they
// start or on a sped-up service: at go test's default, the core count,
// the cores sat idle a third of the time. The engine's tests, busy on
// the CPU, keep the default.
const rootParallel = 8

// waitersParallel raises -test.parallel to rootParallel when it was not
// given.
func waitersParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !given {
		f.Value.Set(strconv.Itoa(max(rootParallel, runtime.GOMAXPROCS(0))))
	}
}

func TestScripts(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Condition:           scriptCondition,
		Setup: func(env *testscript.Env) error {
			// A developer's own credentials must never leak into a script,
			// nor may a script write a CI summary.
			for _, k := range []string{"BETPLAN_BASE_URL", "BETPLAN_TOKEN", "BETPLAN_EMAIL", "BETPLAN_PASSWORD", "BETPLAN_CONFIG", "GITHUB_STEP_SUMMARY", "CI"} {
				env.Setenv(k, "")
			}
			// Locks live in the user's cache dir and cached tokens in the
			// config dir: keep both inside the script's work dir.
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, "home", ".cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "home", ".config"))
			env.Setenv("BETPLAN_REPO", repo)
			env.Setenv("BETPLAN_EXAMPLES", filepath.Join(repo, "examples"))
			// Under -race every betplan process would sleep a second at exit
			// (the race runtime's default atexit_sleep_ms): dozens of execs
			// would double the suite's time. A race still fails the exec.
			if gorace := env.Getenv("GORACE"); !strings.Contains(gorace, "atexit_sleep_ms") {
				env.Setenv("GORACE", strings.TrimSpace(gorace+" atexit_sleep_ms=10"))
			}
			env.Values[scriptSimKey{}] = &scriptSim{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sim":        cmdSim,
			"simtls":     cmdSimTLS,
			"simcount":   cmdSimCount,
			"simcalls":   cmdSimCalls,
			"simeach":    cmdSimEach,
			"simreset":   cmdSimReset,
			"simrace":    cmdSimRace,
			"simresult":  cmdSimResult,
			"seenwithin": cmdSeenWithin,
			"simbots":    cmdSimBots,
			"simstate":   cmdSimState,
			"simfault":   cmdSimFault,
			"simwait":    cmdSimWait,
			"simwaitreq": cmdSimWaitReq,
			"simadvance": cmdSimAdvance,
			"samefield":  cmdSameField,
			"calc":       cmdCalc,
			"expandenv":  cmdExpandEnv,
			"exits":      cmdExits,
			"waitfile":   cmdWaitFile,
			"scratch":    cmdSimScratch,
			"simapart":   cmdSimApart,
			"receiver":   cmdReceiver,
			"okpage":     cmdOKPage,
			"received":   cmdReceived,
			"freeport":   cmdFreePort,
			"waitport":   cmdWaitPort,
			"journal":    cmdJournal,
			"oldjournal": cmdOldJournal,
			"csvfields":  cmdCSVFields,
			"pgjournal":  cmdPGJournal,
			"nocontrol":  cmdNoControl,
			"mdtable":    cmdMarkdownTable,
			"simheader":  cmdSimHeader,
			"simrewrite": cmdSimRewrite,
			"pgstate":    cmdPGState,
			"pgexec":     cmdPGExec,
		},
	})
}

// eventWait is how long a script's wait for an event (simwait, simwaitreq,
// waitfile) may last before it fails: the wait ends as soon as the event
// comes, so the bound costs nothing when it does, and a race binary started
// on a busy machine may take over ten seconds to get there.
const eventWait = 30 * time.Second

// scriptSim holds the simulated service one script started with `sim`,
// and the clock it runs on.
type scriptSim struct {
	svc      *sim.Service
	clock    *jumpClock
	receiver *receiver // a webhook receiver (alerts_test.go)
	resulted time.Time // wall time of the last simresult
	// header is set while the service says it is simulated
	// (apiclient.SimulatedHeader), as `betplan sim` serves it.
	header atomic.Bool
	// rewrites change every answer's body (simrewrite): a hostile service.
	mu       sync.Mutex
	rewrites []bodyRewrite
}

// bodyRewrite is one simrewrite: every match of re becomes to.
type bodyRewrite struct {
	re *regexp.Regexp
	to string
}

// jumpClock is the wall clock moved forward by every `simadvance`: a
// script reaches a race's result without waiting for it, and betplan
// follows the service's time from its Date headers.
type jumpClock struct {
	mu  sync.Mutex
	off time.Duration
}

// advance moves the clock on by d (back, for a negative d).
func (c *jumpClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *jumpClock) Sleep(ctx context.Context, d time.Duration) error {
	return apiclient.Sleep(ctx, d)
}

// cmdSameField is `samefield FILE1 FILE2 KEY`: the first "KEY": value
// of two JSON reports is present and the same (a time that must not move
// between two commands).
func cmdSameField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: samefield FILE1 FILE2 KEY")
	}
	field := func(name string) string {
		re := regexp.MustCompile(`"` + regexp.QuoteMeta(args[2]) + `": (.*)`)
		m := re.FindStringSubmatch(ts.ReadFile(name))
		if m == nil {
			ts.Fatalf("%s has no %q", name, args[2])
		}
		return strings.TrimSuffix(m[1], ",")
	}
	a, b := field(args[0]), field(args[1])
	ts.Logf("%s: %s and %s", args[2], a, b)
	if (a == b) == neg {
		ts.Fatalf("%s: %s in %s, %s in %s", args[2], a, args[0], b, args[1])
	}
}

// cmdCalc is `calc VAR EXPR`: it sets $VAR to the value of the
// arithmetic EXPR (the script's variables already in it), rounded to
// cents and written as report.json writes a number ("140", "52.5"): what
// a run must show of amounts the simulated world decides, such as a
// lay's loss at its winner's odds.
func cmdCalc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: calc VAR EXPR")
	}
	out, err := expr.Eval(args[1], nil)
	ts.Check(err)
	var v float64
	switch x := out.(type) {
	case int:
		v = float64(x)
	case float64:
		v = x
	default:
		ts.Fatalf("calc: %s is %T, not a number", args[1], out)
	}
	ts.Setenv(args[0], strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64))
}

// cmdSimAdvance is `simadvance DURATION`: the simulated service's clock
// jumps forward by DURATION.
func cmdSimAdvance(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simadvance DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	simOf(ts, "simadvance")
	ts.Value(scriptSimKey{}).(*scriptSim).clock.advance(d)
}

type scriptSimKey struct{}

// simOf returns the script's simulated service, failing the script when
// it has not started one.
func simOf(ts *testscript.TestScript, cmd string) *sim.Service {
	s := ts.Value(scriptSimKey{}).(*scriptSim)
	if s.svc == nil {
		ts.Fatalf("%s: no simulated service: run 'sim' first", cmd)
	}
	return s.svc
}

// cmdSim is `sim [seed] [at=RFC3339]`: it serves a simulated service for
// the rest of the script and points BETPLAN_BASE_URL and BETPLAN_TOKEN
// at it; SIM_ADDR is its host:port. Its clock is the real one, or, with
// at=, runs from that time (a script that must stay within one meeting
// day whatever the time it runs at); simadvance moves it.
func cmdSim(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! sim")
	}
	var seed int64 = 1
	s := ts.Value(scriptSimKey{}).(*scriptSim)
	if s.svc != nil {
		ts.Fatalf("sim: a simulated service is already running")
	}
	s.clock = &jumpClock{}
	for _, a := range args {
		if at, ok := strings.CutPrefix(a, "at="); ok {
			t, err := time.Parse(time.RFC3339, at)
			ts.Check(err)
			s.clock.off = time.Until(t)
			continue
		}
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			ts.Fatalf("usage: sim [seed] [at=RFC3339]")
		}
		seed = n
	}
	svc := sim.New(sim.Options{Seed: seed, Clock: s.clock})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.header.Load() {
			w.Header().Set(apiclient.SimulatedHeader, "1")
		}
		s.mu.Lock()
		rewrites := s.rewrites
		s.mu.Unlock()
		if len(rewrites) == 0 {
			svc.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for _, rw := range rewrites {
			body = rw.re.ReplaceAll(body, []byte(rw.to))
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	ts.Defer(srv.Close)
	s.svc = svc
	ts.Setenv("BETPLAN_BASE_URL", srv.URL)
	ts.Setenv("SIM_ADDR", srv.Listener.Addr().String())
	ts.Setenv("BETPLAN_TOKEN", svc.Token())
}

// cmdSimHeader is `simheader on|off`: from now on the service's answers
// say it is simulated (apiclient.SimulatedHeader, as `betplan sim` serves
// them), or stop saying so. `sim` starts without it: a service on this
// machine that never says it is simulated is a real one.
func cmdSimHeader(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || args[0] != "on" && args[0] != "off" {
		ts.Fatalf("usage: simheader on|off")
	}
	simOf(ts, "simheader")
	ts.Value(scriptSimKey{}).(*scriptSim).header.Store(args[0] == "on")
}

// cmdSimRewrite is `simrewrite REGEXP REPLACEMENT`: from now on every
// answer of the service has each match of REGEXP replaced (Go's
// regexp.ReplaceAll, $1 for a group), as a hostile or broken service
// would send it.
func cmdSimRewrite(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: simrewrite REGEXP REPLACEMENT")
	}
	simOf(ts, "simrewrite")
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	s := ts.Value(scriptSimKey{}).(*scriptSim)
	s.mu.Lock()
	s.rewrites = append(s.rewrites, bodyRewrite{re: re, to: args[1]})
	s.mu.Unlock()
}

// cmdSimCount is `simcount requests|notifications|tips|prealerts N`: the
// simulated service saw exactly N HTTP requests, holds exactly N
// notifications, took N tips (over every publish call) or N pre-alerts.
func cmdSimCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: simcount requests|notifications|tips|prealerts N")
	}
	svc := simOf(ts, "simcount")
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	var got int
	switch args[0] {
	case "requests":
		got = len(svc.Requests())
	case "notifications":
		got = svc.NotificationCount()
	case "tips":
		got = len(svc.PublishedTips())
	case "prealerts":
		got = len(svc.Prealerts())
	default:
		ts.Fatalf("usage: simcount requests|notifications|tips|prealerts N")
	}
	switch {
	case neg && got == want:
		ts.Fatalf("simcount: %s is %d, want anything else", args[0], got)
	case !neg && got != want:
		ts.Fatalf("simcount: %s is %d, want %d", args[0], got, want)
	}
}

// cmdSimEach is `simeach PREFIX MAX`: since the last simreset, no path
// that begins with PREFIX was requested more than MAX times (each
// notification's detail read at most once: simeach /bet/notification/ 1).
func cmdSimEach(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: simeach PREFIX MAX")
	}
	max, err := strconv.Atoi(args[1])
	ts.Check(err)
	seen := map[string]int{}
	for _, r := range simOf(ts, "simeach").Requests() {
		if strings.HasPrefix(r.Path, args[0]) {
			seen[r.Method+" "+r.Path]++
		}
	}
	for path, n := range seen {
		ts.Logf("%s: %d", path, n)
		if n > max {
			ts.Fatalf("simeach: %s requested %d times, want at most %d", path, n, max)
		}
	}
}

// cmdSimReset is `simreset`: it empties the simulated service's request
// log, so `simcount requests N` counts the requests after it.
func cmdSimReset(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: simreset")
	}
	simOf(ts, "simreset").ResetRequests()
}

// cmdSimRace is `simrace CODE INDEX VAR [AFTER]`: it picks the INDEX-th
// race (from 0) of CODE that starts at least AFTER (three minutes) from
// now and sets $VAR_VENUE, $VAR_CODE, $VAR_NUMBER, $VAR_RUNNER (its first
// runner), $VAR_LOSER (a runner that does not win), $VAR_WINNER (the
// runner that wins) and $VAR_WINNER_ODDS (its win odds, the price the bots
// take), so a script can write a plan on real races of its world, and
// $VAR_PAST_START, a
// duration for simadvance to a minute after its start.
func cmdSimRace(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! simrace")
	}
	if len(args) != 3 && len(args) != 4 {
		ts.Fatalf("usage: simrace CODE INDEX VAR [AFTER]")
	}
	svc := simOf(ts, "simrace")
	index, err := strconv.Atoi(args[1])
	ts.Check(err)
	after := 3 * time.Minute
	if len(args) == 4 {
		after, err = time.ParseDuration(args[3])
		ts.Check(err)
	}
	clock := ts.Value(scriptSimKey{}).(*scriptSim).clock
	soon := clock.Now().Add(after)
	var found []sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Code == args[0] && r.Start.After(soon) {
			found = append(found, r)
		}
	}
	if index < 0 || index >= len(found) {
		ts.Fatalf("simrace: %d %s races start after %s, no index %d", len(found), args[0], soon.Format(time.TimeOnly), index)
	}
	r := found[index]
	v := args[2]
	ts.Setenv(v+"_VENUE", r.Venue)
	ts.Setenv(v+"_CODE", r.Code)
	ts.Setenv(v+"_NUMBER", strconv.Itoa(r.EventNumber))
	ts.Setenv(v+"_RUNNER", r.Runners[0])
	ts.Setenv(v+"_PAST_START", (r.Start.Sub(clock.Now()) + time.Minute).Round(time.Second).String())
	for _, x := range r.Runners {
		if x != svc.Winner(r) {
			ts.Setenv(v+"_LOSER", x)
			break
		}
	}
	for i, x := range r.Runners {
		if x == svc.Winner(r) {
			ts.Setenv(v+"_WINNER", x)
			ts.Setenv(v+"_WINNER_ODDS", strconv.FormatFloat(r.Odds[i], 'f', -1, 64))
		}
	}
}

// cmdSimResult is `simresult VAR`: the race simrace set VAR for runs and
// is resulted now, while the service keeps listing its start (an
// abandoned race, a start in the wrong time zone). `seenwithin` measures
// from here (and from a `scratch`).
func cmdSimResult(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simresult VAR")
	}
	svc := simOf(ts, "simresult")
	v := args[0]
	number, err := strconv.Atoi(ts.Getenv(v + "_NUMBER"))
	ts.Check(err)
	for _, r := range svc.Races() {
		s := ts.Value(scriptSimKey{}).(*scriptSim)
		if r.Venue == ts.Getenv(v+"_VENUE") && r.EventNumber == number && r.Start.After(s.clock.Now()) {
			s.resulted = time.Now()
			if !svc.ResultAt(r, s.clock.Now()) {
				ts.Fatalf("simresult: %s R%d not found", r.Venue, number)
			}
			return
		}
	}
	ts.Fatalf("simresult: no upcoming race %s R%d", ts.Getenv(v+"_VENUE"), number)
}

// cmdSeenWithin is `seenwithin DURATION`: at most DURATION passed since
// the last `simresult` (run after `wait`: the run saw the result and
// ended within it).
func cmdSeenWithin(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: seenwithin DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	s := ts.Value(scriptSimKey{}).(*scriptSim)
	if s.resulted.IsZero() {
		ts.Fatalf("seenwithin: no simresult yet")
	}
	took := time.Since(s.resulted)
	ts.Logf("%s since the result", took.Round(time.Millisecond))
	if took > d {
		ts.Fatalf("seenwithin: %s since the result, want at most %s", took.Round(time.Millisecond), d)
	}
}

// cmdSimWaitReq is `simwaitreq PATH N`: it waits (eventWait at most) until
// the simulated service has answered N requests for PATH, so a script
// knows a background run got that far.
func cmdSimWaitReq(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: simwaitreq PATH N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	svc := simOf(ts, "simwaitreq")
	answered := func() int {
		n := 0
		for _, r := range svc.Requests() {
			if r.Path == args[0] && r.Status != 0 {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if answered() >= want {
			return
		}
	}
	ts.Fatalf("simwaitreq: %d answered requests for %s after %s, want %d", answered(), args[0], eventWait, want)
}

// cmdSimBots is `simbots off|on`: it stops or starts the bot of every
// session of the simulated service.
func cmdSimBots(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || (args[0] != "on" && args[0] != "off") {
		ts.Fatalf("usage: simbots off|on")
	}
	svc := simOf(ts, "simbots")
	for _, s := range svc.Sessions() {
		svc.SetBotRunning(s.ID, args[0] == "on")
	}
}

// cmdSimState puts the simulated service in a state a pre-flight check
// must notice:
//
//	simstate loginerror SESSION-ID MESSAGE...  the session's bot failed to log in
//	simstate token-expiring DURATION           BETPLAN_TOKEN expires that soon
//	simstate skew DURATION                     the service's Date header runs that far ahead
//	simstate betlimits SESSION-ID MIN MAX      the session's bookmaker refuses stakes outside MIN..MAX (0: no bound)
//	simstate nomarket SESSION-ID MARKET...     the session's bookmaker refuses the market
func cmdSimState(ts *testscript.TestScript, neg bool, args []string) {
	usage := "usage: simstate loginerror ID MESSAGE... | token-expiring DURATION | skew DURATION | betlimits ID MIN MAX | nomarket ID MARKET..."
	if neg || len(args) < 2 {
		ts.Fatalf("%s", usage)
	}
	svc := simOf(ts, "simstate")
	switch args[0] {
	case "loginerror":
		id, err := strconv.Atoi(args[1])
		ts.Check(err)
		svc.SetLoginError(id, strings.Join(args[2:], " "))
	case "token-expiring":
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		ts.Setenv("BETPLAN_TOKEN", svc.TokenExpiringIn(d))
	case "skew":
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		svc.SetDateSkew(d)
	case "betlimits":
		if len(args) != 4 {
			ts.Fatalf("%s", usage)
		}
		id, err := strconv.Atoi(args[1])
		ts.Check(err)
		lo, err := strconv.ParseFloat(args[2], 64)
		ts.Check(err)
		hi, err := strconv.ParseFloat(args[3], 64)
		ts.Check(err)
		svc.SetStakeBounds(id, lo, hi)
	case "nomarket":
		id, err := strconv.Atoi(args[1])
		ts.Check(err)
		svc.SetRefusedMarkets(id, strings.Join(args[2:], " "))
	default:
		ts.Fatalf("%s", usage)
	}
}

// cmdSimFault is `simfault SPEC|clear`: it injects a fault, written as
// --fault takes it, into the script's simulated service; clear removes
// every fault (a frozen service answers again).
func cmdSimFault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simfault SPEC|clear")
	}
	if args[0] == "clear" {
		simOf(ts, "simfault").ClearFaults()
		return
	}
	f, err := parseFault(args[0])
	ts.Check(err)
	simOf(ts, "simfault").InjectFault(f)
}

// cmdSimWait is `simwait N [placed|records]`: it waits up to eventWait
// for the simulated service to hold N notifications (N some session
// placed; or to have served N reads of bet records: a run saw what the
// sessions did), so a script can act once a background run got that far.
func cmdSimWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "placed" && args[1] != "records") {
		ts.Fatalf("usage: simwait N [placed|records]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	svc := simOf(ts, "simwait")
	count := svc.NotificationCount
	switch {
	case len(args) == 1:
	case args[1] == "placed":
		count = svc.PlacedCount
	default:
		count = func() int {
			n := 0
			for _, r := range svc.Requests() {
				if r.Method == "GET" && strings.HasPrefix(r.Path, "/bet/") {
					n++
				}
			}
			return n
		}
	}
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if count() >= want {
			return
		}
	}
	ts.Fatalf("simwait: %d %s after %s, want %d", count(), strings.Join(append([]string{"notifications"}, args[1:]...), " "), eventWait, want)
}

// cmdExpandEnv is `expandenv SRC DST`: it writes SRC to DST with $VAR and
// ${VAR} replaced from the script's environment; an unset variable fails
// the script rather than writing an empty value into a plan.
func cmdExpandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expandenv SRC DST")
	}
	src := ts.ReadFile(args[0])
	var missing []string
	out := os.Expand(src, func(k string) string {
		v := ts.Getenv(k)
		if v == "" {
			missing = append(missing, k)
		}
		return v
	})
	if len(missing) > 0 {
		ts.Fatalf("expandenv: %s: unset variables %v", args[0], missing)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out), 0o644))
}

// cmdExits is `exits N PROGRAM [ARGS...]`: like exec, but the program must
// exit with status N, so a script tells a refusal (3) from a usage error
// (2) or a failed run (1).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exits: %s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdWaitFile is `waitfile PATH [TEXT]`: it waits up to eventWait for
// PATH (a glob pattern: a journal's name carries a hash) to exist (and
// hold TEXT), so a script can act once a background betplan got that far.
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile PATH [TEXT]")
	}
	pattern := ts.MkAbs(args[0])
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		paths, _ := filepath.Glob(pattern)
		for _, path := range paths {
			if b, err := os.ReadFile(path); err == nil && (len(args) == 1 || strings.Contains(string(b), args[1])) {
				return
			}
		}
	}
	ts.Fatalf("waitfile: %s did not appear (or hold %q) within %s", args[0], args[1:], eventWait)
}
