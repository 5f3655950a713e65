package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/budget"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// tipsterKeyEnv holds the tip package's API key for plans with tips.
const tipsterKeyEnv = "BETPLAN_TIPSTER_APIKEY"

// serviceConn is a client to the service (real or simulated) and the clock
// the engine should follow.
type serviceConn struct {
	client    *apiclient.Client
	clock     engine.Clock
	baseURL   string
	simulated bool
	insecure  bool // --insecure: plain text allowed off loopback
	close     func()
	// tipsterKey is the tip package's API key: BETPLAN_TIPSTER_APIKEY,
	// or the simulated service's own in a rehearsal. Never printed.
	tipsterKey string
	// budgetLog is where the request budget's lines go (nil in a
	// rehearsal, which spends no budget).
	budgetLog *budgetLog
	// account is the account on the service the token (or the login
	// e-mail) names, "" when nothing says: a plan's journal belongs to it.
	account string
	// retries says in the log how the client rides out the service's
	// failures, episode by episode.
	retries *retryLog
}

// newRetryLog is the connection's retry log, its lines stamped by the wall
// clock its waits are on (wallClock): in a rehearsal, "real time".
func (c *serviceConn) newRetryLog() {
	c.retries = newRetryLog(time.Now, func() string { return wallClock(c.clock, c.simulated).Stamp(time.Now()) })
	c.retries.rehearsal = func() bool { return shownClock(c.clock, c.simulated).Sim }
	c.client.OnRecovered(c.retries.recovered)
}

// logRetries sends the retry log's lines about the client's own calls
// (those no plan's hook names) to w; nil says nothing.
func (c *serviceConn) logRetries(w io.Writer) { c.retries.to(c.client, w) }

// logBudget sends the request budget's lines to w.
func (c *serviceConn) logBudget(w io.Writer) {
	if c.budgetLog != nil {
		c.budgetLog.to(w)
	}
}

// rawBaseURL is the base URL as configured: flag > environment.
func (s *serviceOptions) rawBaseURL(sys *sysIO) string {
	if s.BaseURL != "" {
		return s.BaseURL
	}
	return sys.Getenv("BETPLAN_BASE_URL")
}

// baseURL is the configured base URL in the client's normal form, the one
// locks and reports are keyed by.
func (s *serviceOptions) baseURL(sys *sysIO) (string, error) {
	raw := s.rawBaseURL(sys)
	if raw == "" {
		return "", nil
	}
	base, err := apiclient.NormalizeBaseURL(raw)
	if err != nil {
		return "", baseURLError(err)
	}
	return base, nil
}

// connect builds the client from flags and environment (flag > env >
// default) and makes the connection check (check), so a command that
// talks to the service writes nothing until the service answered as
// itself. Its requests spend the account's budget, shared through state's
// database when it names one.
func (s *serviceOptions) connect(ctx context.Context, sys *sysIO, state *stateOptions) (*serviceConn, error) {
	c, err := s.dial(sys, state)
	if err != nil {
		return nil, err
	}
	if err := c.checkService(ctx, s.refusing); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// dial builds the connection's client, sending no request.
func (s *serviceOptions) dial(sys *sysIO, state *stateOptions) (*serviceConn, error) {
	base := s.rawBaseURL(sys)
	if base == "" {
		if s.rehearsable {
			return nil, usagef("no service to talk to: set --base-url or BETPLAN_BASE_URL (or rehearse with --sim)")
		}
		return nil, usagef("no service to talk to: set --base-url or BETPLAN_BASE_URL")
	}
	clock := newServiceClock(apiclient.IsLoopbackURL(base))
	opts := []apiclient.Option{
		apiclient.WithDateObserver(clock.observe),
		apiclient.WithTimeout(s.HTTPTimeout.Value),
		apiclient.WithRateLimit(s.MaxRPS.Value, 1),
		apiclient.WithUserAgent("betplan/" + version),
	}
	if s.Insecure {
		opts = append(opts, apiclient.WithInsecure())
	}
	token := sys.Getenv("BETPLAN_TOKEN")
	email, password := sys.Getenv("BETPLAN_EMAIL"), sys.Getenv("BETPLAN_PASSWORD")
	if token != "" {
		opts = append(opts, apiclient.WithToken(token))
	}
	if email != "" && password != "" {
		opts = append(opts, apiclient.WithCredentials(email, password))
	}
	if token == "" && (email == "" || password == "") {
		return nil, usagef("no credentials: set BETPLAN_TOKEN, or BETPLAN_EMAIL and BETPLAN_PASSWORD")
	}
	budgetLog := &budgetLog{w: sys.Stderr}
	wall := func() reporters.Clock { return wallClock(clock, false) }
	lim, closeBudget := requestBudget(budgetLog, wall, s, state, sys, base, token, email)
	if s.limiter != nil {
		lim = s.limiter(lim)
	}
	if s.transport != nil {
		opts = append(opts, apiclient.WithTransportWrapper(s.transport))
	}
	c, err := apiclient.New(base, append(opts, apiclient.WithLimiter(lim))...)
	if err != nil {
		closeBudget()
		return nil, baseURLError(err)
	}
	conn := &serviceConn{client: c, clock: clock, baseURL: c.BaseURL(), insecure: s.Insecure, close: closeBudget, tipsterKey: sys.Getenv(tipsterKeyEnv), budgetLog: budgetLog,
		account: budget.AccountOf(base, token, email).Name}
	conn.newRetryLog()
	conn.logRetries(sys.Stderr) // the connection check's, until a command says where
	return conn, nil
}

// checkService is the connection check every command that talks to the service
// makes before it writes anything (no journal, lock, report or alert):
// one authenticated read whose answer must have the service's shape
// (apiclient.CheckService). What answers at the URL and is not the
// service, or nothing answering, refuses in one line that names the URL
// (serviceProblem), as refuses says.
func (c *serviceConn) checkService(ctx context.Context, refuses checkRefuses) error {
	if c.simulated {
		return nil // the in-process service of a rehearsal
	}
	err := c.client.CheckService(ctx)
	if err == nil {
		return nil
	}
	if why := notServiceAt(c.baseURL, err); why != nil {
		return why
	}
	switch {
	case refuses == refuseNotService:
		return nil
	case refuses == refuseUnreached && (apiclient.IsUnauthorized(err) || apiclient.IsForbidden(err)):
		return nil
	}
	if why := serviceProblem(c.baseURL, err); why != nil {
		return &unusableError{&refusedError{why}}
	}
	return &unusableError{fmt.Errorf("check the service at %s: %w", c.baseURL, err)}
}

// unusableError is a connection check that found the service unusable:
// nothing answers, TLS fails, the token is refused, the read fails. A run
// that meets it tells its alert targets, once (alertUnusable). Something
// else answering at the URL is a mistake in the URL, said on the spot,
// not an outage to be told of: that is a noServiceError.
type unusableError struct{ err error }

func (e *unusableError) Error() string { return e.err.Error() }
func (e *unusableError) Unwrap() error { return e.err }

// startSim serves a simulated service on 127.0.0.1 for this process.
func (s *serviceOptions) startSim(world simWorld, faults []sim.Fault) (*serviceConn, error) {
	clock := sim.NewManualClock(world.Start.or(time.Now()))
	svc := sim.New(sim.Options{Seed: world.Seed, Clock: clock})
	for _, f := range faults {
		svc.InjectFault(f)
	}
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the simulated service: %w", err)
	}
	rps := s.MaxRPS.Value
	if !s.MaxRPS.IsSet {
		rps = 0 // our own in-process service: no need to be polite
	}
	c, err := apiclient.New(srv.URL,
		apiclient.WithToken(svc.Token()),
		apiclient.WithTimeout(s.timeout(true)),
		apiclient.WithRateLimit(rps, 1),
		apiclient.WithTokenCache(""),
		apiclient.WithNow(clock.Now),
		apiclient.WithUserAgent("betplan/"+version),
	)
	if err != nil {
		srv.Close()
		return nil, err
	}
	conn := &serviceConn{client: c, clock: clock, baseURL: srv.URL, simulated: true, tipsterKey: sim.DefaultTipsterAPIKey, close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}}
	conn.newRetryLog()
	return conn, nil
}

// servesSimulation reports whether the service is a simulation: a
// rehearsal's, or one that said so from this machine. Outputs say so and no
// heartbeat goes out; the confirmation stays as strict as on a real one.
func (c *serviceConn) servesSimulation() bool { return c.simulated || c.client.ServesSimulation() }

// shownClock is how the command's own times are shown (log lines, the
// live line, the reports' header): in the machine's zone, marked "sim
// time" when the clock is a rehearsal's (--sim, or a betplan sim whose
// clock runs fast or elsewhere in time). Asked afresh each time: a
// service's rate is known only after a few answers.
func shownClock(clock engine.Clock, simulated bool) reporters.Clock {
	sim := simulated
	if sc, ok := clock.(*serviceClock); ok && !sim {
		sim = sc.simulated()
	}
	return reporters.Clock{Zone: time.Local, Sim: sim}
}

// wallClock is how a line about real time shows its time (the client's
// retries and their waits, the request budget, a wait for a plan's
// lock): the wall clock, said to be "real time" when the command's other
// lines are on a rehearsal's simulated clock, so no line mixes the two
// clocks and each says which it is on.
func wallClock(clock engine.Clock, simulated bool) reporters.Clock {
	return reporters.Clock{Zone: time.Local, Real: shownClock(clock, simulated).Sim}
}

// showTimes sets how res's own times are shown, and moves a start the
// engine took from the wall clock before the service's first answer onto
// the service's clock, like the end: a header never mixes the two.
func showTimes(res *engine.Result, opts engine.Options) {
	if res == nil {
		return
	}
	if sc, ok := opts.Clock.(*serviceClock); ok {
		res.StartedAt = sc.serviceTime(res.StartedAt)
	}
	c := shownClock(opts.Clock, opts.Simulated)
	res.Zone, res.SimTime = c.Zone, c.Sim
}
