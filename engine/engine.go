// Package engine turns a checked plan into actions on the service and
// outcomes: it resolves races, decides when each bet is ready, creates
// every bet at most once (journal, lock, label look-ups) and follows each
// outcome until it is final.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// Service is the narrow set of calls the engine makes; *apiclient.Client
// satisfies it.
type Service interface {
	ListRaces(ctx context.Context) ([]apiclient.Race, error)
	ListSessions(ctx context.Context) ([]apiclient.Session, error)
	NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error)
	ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error)
	CreateNotification(ctx context.Context, req *apiclient.CreateNotificationRequest) (*apiclient.CreateResult, error)
	BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error)
	CancelNotification(ctx context.Context, id int64) error
}

// Clock is the engine's time: the service's clock in tests and rehearsals.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RealClock is the wall clock.
func RealClock() Clock { return realClock{} }

// Options configure a command of the engine.
type Options struct {
	Service Service
	Clock   Clock // default: the wall clock
	BaseURL string
	Version string // betplan's version, for reports
	// Simulated marks runs against the simulated service.
	Simulated bool

	PlanFile string // as given on the command line
	StateDir string // default: .betplan beside the plan file
	LockDir  string // default: DefaultLockDir()
	// LockTimeout is how long to wait for another run of the plan.
	LockTimeout time.Duration

	// AmbiguousGrace is how long to keep looking a label up after an
	// ambiguous create before concluding it did not land (default 60s).
	AmbiguousGrace time.Duration
	// LookupInterval is the pause between those look-ups (default 5s).
	LookupInterval time.Duration
	// MaxCreateAttempts bounds the creates sent for one label (default 3).
	MaxCreateAttempts int
	// RefreshEvery is how often races and sessions are read again while
	// bets wait (default 5m).
	RefreshEvery time.Duration

	AllowNoBot bool
	NoWait     bool
	// Confirm is asked once, before the first create, with a summary of
	// what the run may spend; nil means no confirmation is needed.
	Confirm func(summary string) (bool, error)
	// Log receives plain timestamped progress lines; nil discards them.
	Log io.Writer
	// Live, if set, receives a one-line progress summary on every tick
	// (for a TTY).
	Live func(Progress)
	// Checkpoint, if set, is called at the points where a crash matters
	// most ("creating" after the journal announced a create, "posted" after
	// the service answered and before the journal recorded it, "created"
	// after), so crash tests can kill the process exactly there.
	Checkpoint func(point string)
	// OnlyLabels, when set, limits creates to these labels with these
	// amounts (a saved plan applied by run).
	OnlyLabels map[string]float64
}

// Progress is a snapshot for live display.
type Progress struct {
	Now      time.Time
	ByStatus map[Status]int
	NextRace time.Time
	NextPoll time.Time
}

func (o *Options) withDefaults() {
	if o.Clock == nil {
		o.Clock = RealClock()
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(filepath.Dir(o.PlanFile), ".betplan")
	}
	if o.LockDir == "" {
		o.LockDir = DefaultLockDir()
	}
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

// JournalPath is where a plan's journal lives in a state dir.
func JournalPath(stateDir, planName string) string {
	return filepath.Join(stateDir, planName+".journal.jsonl")
}

// RefusedError means a safety check refused to go on (exit code 3).
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// IsRefused reports whether err is a refusal by a safety check.
func IsRefused(err error) bool {
	var r *RefusedError
	var l *LockedError
	return errors.As(err, &r) || errors.As(err, &l)
}

// instance is one bet of the plan on one race.
type instance struct {
	bet   *plan.Bet
	race  *apiclient.Race // nil when unresolved or known only from the journal
	info  RaceInfo
	label string

	status Status
	reason string
	err    string
	amount float64 // the evaluated stake or target profit, once known

	notifID    int64
	createdAt  time.Time
	lastPolled time.Time
	notif      *apiclient.Notification
	records    []Record
	final      bool
}

// open reports whether the instance still needs attention.
func (in *instance) open() bool {
	switch in.status {
	case StatusWaiting, StatusCreated, StatusPlaced:
		return true
	}
	return false
}

// run is the state of one engine command.
type run struct {
	opts    Options
	plan    *plan.Plan
	svc     Service
	clock   Clock
	journal *Journal

	races       []apiclient.Race
	sessions    []apiclient.Session
	sessionsAt  time.Time // when sessions were read
	lastRefresh time.Time
	insts       []*instance
	byLabel     map[string]*instance

	confirmed bool
	refused   string
	// stopCreating, once set, says why no more bets are created this run.
	stopCreating string
	expanded     bool // for_each_race was expanded
}

func newRun(p *plan.Plan, opts Options) *run {
	opts.withDefaults()
	return &run{opts: opts, plan: p, svc: opts.Service, clock: opts.Clock, byLabel: make(map[string]*instance)}
}

func (r *run) checkpoint(point string) {
	if r.opts.Checkpoint != nil {
		r.opts.Checkpoint(point)
	}
}

func (r *run) logf(format string, args ...any) {
	if r.opts.Log == nil {
		return
	}
	fmt.Fprintf(r.opts.Log, "%s %s\n", r.clock.Now().UTC().Format("2006-01-02T15:04:05Z"), fmt.Sprintf(format, args...))
}

func (r *run) newResult(kind Kind, started time.Time) *Result {
	res := &Result{
		Kind:      kind,
		PlanName:  r.plan.Name,
		PlanFile:  r.opts.PlanFile,
		PlanHash:  r.plan.Hash,
		Version:   r.opts.Version,
		BaseURL:   r.opts.BaseURL,
		Simulated: r.opts.Simulated,
		StartedAt: started,
		Limits: LimitsSummary{
			MaxStakePerBet: r.plan.Limits.MaxStakePerBet,
			MaxTotalStake:  r.plan.Limits.MaxTotalStake,
			MaxBets:        r.plan.Limits.MaxBets,
		},
	}
	return res
}

// fill writes the instances into res and computes totals.
func (r *run) fill(res *Result) {
	r.sortInstances()
	res.Bets = res.Bets[:0]
	for _, in := range r.insts {
		res.Bets = append(res.Bets, in.result())
	}
	if r.journal != nil {
		res.Limits.Committed, res.Limits.CreatedBets = r.journal.Committed()
	}
	res.FinishedAt = r.clock.Now()
	res.ComputeTotals()
}

// sortInstances orders bets as the plan lists them, then by race start:
// the same order whichever way the instances were found.
func (r *run) sortInstances() {
	index := make(map[*plan.Bet]int, len(r.plan.Bets))
	for i, b := range r.plan.Bets {
		index[b] = i
	}
	sort.SliceStable(r.insts, func(i, j int) bool {
		a, b := r.insts[i], r.insts[j]
		if index[a.bet] != index[b.bet] {
			return index[a.bet] < index[b.bet]
		}
		if !a.info.Start.Equal(b.info.Start) {
			return a.info.Start.Before(b.info.Start)
		}
		return a.label < b.label
	})
}

func (in *instance) result() BetResult {
	b := BetResult{
		ID:             in.bet.ID,
		Label:          in.label,
		Race:           in.info,
		Selection:      in.bet.Selection,
		Type:           in.bet.Type,
		Market:         in.bet.Market,
		Status:         in.status,
		Reason:         in.reason,
		NotificationID: in.notifID,
		CreatedAt:      in.createdAt,
		Records:        in.records,
		Final:          in.final,
		Error:          in.err,
	}
	if in.amount > 0 {
		a := in.amount
		if in.bet.AmountField() == "target_profit" {
			b.TargetProfit = &a
		} else {
			b.Stake = &a
		}
	}
	if in.notif != nil {
		b.AmountAccepted = float64(in.notif.TotalAccepted)
		b.Profit = roundCents(float64(in.notif.Profit))
	}
	return b
}
