package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/budget"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/serve"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
)

// serveOptions are the flags of `betplan serve`.
type serveOptions struct {
	Yes            bool
	Listen         string
	TokenFile      string
	Takeover       time.Duration
	Rescan         time.Duration
	AmbiguousGrace time.Duration
	AllowNoBot     bool
	NoLimits       bool
	report         reportOptions
	state          stateOptions
	account        accountOptions
	service        serviceOptions
}

// serveTokenEnv holds the bearer token /healthz, /readyz, /metrics and
// /status ask for: never a flag's value, which any user of the machine
// can read.
const serveTokenEnv = "BETPLAN_SERVE_TOKEN"

func serveCommand() *command {
	return &command{
		name:    "serve",
		args:    "[DIR]",
		summary: "run every plan of a folder continuously, one leader per account, with health and metrics over HTTP",
		exits: []exitDoc{
			{143, "stopped by SIGTERM, its normal end: no create left half-done, the account handed to a standby (systemd's SuccessExitStatus=143); 130 for Ctrl-C"},
			{exitFailed, "the health and metrics address could not be listened on"},
			{exitUsage, "usage error: a bad flag, no plan file in DIR, or a --listen address off loopback without a token"},
			{exitRefused, "refused: no confirmation, or the shared state cannot be used"},
		},
		untilStopped: true,
		examples: `  # every plan of plans/, leader election and state in PostgreSQL
  export BETPLAN_BASE_URL=https://betting.example.com BETPLAN_TOKEN=...
  betplan serve --yes --state postgres://betplan@db/betplan plans/
  # on one machine, the state in a directory
  betplan serve --yes --state /var/lib/betplan plans/
  # metrics for a Prometheus on another host: a token is required
  betplan serve --yes --listen 0.0.0.0:9464 \
    --listen-token-file /etc/betplan/serve-token plans/
  # read the folder again now (it is watched anyway)
  kill -HUP $(pidof betplan)
`,
		setup: bindTo((*serveOptions).bind, servePlans),
	}
}

func (o *serveOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Yes, "yes", false, "create bets unattended without asking (required off a terminal)")
	fs.StringVar(&o.Listen, "listen", "127.0.0.1:9464", "address of /healthz, /readyz, /metrics and /status; off loopback it needs a bearer token ($"+serveTokenEnv+" or --listen-token-file)")
	fs.StringVar(&o.TokenFile, "listen-token-file", "", "file holding the bearer token the HTTP endpoints ask for (or $"+serveTokenEnv+")")
	fs.StringVar(&o.state.StateDir, "state-dir", "", "state directory (default .betplan/ in DIR)")
	fs.StringVar(&o.state.URL, "state", "", "where journals, locks and the account's leadership live: postgres://user@host/db, shared by every machine, or a directory on this machine (default $BETPLAN_STATE)")
	fs.StringVar(&o.state.Schema, "state-schema", "", "schema of the shared state (default the URL's search_path, or betplan)")
	o.account.bind(fs)
	fs.DurationVar(&o.Takeover, "takeover", 30*time.Second, "bound on how long a standby takes to take over from a leader that died or paused, 5s to 10m")
	fs.DurationVar(&o.Rescan, "rescan", 10*time.Second, "how often DIR is read again as a back-up to file-system events (SIGHUP reads it at once)")
	fs.DurationVar(&o.AmbiguousGrace, "ambiguous-grace", 60*time.Second, "how long to look a label up after an ambiguous create (or one inherited from another leader) before creating it, 1s to 1h")
	fs.BoolVar(&o.AllowNoBot, "allow-no-bot", false, "create even when no targeted session has a running bot")
	fs.BoolVar(&o.NoLimits, "no-limits", false, "serve a plan whose money has no bound")
	fs.StringVar(&o.report.Dir, "report-dir", "", "directory for reports, a folder per plan (default <state-dir>/report/<plan name>)")
	o.service.bind(fs)
}

func (o *serveOptions) validate() error {
	if o.Takeover < 5*time.Second || o.Takeover > 10*time.Minute {
		return usagef("--takeover %v: want 5s to 10m (a lease shorter than a few seconds cannot be kept on a loaded machine)", o.Takeover)
	}
	if o.Rescan < time.Second {
		return usagef("--rescan %v: want at least 1s", o.Rescan)
	}
	if o.AmbiguousGrace < minAmbiguousGrace || o.AmbiguousGrace > maxAmbiguousGrace {
		return usagef("--ambiguous-grace %v: want at least %v and at most %v", o.AmbiguousGrace, minAmbiguousGrace, maxAmbiguousGrace)
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return usagef("--listen %q: want host:port (%v)", o.Listen, err)
	}
	if o.state.URL != "" && !isPostgresURL(o.state.URL) {
		if o.state.StateDir != "" {
			return usagef("--state %s is a directory and --state-dir says another: give one", o.state.URL)
		}
		o.state.StateDir, o.state.URL = o.state.URL, ""
	}
	return o.service.validate()
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// listenToken is the bearer token of the HTTP endpoints: the file's,
// else the environment's; "" for none.
func (o *serveOptions) listenToken(sys *sysIO) (string, error) {
	if o.TokenFile != "" {
		b, err := os.ReadFile(o.TokenFile)
		if err != nil {
			return "", usagef("--listen-token-file: %v", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", usagef("--listen-token-file %s is empty", o.TokenFile)
		}
		return tok, nil
	}
	return strings.TrimSpace(sys.Getenv(serveTokenEnv)), nil
}

// servedPlan is what a plan's version brings to its runs beside the
// plan: its account file.
type servedPlan struct {
	account *plan.Config
}

// servePlans is `betplan serve DIR`.
func servePlans(ctx context.Context, sys *sysIO, o *serveOptions, args []string) error {
	if len(args) > 1 {
		return usagef("serve takes one folder of plans, got %d arguments", len(args))
	}
	dir := "."
	if len(args) == 1 {
		dir = args[0]
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usagef("%s is not a folder of plans", dir)
	}
	token, err := o.listenToken(sys)
	if err != nil {
		return err
	}
	if token == "" && !apiclient.IsLoopbackAddr(o.Listen) {
		return usagef("--listen %s is not a loopback address: the plans' money and the account's health would be open to the network; give a bearer token in $%s or --listen-token-file (never as a flag's value)", o.Listen, serveTokenEnv)
	}
	loader := &serveLoader{sys: sys, dir: dir, account: &o.account, noLimits: o.NoLimits, cache: map[string]any{}}
	if plans, _, err := filesUnder(dir); err != nil || len(plans) == 0 {
		return usagef("no plan files (.yaml, .yml) under %s", dir)
	}
	if o.state.StateDir == "" {
		o.state.StateDir = filepath.Join(dir, ".betplan")
	}
	confirm, err := confirmer(sys, o.Yes, false, nil)
	if err != nil {
		return err
	}
	if confirm != nil {
		ok, err := confirm(fmt.Sprintf("betplan serve creates the bets of every plan in %s, unattended, for as long as it runs (and of every plan added there).", dir))
		if err != nil {
			return err
		}
		if !ok {
			return refusef("refused: %s", engine.ErrNotConfirmed)
		}
	}

	shared, err := o.state.sharedStore(sys, o.service.Insecure)
	if err != nil {
		return err
	}
	if pg, ok := shared.(*postgres.Store); ok {
		// Every plan's lock is held for as long as this process leads: a
		// check a second of each would be most of its idle work. The
		// account's fence, checked by every write, fences it off anyway.
		pg.WatchEvery = 5 * time.Second
	}
	rawBase := o.service.rawBaseURL(sys)
	if rawBase == "" {
		return usagef("no service to talk to: set --base-url or BETPLAN_BASE_URL")
	}
	host, _ := os.Hostname()
	owner := state.LockOwner{PID: os.Getpid(), Host: host, PlanFile: dir, Command: "betplan serve", Since: time.Now().UTC()}
	leaders := leadersOf(shared, o.state.StateDir)
	identity := state.ServiceIdentity(rawBase)
	acct := budget.AccountOf(identity, sys.Getenv("BETPLAN_TOKEN"), sys.Getenv("BETPLAN_EMAIL"))
	logw := &planLogs{w: sys.Stderr}
	serveLog := logw.plan("serve")
	logf := func(format string, args ...any) {
		fmt.Fprintf(serveLog, "%s %s\n", reporters.Clock{Zone: time.Local}.Stamp(time.Now()), fmt.Sprintf(format, args...))
	}

	var run *serveRun // set once connected; the server runs nothing before
	srv := serve.New(serve.Config{
		Dir: dir, Load: loader.load, Rescan: o.Rescan,
		Leaders: leaders, Account: identity + " " + engine.AccountKey(acct.Name), Owner: owner, Instance: instanceID(),
		Takeover: o.Takeover,
		Run: func(ctx context.Context, v *serve.Version, mode *engine.ServeMode) (*engine.Result, error) {
			return run.plan(ctx, v, mode)
		},
		Unlock: func(ctx context.Context, v *serve.Version) error { return run.unlock(ctx, v) },
		Logf:   logf,
	})
	o.service.transport = srv.Gate().Wrap
	metrics := srv.Metrics()
	o.service.limiter = func(l apiclient.Limiter) apiclient.Limiter { return countedBudget{l, metrics} }
	// The service is checked once this process leads (serveRun.check):
	// a standby sends nothing.
	conn, err := o.service.dial(sys, &o.state)
	if err != nil {
		return err
	}
	defer conn.close()
	if c, ok := shared.(interface{ Close() }); ok {
		defer c.Close()
	}
	s := &commandSetup{sys: sys, state: o.state, conn: conn, shared: shared}
	run = &serveRun{o: o, sys: sys, setup: s, account: engine.NewAccount(conn.client, conn.clock, 0), logs: logw}
	conn.logRetries(logw.account())
	conn.logBudget(logw.account())
	srv.SetCredentials(clientCredentials{c: conn.client, login: sys.Getenv("BETPLAN_EMAIL") != "" && sys.Getenv("BETPLAN_PASSWORD") != ""})
	if err := srv.Load(); err != nil {
		return usagef("%v", err)
	}

	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	hs := &http.Server{Handler: srv.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	logf("serving the plans of %s against %s; /healthz, /readyz, /metrics and /status on http://%s; standing by until this process leads the account (take-over within %s)",
		dir, conn.baseURL, ln.Addr(), o.Takeover)

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				logf("SIGHUP: reading %s again", dir)
				srv.Reload()
			}
		}
	}()
	srv.Serve(ctx)
	logw.flush()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// leadersOf is where the account's leadership lives: the shared state, or
// this machine's lock dir.
func leadersOf(shared state.Store, stateDir string) state.Leaders {
	if l, ok := state.LeadersOf(shared); ok && shared != nil {
		return l
	}
	return local.Store{Layout: local.Layout{Dir: stateDir}}
}

// instanceID names this process among the account's serving processes.
func instanceID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serveRun runs one version of a plan, served, as `run` runs a plan
// among others: one client, one set of reads, one request budget.
type serveRun struct {
	o       *serveOptions
	sys     *sysIO
	setup   *commandSetup
	account *engine.Account
	logs    *planLogs

	mu      sync.Mutex
	checked bool // the service answered as the service
}

// check is the connection check every command makes before it writes
// anything, made once, by the first run under a leadership: a standby
// sends nothing. Until it passes, no plan runs.
func (r *serveRun) check(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.checked {
		return nil
	}
	if err := r.setup.conn.checkService(ctx, refuseAny); err != nil {
		return err
	}
	r.checked = true
	return nil
}

// options are a version's engine options.
func (r *serveRun) options(v *serve.Version) engine.Options {
	s := r.setup
	opts := s.options(v.File)
	log := r.logs.plan(v.Name)
	opts.Log = log
	opts.Backend = r.account.PlanTelling(s.conn.retries.hook(log))
	opts.Account = v.Extra.(*servedPlan).account
	opts.Notify = v.Targets
	opts.AllowNoBot = r.o.AllowNoBot
	opts.AmbiguousGrace = r.o.AmbiguousGrace
	opts.Checkpoint = checkpointHook(r.sys)
	opts.Store = storeHook(r.sys, opts.Store)
	// A served run that ends is started again: its alerts wait little.
	opts.NotifyWithin = 2 * time.Second
	if r.o.report.Dir != "" {
		opts.ReportDir = absReportDir(filepath.Join(r.o.report.Dir, v.Name))
	}
	return opts
}

func (r *serveRun) plan(ctx context.Context, v *serve.Version, mode *engine.ServeMode) (*engine.Result, error) {
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	opts := r.options(v)
	opts.Serve = mode
	res, err := engine.Run(ctx, v.Plan, opts)
	if res != nil {
		showTimes(res, opts)
		dir := res.ReportDir
		if dir == "" {
			dir = defaultReportDir(opts, res.PlanName)
		}
		if _, werr := reporters.WriteDir(dir, res); werr != nil {
			fmt.Fprintf(opts.Log, "writing reports: %v\n", werr)
		}
	}
	return res, err
}

// unlock takes a plan's lock off a serving process that no longer leads
// (stopped, or cut off): fenced first, its session ended.
func (r *serveRun) unlock(ctx context.Context, v *serve.Version) error {
	opts := r.options(v)
	_, err := opts.Store.Unlock(ctx, state.PlanKey{Name: v.Name, BaseURL: opts.BaseURL}, true)
	if err != nil && r.setup.shared != nil {
		// The shared lock may be free already (the holder's session
		// ended) while this host's lock file is still held by the
		// stopped process: that one is removed all the same.
		if _, herr := local.Unlock(opts.State.LockPath(v.Name, opts.BaseURL), true); herr == nil {
			return nil
		}
	}
	return err
}

// countedBudget is the account's request budget, its waits counted.
type countedBudget struct {
	apiclient.Limiter
	m *serve.Metrics
}

func (b countedBudget) Wait(ctx context.Context) error {
	start := time.Now()
	err := b.Limiter.Wait(ctx)
	b.m.BudgetWaited(time.Since(start))
	return err
}

// clientCredentials are the client's, as serve keeps them fresh.
type clientCredentials struct {
	c     *apiclient.Client
	login bool
}

func (c clientCredentials) Claims() (apiclient.TokenClaims, error) { return c.c.TokenClaims() }
func (c clientCredentials) CanLogIn() bool                         { return c.login }
func (c clientCredentials) LogIn(ctx context.Context) error        { return c.c.Login(ctx) }
func (c clientCredentials) Refresh(ctx context.Context) error      { return c.c.RefreshToken(ctx) }

// serveLoader loads DIR's plans as run loads them (each with its account
// file, its alerts' targets, its money's bound), keeping each loaded
// version by what it was loaded from: an unchanged file is not checked
// again.
type serveLoader struct {
	sys      *sysIO
	dir      string
	account  *accountOptions
	noLimits bool

	mu    sync.Mutex
	cache map[string]any // *serve.Version or *serve.Problem, by key
}

func (l *serveLoader) load() (serve.Scan, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	files, _, err := filesUnder(l.dir)
	if err != nil {
		return serve.Scan{}, err
	}
	var scan serve.Scan
	names := map[string]string{}
	keep := map[string]any{}
	for _, f := range files {
		if l.account.isAccountFile(l.sys, f) {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			continue // gone since it was listed: the next read says
		}
		key := fileKey(data)
		if acct, _ := l.account.accountFile(l.sys, f); acct != "" {
			ad, _ := os.ReadFile(acct)
			key += "+" + fileKey(ad)
		}
		got, ok := l.cache[key+"\x00"+f]
		if !ok {
			got = l.loadOne(f, key)
		}
		keep[key+"\x00"+f] = got
		switch x := got.(type) {
		case *serve.Problem:
			scan.Problems = append(scan.Problems, x)
		case *serve.Version:
			if other, dup := names[x.Name]; dup {
				scan.Problems = append(scan.Problems, &serve.Problem{File: f, Key: key, Where: f,
					Text: fmt.Sprintf("%s and %s are both named %q: each plan needs its own name (it keys the plan's journal, lock and reports)", other, f, x.Name)})
				continue
			}
			names[x.Name] = f
			scan.Versions = append(scan.Versions, x)
		}
	}
	l.cache = keep
	return scan, nil
}

// loadOne loads one plan file as run would, or says what is wrong with
// it: its problems at their file:line:col, as validate shows them.
func (l *serveLoader) loadOne(path, key string) any {
	var out bytes.Buffer
	problem := func(where string) *serve.Problem {
		return &serve.Problem{File: path, Key: key, Where: where, Text: strings.TrimRight(out.String(), "\n")}
	}
	sys := *l.sys
	sys.Stderr = &out
	p, data, diags := plan.LoadSource(path)
	if p == nil && plan.LooksLikeAccountFile(data) {
		diags = plan.Diagnostics{strayAccountFile(path)}
	}
	if diags.HasErrors() || p == nil {
		plan.WriteText(&out, diags, map[string][]byte{path: data})
		where := path
		for _, d := range diags {
			if d.Severity == plan.SeverityError {
				where = fmt.Sprintf("%s:%d:%d", d.Filename, d.Line, d.Column)
				break
			}
		}
		return problem(where)
	}
	account, err := l.account.loadAccount(&sys, path)
	if err != nil {
		fmt.Fprintln(&out, err)
		return problem(path)
	}
	if err := checkMoneyBound(&sys, p, account, path, false, l.noLimits); err != nil {
		fmt.Fprintln(&out, err)
		return problem(path)
	}
	targets, err := alertTargets(&sys, p, account, false)
	if err != nil {
		fmt.Fprintln(&out, err)
		return problem(path)
	}
	return &serve.Version{File: path, Name: p.Name, Hash: p.Hash, Key: key, Plan: p, Targets: targets, Extra: &servedPlan{account: account}}
}

func fileKey(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
