package engine

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// Options configure a command of the engine.
type Options struct {
	Backend Backend
	Clock   Clock // default: the wall clock
	BaseURL string
	Version string // betplan's version, for reports
	// Simulated marks runs against the simulated service.
	Simulated bool

	PlanFile string // as given on the command line
	// State is where the reports live; zero fields take local.NewLayout's
	// defaults.
	State local.Layout
	// ReportDir is where a run writes the plan's reports when told
	// (--report-dir, absolute); "" for the default. The run keeps it in
	// the journal, so status, cancel and stop write where it did
	// (Result.ReportDir).
	ReportDir string
	// Store keeps the plan's journal, lock and stop mark: required by every
	// command that reads or writes the plan's saved state. The caller
	// chooses it (betplan's main in state.go); the engine never does.
	Store state.Store
	// Account is the account file, whose limits every plan sharing the
	// state is held to together (account.go); nil: none.
	Account *plan.Config
	// RehearsalPlans, set for a rehearsal (run --sim), are its plans: its
	// world holds their bets alone, so the account's limits count no other
	// journal of the state (an earlier rehearsal's, in a world that is
	// gone). Every rehearsal starts from nothing. nil: every plan sharing
	// the state counts.
	RehearsalPlans []string
	// Verbose makes the run's one question list every bet with how its
	// risk was worked out, not one line per race.
	Verbose bool
	// Question, for a run of several plans, is its one confirmation
	// (NewQuestion): it takes Confirm's place.
	Question *Question
	// RunGroup, for a run of several plans under one account file and
	// one state, holds the certain bets of every plan of it to the
	// account's limits together before any create (NewRunGroup).
	RunGroup *RunGroup
	// ServiceAccount is the account on the service the token (or the
	// login e-mail) names, as budget.AccountOf reads it; "" when nothing
	// says. A journal records a hash of it and belongs to that account.
	ServiceAccount string
	// LockTimeout is how long to wait for another run of the plan.
	LockTimeout time.Duration

	// AmbiguousGrace is how long to keep looking a label up after an
	// ambiguous create before concluding it did not land (default 60s).
	AmbiguousGrace time.Duration
	// LookupInterval is the pause between those look-ups (default 5s).
	LookupInterval time.Duration
	// MaxCreateAttempts bounds the creates sent for one label (default 3).
	MaxCreateAttempts int
	// RefreshEvery is how often races, sessions and events are read again
	// while bets wait (default 5m).
	RefreshEvery time.Duration

	AllowNoBot bool
	NoWait     bool
	// Confirm is asked once, before the first create, with a summary of
	// what the run may spend; nil means no confirmation is needed.
	Confirm func(summary string) (bool, error)
	// Log receives plain timestamped progress lines; nil discards them.
	Log io.Writer
	// Stamp is how a log line gives its time; default RFC 3339 in UTC.
	// The command passes the machine's zone, marked when simulated.
	Stamp func(time.Time) string
	// WallStamp is how a line about real time gives the wall clock's
	// time now: a wait for the plan's lock, an alert's attempts, which
	// wait on the wall clock whatever the service's clock. nil: such
	// lines are stamped as the rest (Stamp), the same clock on a real
	// run; a rehearsal's says "real time", its other lines "sim time".
	WallStamp func(time.Time) string
	// RaceTime is how a log line or a reason gives a time of a race's
	// day at a venue; default RFC 3339 in UTC. The command passes the
	// meeting's zone, as its reports show race times.
	RaceTime func(venue string, t time.Time) string
	// Live, if set, receives a one-line progress summary on every tick
	// (for a TTY).
	Live func(Progress)
	// Checkpoint, if set, is called at the points where a crash matters
	// most ("announce" before the journal announces a create, "creating"
	// after it did, "posted" after
	// the service answered and before the journal recorded it, "created"
	// after), so crash tests can kill the process exactly there.
	Checkpoint func(point string)
	// Serve, when set, runs the plan as `betplan serve` does (serve.go).
	Serve *ServeMode
	// OnlyLabels, when set, limits creates to these labels with these
	// amounts (a saved plan applied by run).
	OnlyLabels map[string]float64

	// TipsterAPIKey is the tip package's key, sent with every publish and
	// pre-alert; never logged, journalled or reported.
	TipsterAPIKey string
	// Republish names tips whose publish has an unknown outcome to send
	// again, deliberately (run --republish).
	Republish []string

	// Notify are the run's alert targets, their URLs expanded (alerts.go):
	// the plan's, and (once there is an account file) the account's.
	Notify []notify.Target
	// NotifyWithin bounds how long the end of a run waits for alerts to be
	// delivered (default 15s); what is left is tried by the next run.
	NotifyWithin time.Duration
	// NotifyClient and NotifyBackoff are the sender's HTTP client and
	// backoff; nil takes the defaults.
	NotifyClient  *http.Client
	NotifyBackoff func(attempt int) time.Duration
}

// Progress is a snapshot for live display.
type Progress struct {
	Now      time.Time
	ByStatus map[Status]int
	NextRace time.Time
	NextPoll time.Time
	// LastPlaced is the bet most recently placed, if any: when and by
	// which sessions (PlacedBy as in BetResult).
	LastPlaced *PlacedBet
}

// PlacedBet says when a bet was placed and by which sessions.
type PlacedBet struct {
	BetID string // as reports show it: the instance id of a for_each_race bet
	At    time.Time
	By    []string
	// Refused are the sessions that refused it, with the service's reason.
	Refused []string
}

func (o *Options) withDefaults() {
	if o.Clock == nil {
		o.Clock = RealClock()
	}
	o.State = o.State.WithDefaults(o.PlanFile)
	if o.AmbiguousGrace <= 0 {
		o.AmbiguousGrace = 60 * time.Second
	}
	if o.LookupInterval <= 0 {
		o.LookupInterval = 5 * time.Second
	}
	if o.LookupInterval > o.AmbiguousGrace {
		o.LookupInterval = o.AmbiguousGrace
	}
	if o.MaxCreateAttempts <= 0 {
		o.MaxCreateAttempts = 3
	}
	if o.RefreshEvery <= 0 {
		o.RefreshEvery = 5 * time.Minute
	}
}

// ErrNoStore is a command given no Store: where a plan's journal and lock
// live is its caller's choice, never a default of the engine.
var ErrNoStore = errors.New("engine: Options.Store is nil: the caller must choose where the plan's journal and lock live")

// validate checks, before any I/O, what a command of the plan's saved
// state needs of its options.
func (o *Options) validate() error {
	if o.Store == nil {
		return ErrNoStore
	}
	return nil
}
