package cli

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

// simOptions are the flags of `betplan sim`.
type simOptions struct {
	Addr   string
	World  simWorld
	Speed  float64
	Faults faultOptions
}

func simCommand() *command {
	return &command{
		name:    "sim",
		summary: "serve the simulated service on a loopback address for rehearsals",
		exits: []exitDoc{
			{exitOK, "the service was stopped (Ctrl-C or SIGTERM)"},
			{exitFailed, "the service could not listen on --addr"},
			{exitUsage, "usage error: a bad flag, or an address that is not loopback"},
		},
		examples: `  # a rehearsal service whose clock runs a minute a second
  betplan sim --speed 60
  # then, in another terminal, with the variables it prints
  betplan run plans/saturday.yaml
`,
		setup: bindTo((*simOptions).bind, serveSim),
	}
}

func (o *simOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8787", "listen address (loopback only)")
	o.World.bind(fs, "")
	fs.Float64Var(&o.Speed, "speed", 1, "how fast the simulated clock runs (60 = a minute a second)")
	o.Faults.bind(fs, "")
}

func (o *simOptions) validate() error {
	if !apiclient.IsLoopbackAddr(o.Addr) {
		return usagef("--addr %s is not a loopback address: the simulated service only serves this machine", o.Addr)
	}
	if !(o.Speed > 0) || math.IsInf(o.Speed, 0) {
		return usagef("--speed must be positive, got %v", o.Speed)
	}
	return o.Faults.validate()
}

// serveSim is `betplan sim`: a simulated service for rehearsals until
// Ctrl-C.
func serveSim(ctx context.Context, sys *sysIO, o *simOptions, args []string) error {
	if len(args) > 0 {
		return usagef("sim takes no arguments, got %q", args[0])
	}
	var clock sim.Clock = sim.RealClock()
	if o.Speed != 1 || !o.World.Start.IsZero() {
		clock = sim.NewScaledClock(o.World.Start.or(time.Now()), o.Speed)
	}
	svc := sim.New(sim.Options{Seed: o.World.Seed, Clock: clock})
	for _, f := range o.Faults.parsed {
		svc.InjectFault(f)
	}
	srv, err := sim.Serve(svc, o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	fmt.Fprintf(sys.Stdout, "simulated service listening (seed %d, clock x%g)\n", o.World.Seed, o.Speed)
	fmt.Fprintf(sys.Stdout, "export BETPLAN_BASE_URL=%s\n", srv.URL)
	fmt.Fprintf(sys.Stdout, "export BETPLAN_TOKEN=%s\n", svc.Token())
	// The simulator's own account: with these, betplan logs in again by
	// itself when the token expires (--fault expire-tokens).
	email, password := svc.Credentials()
	fmt.Fprintf(sys.Stdout, "export BETPLAN_EMAIL=%s\n", email)
	fmt.Fprintf(sys.Stdout, "export BETPLAN_PASSWORD=%s\n", password)
	// The simulated tip package's key: it opens nothing but this simulator.
	fmt.Fprintf(sys.Stdout, "export %s=%s\n", tipsterKeyEnv, sim.DefaultTipsterAPIKey)
	fmt.Fprintf(sys.Stdout, "try: curl -H \"Authorization: Token $BETPLAN_TOKEN\" %s/competition/namecodes/\n", srv.URL)
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case <-srv.Done():
		return srv.Err()
	}
}
