package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"
)

// serviceFlags are the connection settings shared by every command that
// talks to the service.
type serviceFlags struct {
	baseURL     string
	httpTimeout time.Duration
	maxRPS      float64
	maxRPSSet   bool
	timeoutSet  bool
	insecure    bool
}

// serviceFlagsOf reads the flags declare added.
func serviceFlagsOf(fs *pflag.FlagSet) *serviceFlags {
	s := &serviceFlags{}
	s.baseURL, _ = fs.GetString("base-url")
	s.httpTimeout, _ = fs.GetDuration("http-timeout")
	s.maxRPS, _ = fs.GetFloat64("max-rps")
	s.maxRPSSet = fs.Changed("max-rps")
	s.timeoutSet = fs.Changed("http-timeout")
	s.insecure, _ = fs.GetBool("insecure")
	return s
}

func (s *serviceFlags) declare(fs *pflag.FlagSet) {
	fs.StringVar(&s.baseURL, "base-url", "", "service base URL (default $BETPLAN_BASE_URL)")
	fs.DurationVar(&s.httpTimeout, "http-timeout", 30*time.Second, "bound on one HTTP call")
	fs.Float64Var(&s.maxRPS, "max-rps", 4, "global request rate to the service, requests per second")
	fs.BoolVar(&s.insecure, "insecure", false, "allow a plain http:// base URL that is not loopback")
}

// resolveBaseURL applies flag > environment > default.
func (s *serviceFlags) resolveBaseURL(sys *sysIO) string {
	if s.baseURL != "" {
		return s.baseURL
	}
	return sys.Getenv("BETPLAN_BASE_URL")
}

func validateCommand() *command {
	return &command{
		name:    "validate",
		args:    "PLAN...",
		summary: "check plans offline and report every problem with its position",
		flags: func(fs *pflag.FlagSet) {
			fs.String("format", "text", "output format: text, json or github")
			fs.Bool("online", false, "also resolve races and sessions against the service (read-only)")
		},
		run: validateRun,
	}
}

func planCommand() *command {
	return &command{
		name:    "plan",
		args:    "PLAN",
		summary: "show what run would do now, without creating anything",
		flags: func(fs *pflag.FlagSet) {
			fs.String("out", "", "save the plan to FILE; 'betplan run FILE' then applies exactly that")
			fs.Bool("detailed-exitcode", false, "exit 0 when nothing would be created, 4 when something would")
			fs.String("format", "text", "output format: text, json or markdown")
			fs.Bool("sim", false, "resolve against an in-process simulated service")
			fs.Int64("seed", 1, "with --sim: seed of the simulated world")
			fs.String("state-dir", "", "state directory (default .betplan/ beside the plan)")
			(&serviceFlags{}).declare(fs)
		},
		run: planRun,
	}
}

func runCommand() *command {
	return &command{
		name:    "run",
		args:    "PLAN",
		summary: "create the plan's bets exactly once and follow their outcomes",
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("yes", false, "do not ask for confirmation before creating bets on a real service")
			fs.Bool("no-wait", false, "create what is ready now, record the rest as waiting, and exit")
			fs.Bool("sim", false, "run against an in-process simulated service with a fast clock")
			fs.String("report-dir", "", "directory for reports (default <state-dir>/report/<plan name>; rehearsals: .betplan/sim/report/<plan name>)")
			fs.String("state-dir", "", "state directory (default .betplan/ beside the plan)")
			fs.Duration("ambiguous-grace", 60*time.Second, "how long to look a label up after an ambiguous create")
			fs.Duration("lock-timeout", 0, "how long to wait for another run of the plan to finish")
			fs.Bool("allow-no-bot", false, "create even when no targeted session has a running bot")
			fs.String("format", "text", "report format on stdout: text, json, markdown, junit or html")
			fs.Int64("seed", 1, "with --sim: seed of the simulated world")
			fs.StringArray("fault", nil, "with --sim: "+faultHelp)
			(&serviceFlags{}).declare(fs)
		},
		run: runRun,
	}
}

func statusCommand() *command {
	return &command{
		name:    "status",
		args:    "PLAN",
		summary: "re-read the outcomes of the plan's bets and rewrite the report",
		flags: func(fs *pflag.FlagSet) {
			fs.String("report-dir", "", "directory for reports (default <state-dir>/report/<plan name>; rehearsals: .betplan/sim/report/<plan name>)")
			fs.String("state-dir", "", "state directory (default .betplan/ beside the plan)")
			fs.String("format", "text", "report format on stdout: text, json, markdown, junit or html")
			(&serviceFlags{}).declare(fs)
		},
		run: statusRun,
	}
}

func cancelCommand() *command {
	return &command{
		name:    "cancel",
		args:    "PLAN [BET-ID...]",
		summary: "cancel the plan's notifications that can still be cancelled",
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("yes", false, "do not ask for confirmation")
			fs.String("state-dir", "", "state directory (default .betplan/ beside the plan)")
			(&serviceFlags{}).declare(fs)
		},
		run: cancelRun,
	}
}

func unlockCommand() *command {
	return &command{
		name:    "unlock",
		args:    "PLAN",
		summary: "remove a stale lock left by a run of the plan, showing its owner",
		flags: func(fs *pflag.FlagSet) {
			fs.Bool("force", false, "remove the lock even while a live process holds it")
			fs.String("base-url", "", "service base URL the lock is for (default $BETPLAN_BASE_URL)")
		},
		run: unlockRun,
	}
}

func schemaCommand() *command {
	return &command{
		name:    "schema",
		args:    "[plan|report]",
		summary: "print the JSON Schema of plan files (or of report.json)",
		run:     schemaRun,
	}
}

func simCommand() *command {
	return &command{
		name:    "sim",
		summary: "serve the simulated service on a loopback address for rehearsals",
		flags: func(fs *pflag.FlagSet) {
			fs.String("addr", "127.0.0.1:8787", "listen address (loopback only)")
			fs.Int64("seed", 1, "seed of the simulated world")
			fs.Float64("speed", 1, "how fast the simulated clock runs (60 = a minute a second)")
			fs.StringArray("fault", nil, faultHelp)
		},
		run: simRun,
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the betplan version",
		run: func(_ context.Context, sys *sysIO, _ *pflag.FlagSet, args []string) error {
			if len(args) > 0 {
				return usagef("version takes no arguments, got %q", args[0])
			}
			fmt.Fprintf(sys.Stdout, "betplan %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
