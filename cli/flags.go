package cli

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/reporters"
)

// serviceOptions are the connection flags of every command that talks to
// the service.
type serviceOptions struct {
	BaseURL     string
	HTTPTimeout optional[time.Duration]
	MaxRPS      optional[float64]
	Insecure    bool
	// rehearsable says the command has --sim, so hints may offer it.
	rehearsable bool
	// transport and limiter, when set, wrap the client's transport and
	// the account's request budget (betplan serve's gate and counts).
	transport func(http.RoundTripper) http.RoundTripper
	limiter   func(apiclient.Limiter) apiclient.Limiter
	// refusing says which failures of the connection check refuse the
	// command; the zero value, every one.
	refusing checkRefuses
}

func (s *serviceOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&s.BaseURL, "base-url", "", "service base URL (default $BETPLAN_BASE_URL)")
	s.HTTPTimeout = optional[time.Duration]{Value: 30 * time.Second, parse: time.ParseDuration, typ: "duration"}
	fs.Var(&s.HTTPTimeout, "http-timeout", "bound on one HTTP call, 1s to 10m")
	s.MaxRPS = optional[float64]{Value: 4, parse: func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, typ: "float64"}
	fs.Var(&s.MaxRPS, "max-rps", "the account's request rate, shared by its betplan processes on this host and through --state, requests per second (0.1 to 50)")
	fs.BoolVar(&s.Insecure, "insecure", false, "allow a plain http:// base URL, or a --state with sslmode=disable, that is not loopback")
}

// checkRefuses says which failures of the connection check refuse a
// command.
type checkRefuses int

const (
	// refuseAny: any failure refuses (run, plan, status, cancel,
	// validate --online, history): the command has nothing to do without
	// the service.
	refuseAny checkRefuses = iota
	// refuseNotService: only an answer that is not the service's
	// refuses (stop: a plan's stop mark is set in an outage too, and
	// the cancels that fail are reported).
	refuseNotService
	// refuseUnreached: credentials the service refuses (401, 403) do
	// not (doctor, which reports them among its checks).
	refuseUnreached
)

// Sane ranges of the connection flags: outside them a run is either
// impolite to the service or unable to tell a slow answer from none.
const (
	minRPS         = 0.1
	maxRPS         = 50
	minHTTPTimeout = time.Second
	maxHTTPTimeout = 10 * time.Minute
)

// validate refuses a request rate or an HTTP timeout out of its sane range.
func (s *serviceOptions) validate() error {
	if r := s.MaxRPS.Value; s.MaxRPS.IsSet && !(r >= minRPS && r <= maxRPS) { // NaN fails both
		return usagef("--max-rps %v: want between %v and %v requests per second", r, minRPS, maxRPS)
	}
	if d := s.HTTPTimeout.Value; s.HTTPTimeout.IsSet && (d < minHTTPTimeout || d > maxHTTPTimeout) {
		return usagef("--http-timeout %v: want between %v and %v", d, minHTTPTimeout, maxHTTPTimeout)
	}
	return nil
}

// timeout is the HTTP timeout a connection will use: a rehearsal's own
// default is shorter, so a rehearsed hanging create gives up soon.
func (s *serviceOptions) timeout(rehearse bool) time.Duration {
	if rehearse && !s.HTTPTimeout.IsSet {
		return rehearsalHTTPTimeout
	}
	return s.HTTPTimeout.Value
}

const rehearsalHTTPTimeout = 5 * time.Second

// stateOptions say where a plan's state lives: the local state dir, or a
// PostgreSQL database shared by every machine that runs the plan.
type stateOptions struct {
	StateDir string
	URL      string
	Schema   string
	// use says what the command does with a shared state, so it is
	// reached as the command needs before its first request.
	use stateUse
}

// stateUse is what a command does with a shared state.
type stateUse int

const (
	// stateReads, the zero value: it reads plans' state; the shared
	// state is reached (its schema's version checked, nothing created)
	// before the command's first request.
	stateReads stateUse = iota
	// stateWrites: it writes plans' state (run, cancel, stop); the
	// shared state's schema is set up before the command's first
	// request, so the request budget finds its tables from it.
	stateWrites
	// stateExamined: whether the shared state can be read is one of the
	// command's findings (doctor): it is not reached first.
	stateExamined
)

func (s *stateOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&s.StateDir, "state-dir", "", "state directory (default .betplan/ beside the plan)")
	s.bindShared(fs)
}

func (s *stateOptions) bindShared(fs *pflag.FlagSet) {
	fs.StringVar(&s.URL, "state", "", "keep the journal and the lock in this PostgreSQL database, shared by every machine: postgres://user@host/db (default $BETPLAN_STATE)")
	fs.StringVar(&s.Schema, "state-schema", "", "schema of the shared state (default the URL's search_path, or betplan)")
}

// reportOptions say where and how a command reports.
type reportOptions struct {
	Dir    string
	Format string
	format reporters.Format
}

func (r *reportOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&r.Dir, "report-dir", "", "directory for reports (default <state-dir>/report/<plan name>; rehearsals, --sim or against betplan sim: <state-dir>/sim/report/<plan name>)")
}

// validate refuses a --format no reporter writes.
func (r *reportOptions) validate() error {
	f, err := reporters.ParseFormat(r.Format)
	if err != nil {
		return usagef("%v", err)
	}
	r.format = f
	return nil
}

func (r *reportOptions) bindFormat(fs *pflag.FlagSet) {
	fs.StringVar(&r.Format, "format", "text", "report format on stdout: text, json, markdown, junit or html")
}

// rehearsalOptions are the flags of a command that can run on an
// in-process simulated service.
type rehearsalOptions struct {
	Sim    bool
	World  simWorld
	Faults faultOptions
}

// validate parses --fault, which only the simulated service takes.
func (r *rehearsalOptions) validate() error {
	if len(r.Faults.Specs) > 0 && !r.Sim {
		return usagef("--fault injects faults into the simulated service: use it with --sim")
	}
	// The simulated world's flags mean nothing to a real service: taken
	// silently, they would let a punter believe a real run was rehearsed.
	if r.World.seedSet && !r.Sim {
		return usagef("--seed sets the simulated world's seed: use it with --sim")
	}
	if !r.World.Start.IsZero() && !r.Sim {
		return usagef("--sim-start sets the simulated clock's start: use it with --sim")
	}
	return r.Faults.validate()
}

func (r *rehearsalOptions) bindWorld(fs *pflag.FlagSet) {
	r.World.bind(fs, "with --sim: ")
}

// simWorld is the simulated world a rehearsal or `betplan sim` serves.
type simWorld struct {
	Seed  int64
	Start startTime
	// seedSet: --seed was given.
	seedSet bool
}

func (w *simWorld) bind(fs *pflag.FlagSet, prefix string) {
	w.Seed = 1
	fs.Var(&seedFlag{seed: &w.Seed, set: &w.seedSet}, "seed", prefix+"seed of the simulated world")
	fs.Var(&w.Start, "sim-start", prefix+"the simulated clock's start, RFC 3339 (e.g. 2026-11-28T23:30:00+11:00; default now): rehearse a plan as a run at that time would go")
}

// faultOptions are the --fault flags of the simulated service: `betplan
// sim`'s, and a rehearsal's (run --sim).
type faultOptions struct {
	Specs []string
	// parsed are Specs parsed by validate.
	parsed []sim.Fault
}

func (f *faultOptions) bind(fs *pflag.FlagSet, prefix string) {
	fs.StringArrayVar(&f.Specs, "fault", nil, prefix+faultHelp)
}

// validate parses every --fault.
func (f *faultOptions) validate() error {
	parsed, err := parseFaults(f.Specs)
	if err != nil {
		return err
	}
	f.parsed = parsed
	return nil
}

// seedFlag is --seed, remembering that it was given.
type seedFlag struct {
	seed *int64
	set  *bool
}

func (f *seedFlag) String() string {
	if f.seed == nil {
		return "1"
	}
	return strconv.FormatInt(*f.seed, 10)
}

func (f *seedFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	*f.seed, *f.set = v, true
	return nil
}

func (f *seedFlag) Type() string { return "int64" }

// startTime is an RFC 3339 time flag; zero means now.
type startTime struct{ time.Time }

func (t *startTime) String() string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

func (t *startTime) Set(s string) error {
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("want an RFC 3339 time such as 2026-11-28T23:30:00+11:00")
	}
	t.Time = v
	return nil
}

func (t *startTime) Type() string { return "time" }

// or is the start, or now when none was given.
func (t startTime) or(now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.Time
}

// optional is a flag value that remembers whether it was set, for a
// default that depends on where the command goes (a rehearsal has its own).
type optional[T any] struct {
	Value T
	IsSet bool
	parse func(string) (T, error)
	typ   string
}

func (o *optional[T]) String() string { return fmt.Sprint(o.Value) }

func (o *optional[T]) Set(s string) error {
	v, err := o.parse(s)
	if err != nil {
		return err
	}
	o.Value, o.IsSet = v, true
	return nil
}

func (o *optional[T]) Type() string { return o.typ }
