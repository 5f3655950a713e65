package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
)

// Status is where one bet of a plan stands (engine/bet, which the parts
// of the engine share). The strings are part of the report.json contract.
type Status = bet.Status

// The statuses of a bet, in the order a report lists them.
const (
	StatusWaiting    = bet.Waiting
	StatusInDoubt    = bet.InDoubt
	StatusSkipped    = bet.Skipped
	StatusUnresolved = bet.Unresolved
	StatusCreated    = bet.Created
	StatusPlaced     = bet.Placed
	StatusNotTaken   = bet.NotTaken
	StatusFailed     = bet.Failed
	StatusSettled    = bet.Settled
	StatusCanceled   = bet.Canceled
)

// Statuses lists every status in report order.
func Statuses() []Status {
	return []Status{StatusWaiting, StatusInDoubt, StatusSkipped, StatusUnresolved, StatusCreated, StatusPlaced,
		StatusNotTaken, StatusFailed, StatusSettled, StatusCanceled}
}

// Action is what `betplan plan` says `run` would do with a bet now.
type Action string

// The actions of a plan preview.
const (
	ActionCreate     Action = "create"     // ready: run would create it now
	ActionWait       Action = "wait"       // its condition is not true yet
	ActionSkip       Action = "skip"       // it will not be created (race started, condition never true)
	ActionAdopt      Action = "adopt"      // a notification with its label exists: run adopts it, never creates
	ActionNone       Action = "none"       // already created by an earlier run (journal)
	ActionUnresolved Action = "unresolved" // its race could not be found
	ActionRefuse     Action = "refuse"     // creating it would break a limit
)

// Kind says which command produced a Result.
type Kind string

// The kinds of result.
const (
	KindRun    Kind = "run"
	KindStatus Kind = "status"
	KindPlan   Kind = "plan"
)

// EndReason says why a command stopped. The strings are part of the
// report.json contract.
type EndReason string

// The end reasons of a command.
const (
	EndCompleted   EndReason = "completed"   // every bet is final, or the command did all it had to
	EndNoWait      EndReason = "no-wait"     // --no-wait: what was ready was created
	EndInterrupted EndReason = "interrupted" // Ctrl-C or SIGTERM
	EndTimeout     EndReason = "timeout"     // poll.timeout passed with bets still open
	EndRefused     EndReason = "refused"     // a safety check refused
	EndLimit       EndReason = "limit"       // the plan's limits did their job: a stop reached, a cap already told, its own odds bound
	EndStopped     EndReason = "stopped"     // the plan is stopped (betplan stop): what it placed was read, nothing created
	EndError       EndReason = "error"       // an error stopped it
)

// Result is everything a command learnt about a plan: what reporters render.
type Result struct {
	Kind Kind
	// Command is the command that produced a status result when it is
	// not `status` itself ("cancel", "stop"), for the report's title.
	Command   string
	PlanName  string
	PlanFile  string // as given on the command line
	PlanHash  string // "sha256:<hex>" of the plan file
	Version   string // betplan's version
	BaseURL   string // never with credentials
	Simulated bool   // run against the simulated service
	// Refusal is the reason code of the refusal that ended the command
	// (EndRefused): reason.Limit when a limit refused it, the limit doing
	// its job rather than a failure.
	Refusal    reason.Code
	StartedAt  time.Time
	FinishedAt time.Time
	// Zone is the zone the command's own times are shown in (the
	// machine's; nil: UTC), and SimTime says they are a simulated
	// service's clock: both set by the command, for the reports' words.
	Zone    *time.Location
	SimTime bool
	// Running is the run that held the plan's lock while a status read
	// it (who, since when); nil when none did, or the store cannot tell.
	Running *state.LockOwner
	// ReportDir is where the plan's last run wrote its reports, as its
	// journal keeps it; "" for the default.
	ReportDir string

	EndReason EndReason
	// Error is the fatal error that ended the command, if any.
	Error string
	// Stopped says who stopped the plan and when, for a run that ended
	// because the plan is stopped (EndStopped).
	Stopped string

	Limits LimitsSummary
	// Account is the account file's limits and what every plan sharing
	// the state uses of them; nil without an account file.
	Account *AccountSummary
	Bets    []BetResult
	Totals  Totals

	// Tips are the plan's tips (one per race for for_each_race tips), in
	// plan order; Prealerts the pre-alerts, one per race with tips.
	Tips      []TipResult
	Prealerts []PrealertResult
	// Assumptions say what was assumed where the service's shapes are
	// not known.
	Assumptions []string
	// Warnings are what a preview found of the plan against the races it
	// read that validate cannot know offline: a for_each_race that
	// matches no upcoming race. The command shows them beside the report.
	Warnings plan.Diagnostics
	// Alerts are the alerts not delivered by the end of the run.
	Alerts []AlertResult
}

// LimitsSummary is the plan's limits and how much of them is used.
type LimitsSummary struct {
	plan.Limits
	// Committed is the amount the plan's bets requested (in this and
	// earlier runs); Planned adds what a preview would create now.
	Committed float64
	Planned   float64
	// CreatedBets counts notifications this plan has created, ever.
	CreatedBets int
	// Periods are what the bets of each period of the limits the result
	// covers add up to, counted as the limits count them (money at risk).
	Periods []PeriodUsage
}

// RaceInfo is the race a bet is for, as the service names it; for a bet
// on a sports event, Event says which (and Start is the event's).
type RaceInfo struct {
	Venue       string
	Code        string
	EventNumber int
	Start       time.Time
	Event       *EventInfo `json:",omitempty"` // sports.go
}

// BetResult is one bet of the plan (one per race for for_each_race bets).
type BetResult struct {
	ID string // as written in the plan
	// InstanceID is the id reports show and cancel takes: the bet id, or
	// for a for_each_race bet the race's instance, "box1@the-meadows-r5"
	// (instance.go).
	InstanceID string
	Label      string // exactly as sent to the service
	Race       RaceInfo
	Selection  string
	Type       string
	Market     string
	// Stake and TargetProfit are the requested amounts; nil when the bet's
	// type does not use the field or it is not evaluated yet.
	Stake        *float64
	TargetProfit *float64
	// AtRisk is the money the bet puts at risk: before it is created, its
	// amount times the sessions that can place it; after, what the
	// sessions accepted, or may still place. AtRiskBasis says how it was
	// worked out.
	AtRisk      float64
	AtRiskBasis string

	Status Status
	Action Action // set in plan previews only
	Reason string // why it has this status, in words
	// Why is Reason as a program reads it: its code from the one list
	// (package reason), and the limit for a limit or a stop; a bet that
	// is where it is for no reason to give (placed, settled) has none.
	Why reason.Why

	NotificationID int64
	CreatedAt      time.Time
	// PlacedAt is when the first session placed it (the records' submit
	// time, read when the bet is first seen placed; if they cannot be
	// read, the poll that first saw it placed); zero while nothing is
	// placed.
	PlacedAt time.Time
	// PlacedBy names the sessions that placed it: exact once the bet
	// records are read, before that the targeted sessions whose bots took
	// it up.
	PlacedBy []string
	// RefusedBy names the sessions whose records refused it, each with
	// the service's reason: "Ladbrokes 2: The minimum stake is $1.".
	RefusedBy []string
	// MissedNow says the command found the bet's window missed and
	// journalled it (reason missed): it counts as a bet not placed in
	// that run alone.
	MissedNow bool `json:",omitempty"`
	// Canceled is set on a cancelled bet; with AmountAccepted above 0 the
	// sessions had placed it before the cancel, and that stays on: its
	// status says where it stands (placed, settled).
	Canceled bool
	Records  []Record
	// AmountAccepted is the dollars the bookmakers accepted over all sessions.
	AmountAccepted float64
	// Profit is the notification's signed aggregate profit, in dollars.
	Profit float64
	// ResultAt is when the service resulted the bet (zero until then).
	ResultAt time.Time
	// Final is true once the race is resulted and the result no longer
	// provisional.
	Final bool
	// Error is a runtime error met while handling this bet (an API error),
	// as opposed to a bet the bookmakers refused.
	Error string
}

// Record is one bookmaker session's attempt at a bet.
type Record struct {
	Bookie       string
	DisplayName  string
	Amount       float64
	Odds         float64
	SubmitResult string
	SubmitError  string
	Status       string
	Profit       float64
}

// Totals sums a result's bets.
type Totals struct {
	Bets           int
	ByStatus       map[Status]int
	StakeRequested float64 // requested amounts of the bets that count (BetResult.Counts)
	AtRisk         float64 // at risk over the bets that count
	// Open counts the bets made and not final yet that are not in
	// trouble: created, placed, or cancelled after placement and not
	// resulted. A bet not created yet is waiting (ByStatus), not open.
	Open           int
	AmountAccepted float64
	Profit         float64
	// ReturnOnStake is Profit / AmountAccepted (0 when nothing was accepted).
	ReturnOnStake float64
}

// Counts reports whether the bet's money counts in the totals, as the
// limits count it: the bet was created, or its create may have landed (in
// doubt). Every total, table, report and alert sums these bets alone.
func (b *BetResult) Counts() bool { return b.NotificationID != 0 || b.Status == StatusInDoubt }

// PlacedThenCanceled reports a bet cancelled after sessions placed it: the
// placed money stays on, so it is reported and judged as a placed bet.
func (b *BetResult) PlacedThenCanceled() bool { return b.Canceled && roundCents(b.AmountAccepted) > 0 }

// Open reports whether the bet was made and is still to be decided, not
// in trouble: created, placed, or cancelled after placement with its
// result to come. A bet not created yet is waiting, not open: a status
// during a live run, the run's own report and every summary say so alike.
func (b *BetResult) Open() bool {
	switch b.Status {
	case StatusCreated, StatusPlaced:
		return true
	case StatusCanceled:
		return b.PlacedThenCanceled()
	}
	return false
}

// ComputeTotals fills r.Totals from r.Bets.
func (r *Result) ComputeTotals() {
	t := Totals{Bets: len(r.Bets), ByStatus: make(map[Status]int)}
	var requested, atRisk, accepted, profit book.Total
	for _, b := range r.Bets {
		t.ByStatus[b.Status]++
		if b.Open() {
			t.Open++
		}
		if b.Counts() {
			if b.Stake != nil {
				requested.Add(*b.Stake)
			} else if b.TargetProfit != nil {
				requested.Add(*b.TargetProfit)
			}
			atRisk.Add(b.AtRisk)
		}
		accepted.Add(b.AmountAccepted)
		profit.Add(b.Profit)
	}
	t.StakeRequested, t.AtRisk = requested.Dollars(), atRisk.Dollars()
	t.AmountAccepted, t.Profit = accepted.Dollars(), profit.Dollars()
	if t.AmountAccepted > 0 {
		t.ReturnOnStake = t.Profit / t.AmountAccepted
	}
	r.Totals = t
}

// Failed reports whether anything in the result counts as a failure for the
// exit code: a failed, not-taken, unresolved or in-doubt bet, a bet with a
// runtime error, a tip failed, unresolved or of unknown outcome, or a
// fatal error.
func (r *Result) Failed() bool {
	return r.Error != "" || r.BetsFailed()
}

// BetsFailed reports whether a bet or a tip of the result failed
// (BetResult.Fails), whatever ended the command.
func (r *Result) BetsFailed() bool {
	for _, b := range r.Bets {
		if b.Fails() {
			return true
		}
	}
	for _, t := range r.Tips {
		switch t.Status {
		case TipFailed, TipUnknown, TipUnresolved:
			return true
		}
	}
	return false
}

// Fails reports whether the bet counts as a failure of its run: it failed,
// was not taken, is unresolved or in doubt, or met an error, for a reason
// that is a failure. A limit, a stop, the plan's own odds bound or a
// cancel is the plan doing what it said (reason.Code.Failure).
func (b *BetResult) Fails() bool {
	if b.Error != "" {
		return true
	}
	switch b.Status {
	case StatusFailed, StatusNotTaken, StatusUnresolved, StatusInDoubt:
		return b.Why.Code.Failure()
	case StatusSkipped:
		// A missed window fails the run that found it, once; skipped by
		// its own condition or its race's start is no failure.
		return b.MissedNow && b.Why.Code == reason.Missed
	}
	return false
}

// roundCents rounds v to whole cents (bet.RoundCents).
func roundCents(v float64) float64 { return bet.RoundCents(v) }

// TipResult is one tip of the plan on one race: the tipster's record.
type TipResult struct {
	ID          string
	Key         string // the journal's key; "" when unresolved
	Race        RaceInfo
	Market      string
	Selection   string
	AmountUnits float64
	Odds        float64 // the odds it was given at
	MaxOdds     float64
	Bookies     string
	UseBonus    bool
	Confidence  string

	Status      TipStatus
	Action      Action // set in plan previews only: publish, wait, skip, none or unresolved
	Reason      string
	PublishedAt time.Time // zero until the service took it
	Attempts    int       // publish calls announced for it, ever
	Answer      string    // what the service answered
	// Result is the race's finishing order as the service gave it; Outcome
	// won, lost or void; Units the units won (+) or lost (-) at Odds, nil
	// until resulted.
	Result  string
	Outcome string
	Units   *float64
	Final   bool
	Error   string
}

// PrealertResult is the pre-alert of one race.
type PrealertResult struct {
	Race   RaceInfo
	Status string // waiting, sent, unknown, failed, skipped
	Reason string
	SentAt time.Time
	Path   string // the path that answered
}

// AccountSummary is the account file's limits and what the plans sharing
// the state use of them, in the periods of the account's limits the
// result's bets are in.
type AccountSummary struct {
	File string // the account file, as found or named
	LimitsSummary
	// Plans name the plans whose bets were counted, this one first.
	Plans []string
	// Unread says why the other plans' journals could not be read; their
	// bets are then missing from Periods.
	Unread string
}

// AlertResult is an alert that did not reach its target by the end of a
// run: the report and the log list it.
type AlertResult struct {
	Event    string
	Bet      string // the instance id; "" for a run's summary or failure
	Target   string // scheme and host only
	Outcome  string // "not delivered" (the next run tries again), "outcome unknown", "given up"
	Error    string
	Attempts int
}

// EventInfo is the sports event an event bet is on, and what of it the bet
// backs, as the service names them: the ids are what the create sends.
type EventInfo struct {
	ID          string
	Sport       string
	Name        string
	Competition string `json:",omitempty"`
	Market      string
	MarketID    string `json:",omitempty"`
	Selection   string
	SelectionID string `json:",omitempty"`
	// Handicap is the line sent: the plan's, else the one the event
	// listed for the selection; nil on markets without lines.
	Handicap *float64 `json:",omitempty"`
}

// pickWords is the selection with its line, as punters write it:
// "Collingwood -12.5", "Carlton +12.5", "Over 165.5".
func (e *EventInfo) pickWords() string {
	if e.Handicap == nil {
		return e.Selection
	}
	h := strconv.FormatFloat(*e.Handicap, 'f', -1, 64)
	switch {
	case strings.EqualFold(e.Selection, "over"), strings.EqualFold(e.Selection, "under"):
	case *e.Handicap > 0:
		h = "+" + h
	}
	return e.Selection + " " + h
}

// TipStatus is where one tip of a plan stands. The strings are part of the
// report.json contract.
type TipStatus string

// The statuses of a tip.
const (
	TipWaiting    TipStatus = "waiting"    // its when is not true yet
	TipSkipped    TipStatus = "skipped"    // its race started before it was published
	TipUnresolved TipStatus = "unresolved" // its race could not be found
	TipPublished  TipStatus = "published"  // the service took it
	TipUnknown    TipStatus = "unknown"    // a publish was sent and may have gone out: never re-sent by itself
	TipFailed     TipStatus = "failed"     // the service refused it, or it could not be sent
)

// TipStatuses lists every tip status in report order.
func TipStatuses() []TipStatus {
	return []TipStatus{TipWaiting, TipSkipped, TipUnresolved, TipPublished, TipUnknown, TipFailed}
}

// The outcomes of a published tip at its race.
const (
	TipWon  = "won"
	TipLost = "lost"
	TipVoid = "void"
)

// describe names a race ("Flemington Galloping R4") or an event
// ("Collingwood v Carlton (AFL)") in log lines.
func (ri RaceInfo) describe() string {
	if e := ri.Event; e != nil {
		return fmt.Sprintf("%s (%s)", e.Name, e.Sport)
	}
	return fmt.Sprintf("%s %s R%d", ri.Venue, ri.Code, ri.EventNumber)
}

// PeriodUsage is what the plan's bets of one period of its limits add up
// to, across runs.
type PeriodUsage struct {
	Period string // "2026-11-21", "2026-W47", or "" for the whole plan
	Words  string // "day 2026-11-21"
	plan.PlanEnv
	// Planned and PlannedBets are what a preview would add (plan reports).
	Planned     float64
	PlannedBets int
}

// WorstCase is the period's profit if every bet not resulted yet lost all
// it has at risk: what max_loss caps.
func (p PeriodUsage) WorstCase() float64 { return worstCase(p.PlanEnv) }

// Sums is the period's use as the limits read it.
func (p PeriodUsage) Sums() limit.Sums {
	return limit.Sums{Staked: p.Staked, OpenStake: p.OpenStake, Profit: p.Profit, LowestProfit: p.LowestProfit, HighestProfit: p.HighestProfit,
		Bets: p.Bets, Won: p.Won, Lost: p.Lost, Planned: p.Planned, PlannedBets: p.PlannedBets}
}

// worstCase is a period's profit if every open bet lost what it has at
// risk: what max_loss caps.
func worstCase(t plan.PlanEnv) float64 { return roundCents(t.Profit - t.OpenStake) }
