package main

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

// connection is a client to the service (real or simulated) and the clock
// the engine should follow.
type connection struct {
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
}

// logBudget sends the request budget's lines to w.
func (c *connection) logBudget(w io.Writer) {
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
// default). Its requests spend the account's budget, shared through
// state's database when it names one.
func (s *serviceOptions) connect(sys *sysIO, state *stateOptions) (*connection, error) {
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
	lim, closeBudget := requestBudget(budgetLog, s, state, sys, base, token, email)
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
	return &connection{client: c, clock: clock, baseURL: c.BaseURL(), insecure: s.Insecure, close: closeBudget, tipsterKey: sys.Getenv(tipsterKeyEnv), budgetLog: budgetLog,
		account: budget.AccountOf(base, token, email).Name}, nil
}

// startSim serves a simulated service on 127.0.0.1 for this process.
func (s *serviceOptions) startSim(world simWorld, faults []sim.Fault) (*connection, error) {
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
	return &connection{client: c, clock: clock, baseURL: srv.URL, simulated: true, tipsterKey: sim.DefaultTipsterAPIKey, close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}}, nil
}

// servesSimulation reports whether the service is a simulation: a
// rehearsal's, or one that said so from this machine. Outputs say so and no
// heartbeat goes out; the confirmation stays as strict as on a real one.
func (c *connection) servesSimulation() bool { return c.simulated || c.client.ServesSimulation() }

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
