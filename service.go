package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// connection is a client to the service (real or simulated) and the clock
// the engine should follow.
type connection struct {
	client    *apiclient.Client
	clock     engine.Clock
	baseURL   string
	simulated bool
	close     func()
}

// connect builds the client from flags and environment (flag > env >
// default). With simulate, it serves an in-process simulated service on a
// loopback port whose clock moves as fast as the engine sleeps.
func (s *serviceFlags) connect(sys *sysIO, simulate bool, seed int64, faults ...sim.Fault) (*connection, error) {
	if simulate {
		return startSim(s, seed, faults)
	}
	base := s.resolveBaseURL(sys)
	if base == "" {
		return nil, usagef("no service to talk to: set --base-url or BETPLAN_BASE_URL (or rehearse with --sim)")
	}
	opts := []apiclient.Option{
		apiclient.WithTimeout(s.httpTimeout),
		apiclient.WithRateLimit(s.maxRPS, 1),
		apiclient.WithUserAgent("betplan/" + version),
	}
	if s.insecure {
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
	c, err := apiclient.New(base, opts...)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return &connection{client: c, clock: engine.RealClock(), baseURL: c.BaseURL(), close: func() {}}, nil
}

// startSim serves a simulated service on 127.0.0.1 for this process.
func startSim(s *serviceFlags, seed int64, faults []sim.Fault) (*connection, error) {
	clock := sim.NewManualClock(time.Now())
	svc := sim.New(sim.Options{Seed: seed, Clock: clock})
	for _, f := range faults {
		svc.InjectFault(f)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the simulated service: %w", err)
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	base := "http://" + ln.Addr().String()
	rps := s.maxRPS
	if !s.maxRPSSet {
		rps = 0 // our own in-process service: no need to be polite
	}
	timeout := s.httpTimeout
	if !s.timeoutSet {
		timeout = 5 * time.Second // a rehearsed hanging create gives up soon
	}
	c, err := apiclient.New(base,
		apiclient.WithToken(svc.Token()),
		apiclient.WithTimeout(timeout),
		apiclient.WithRateLimit(rps, 1),
		apiclient.WithTokenCache(""),
		apiclient.WithNow(clock.Now),
		apiclient.WithUserAgent("betplan/"+version),
	)
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &connection{client: c, clock: clock, baseURL: base, simulated: true, close: func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}}, nil
}

// isLoopbackAddr reports whether a listen address is on loopback.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
