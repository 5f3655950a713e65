package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// commandSetup is how every command that works on plans through the
// engine is set up, the one way: a connection to the service (or a
// rehearsal's simulated one) and the store that keeps the plans' journals
// and locks. Setting one up sends one request, the connection check,
// and writes nothing. (Not "session": that word is the bookmaker's.)
type commandSetup struct {
	sys   *sysIO
	state stateOptions
	conn  *serviceConn
	// shared is the database --state names, nil for none; each plan's
	// store is chosen from it and the plan's layout (stateOptions.store).
	shared state.Store
}

// setUp connects as the flags and the environment say. With
// rehearsal.Sim it serves the simulated service in-process instead, whose
// world keeps its own state: a shared state is not used then.
func setUp(ctx context.Context, sys *sysIO, service *serviceOptions, state stateOptions, rehearsal *rehearsalOptions) (*commandSetup, error) {
	s := &commandSetup{sys: sys, state: state}
	if rehearsal != nil && rehearsal.Sim {
		conn, err := service.startSim(rehearsal.World, rehearsal.Faults.parsed)
		if err != nil {
			return nil, err
		}
		s.conn = conn
		state.rehearsalNote(sys)
		return s, nil
	}
	conn, err := service.dial(sys, &state)
	if err != nil {
		return nil, err
	}
	// A shared state that cannot be used is refused before any request
	// (a usage error, or a database out of reach); the check comes next,
	// before anything is written.
	shared, err := state.sharedStore(sys, conn.insecure)
	if r, ok := shared.(interface {
		Reach(ctx context.Context, prepare bool) error
	}); ok && err == nil {
		switch state.use {
		case stateReads:
			err = r.Reach(ctx, false)
		case stateWrites:
			err = r.Reach(ctx, true)
		}
	}
	if err == nil {
		err = conn.checkService(ctx, service.refusing)
	}
	if err != nil {
		conn.close()
		return nil, err
	}
	s.conn, s.shared = conn, shared
	return s, nil
}

func (s *commandSetup) close() { s.conn.close() }

// setUpConfirmed is setUp for a command that asks before it acts
// (confirmer): refused before any connection when it cannot ask.
func setUpConfirmed(ctx context.Context, sys *sysIO, yes, simulate bool, service *serviceOptions, state stateOptions, rehearsal *rehearsalOptions) (func(string) (bool, error), *commandSetup, error) {
	var s *commandSetup
	confirm, err := confirmer(sys, yes, simulate, func() bool { return s != nil && s.conn.servesSimulation() })
	if err != nil {
		return nil, nil, err
	}
	s, err = setUp(ctx, sys, service, state, rehearsal)
	if err != nil {
		return nil, nil, err
	}
	return confirm, s, nil
}

// confirmer decides how `run` and `cancel` ask before acting on a real
// service: --yes, an interactive yes on a TTY, or a refusal. A service that
// says it is a simulation (served reports it, once connected) is asked the
// same, in words that say what it claims: the claim alone never skips the
// question.
func confirmer(sys *sysIO, yes, simulated bool, served func() bool) (func(string) (bool, error), error) {
	if yes || simulated {
		return nil, nil
	}
	if !sys.Interactive {
		return nil, refusef("refused: %s", refusedNoConfirmation)
	}
	return func(summary string) (bool, error) {
		stake := "This acts on real money."
		if served != nil && served() {
			stake = "The service says it is a simulation (betplan sim on this machine); if it is not, this acts on real money."
		}
		fmt.Fprintf(sys.Stderr, "%s\n%s Type yes (or y) to go on: ", summary, stake)
		line, err := bufio.NewReader(sys.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		switch strings.TrimSpace(strings.ToLower(line)) {
		case "yes", "y":
			return true, nil
		}
		return false, nil
	}, nil
}

const refusedNoConfirmation = "acting on a real service needs --yes, or an interactive yes on a terminal"

// options are the engine's options for the plan in planFile.
func (s *commandSetup) options(planFile string) engine.Options {
	c := s.conn
	c.logRetries(s.sys.Stderr)
	layout := local.NewLayout(s.state.StateDir, planFile, c.simulated)
	store := rehearsalStore(layout)
	if !c.simulated {
		store = storeFor(layout, s.shared)
	}
	return engine.Options{
		Backend:   c.client,
		Clock:     c.clock,
		BaseURL:   c.baseURL,
		Version:   version,
		Simulated: c.simulated,
		PlanFile:  planFile,
		State:     layout,
		Store:     store,
		Log:       s.sys.Stderr,
		Stamp:     func(t time.Time) string { return shownClock(c.clock, c.simulated).Stamp(t) },
		WallStamp: func(t time.Time) string { return wallClock(c.clock, c.simulated).Stamp(t) },
		RaceTime:  reporters.RaceTime,

		TipsterAPIKey:  c.tipsterKey,
		ServiceAccount: c.account,
	}
}

// stateOnly is the engine's options for a plan's saved state alone,
// with no connection to the service: what cancel checks instance ids
// against, and what stop --resume and unlock change.
func stateOnly(sys *sysIO, service *serviceOptions, state stateOptions, planFile string) (engine.Options, error) {
	base, err := service.baseURL(sys)
	if err != nil {
		return engine.Options{}, err
	}
	layout := local.NewLayout(state.StateDir, planFile, false)
	store, err := state.store(sys, service.Insecure, layout)
	if err != nil {
		return engine.Options{}, err
	}
	return engine.Options{BaseURL: base, PlanFile: planFile, State: layout, Store: store}, nil
}

// inTurn runs command on each plan in turn, through the one client and
// one set of reads, each plan's log lines kept together; configure
// completes a plan's options first (an error of it ends the whole).
// Once ctx ends, no further plan is started.
func (s *commandSetup) inTurn(ctx context.Context, plans []*plan.Plan, files []string,
	configure func(i int, opts *engine.Options) error,
	command func(p *plan.Plan, opts engine.Options) (*engine.Result, error),
) ([]engine.Options, []*engine.Result, []error, error) {
	account := engine.NewAccount(s.conn.client, s.conn.clock, 0)
	logs := &planLogs{w: s.sys.Stderr}
	// The reads the plans share are the account's: their retries are no
	// one plan's.
	s.conn.logRetries(logs.account())
	opts := make([]engine.Options, len(plans))
	results := make([]*engine.Result, len(plans))
	errs := make([]error, len(plans))
	for i, p := range plans {
		opts[i] = s.options(files[i])
		opts[i].Log = logs.plan(p.Name)
		opts[i].Backend = account.PlanTelling(s.conn.retries.hook(opts[i].Log))
		if err := configure(i, &opts[i]); err != nil {
			return nil, nil, nil, err
		}
		results[i], errs[i] = command(p, opts[i])
		if ctx.Err() != nil {
			break
		}
	}
	logs.flush()
	return opts, results, errs, nil
}
