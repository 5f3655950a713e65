package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

func validateRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan files to validate")
	}
	format, _ := fs.GetString("format")
	switch format {
	case "text", "json", "github":
	default:
		return usagef("--format is text, json or github, not %q", format)
	}
	var all plan.Diagnostics
	src := map[string][]byte{}
	var plans []*plan.Plan
	for _, path := range args {
		p, diags := plan.Load(path)
		all = append(all, diags...)
		if b, err := os.ReadFile(path); err == nil {
			src[path] = b
		}
		if p != nil {
			plans = append(plans, p)
		}
	}
	if online, _ := fs.GetBool("online"); online && !all.HasErrors() {
		diags, err := validateOnline(ctx, sys, fs, plans)
		if err != nil {
			return err
		}
		all = append(all, diags...)
	}
	var err error
	switch format {
	case "json":
		err = plan.WriteJSON(sys.Stdout, all)
	case "github":
		err = plan.WriteGitHub(sys.Stdout, all)
	default:
		if len(all) > 0 {
			err = plan.WriteText(sys.Stderr, all, src)
		}
		if !all.HasErrors() {
			noun := "plans are"
			if len(args) == 1 {
				noun = "plan is"
			}
			fmt.Fprintf(sys.Stdout, "%d %s valid", len(args), noun)
			if n := all.Warnings(); n > 0 {
				fmt.Fprintf(sys.Stdout, " (%s)", count(n, "warning"))
			}
			fmt.Fprintln(sys.Stdout)
		}
	}
	if err != nil {
		return err
	}
	if all.HasErrors() {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s, %s", count(all.Errors(), "error"), count(all.Warnings(), "warning"))}
	}
	return nil
}

func schemaRun(_ context.Context, sys *sysIO, _ *pflag.FlagSet, args []string) error {
	which := "plan"
	if len(args) > 1 {
		return usagef("schema takes at most one argument: plan or report")
	}
	if len(args) == 1 {
		which = args[0]
	}
	var b []byte
	var err error
	switch which {
	case "plan":
		b, err = plan.JSONSchema()
	case "report":
		b, err = reporters.JSONSchema()
	default:
		return usagef("unknown schema %q: plan or report", which)
	}
	if err != nil {
		return err
	}
	_, err = sys.Stdout.Write(b)
	return err
}

func simRun(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error {
	if len(args) > 0 {
		return usagef("sim takes no arguments, got %q", args[0])
	}
	addr, _ := fs.GetString("addr")
	seed, _ := fs.GetInt64("seed")
	speed, _ := fs.GetFloat64("speed")
	if !isLoopbackAddr(addr) {
		return usagef("--addr %s is not a loopback address: the simulated service only serves this machine", addr)
	}
	if speed <= 0 {
		return usagef("--speed must be positive, got %v", speed)
	}
	var clock sim.Clock = sim.RealClock()
	if speed != 1 {
		clock = sim.NewScaledClock(time.Now(), speed)
	}
	specs, _ := fs.GetStringArray("fault")
	faults, err := parseFaults(specs)
	if err != nil {
		return err
	}
	svc := sim.New(sim.Options{Seed: seed, Clock: clock})
	for _, f := range faults {
		svc.InjectFault(f)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(sys.Stdout, "simulated service listening (seed %d, clock x%g)\n", seed, speed)
	fmt.Fprintf(sys.Stdout, "export BETPLAN_BASE_URL=%s\n", base)
	fmt.Fprintf(sys.Stdout, "export BETPLAN_TOKEN=%s\n", svc.Token())
	fmt.Fprintf(sys.Stdout, "try: curl -H \"Authorization: Token $BETPLAN_TOKEN\" %s/competition/namecodes/\n", base)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		return err
	}
}

// validateOnline resolves each plan's races and sessions against the
// service with read-only calls.
func validateOnline(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, plans []*plan.Plan) (plan.Diagnostics, error) {
	conn, err := serviceFlagsOf(fs).connect(sys, false, 0)
	if err != nil {
		return nil, err
	}
	defer conn.close()
	var out plan.Diagnostics
	for _, p := range plans {
		d, err := engine.CheckOnline(ctx, p, conn.client, conn.clock)
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		out = append(out, d...)
	}
	return out, nil
}

// count says "1 error" or "3 errors".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
