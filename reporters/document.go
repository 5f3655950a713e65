// Package reporters turns an engine.Result into the documents people and CI
// read after a run: report.json, a terminal table, Markdown for pull requests
// and step summaries, JUnit XML and a self-contained HTML page.
package reporters

import (
	"math"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/reason"
)

// SchemaVersion is the version of the report.json contract. It changes when a
// field is removed or changes meaning; new fields may appear without a change.
const SchemaVersion = 1

// Document is report.json: the stable, versioned form of an engine.Result.
// Its field names and meanings are the contract; the engine's types are not.
type Document struct {
	SchemaVersion  int      `json:"schema_version" jsonschema_description:"Version of this document's contract; 1."`
	Kind           string   `json:"kind" jsonschema:"enum=run,enum=status,enum=plan" jsonschema_description:"The command that wrote the report: run, status, or plan (a read-only preview)."`
	Plan           PlanInfo `json:"plan" jsonschema_description:"The plan the report is about."`
	BetplanVersion string   `json:"betplan_version" jsonschema_description:"Version of betplan that wrote the report."`
	BaseURL        string   `json:"base_url" jsonschema_description:"Base URL of the betting service; never holds credentials."`
	Simulated      bool     `json:"simulated" jsonschema_description:"True when the run used the simulated service: no real money moved."`
	StartedAt      *string  `json:"started_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the command started, RFC 3339 in UTC."`
	FinishedAt     *string  `json:"finished_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the command finished, RFC 3339 in UTC; null if it never did."`
	EndReason      string   `json:"end_reason" jsonschema_description:"Why the command stopped: completed, no-wait, stopped (the plan is stopped by betplan stop), interrupted, timeout, refused or error."`
	Error          string   `json:"error" jsonschema_description:"The fatal error that ended the command; empty when none."`
	Running        *Running `json:"running,omitempty" jsonschema_description:"The run that held the plan's lock while a status read it (a live run: nothing has ended); absent when none did."`
	Failed         bool     `json:"failed" jsonschema_description:"True when something counts as a failure (exit code 1): a failed, not-taken or unresolved bet, a bet with an error, a tip failed, unresolved or of unknown outcome, or a fatal error."`
	Limits         Limits   `json:"limits" jsonschema_description:"The plan's limits and how much of them is used."`
	Account        *Account `json:"account,omitempty" jsonschema_description:"The account file's limits (betplan.yaml) and how much of them every plan sharing the state uses; absent without an account file."`
	Bets           []Bet    `json:"bets" jsonschema_description:"Every bet of the plan, in plan order (one per race for for_each_race bets)."`
	Totals         Totals   `json:"totals" jsonschema_description:"Sums over bets."`

	Tips        []Tip      `json:"tips" jsonschema_description:"Every tip of the plan, in plan order (one per race for for_each_race tips); empty for plans without tips."`
	Prealerts   []Prealert `json:"prealerts" jsonschema_description:"The pre-alerts, one per race with tips, when the plan asks for them."`
	TipTotals   TipTotals  `json:"tip_totals" jsonschema_description:"The tipster's record over tips."`
	Assumptions []string   `json:"assumptions" jsonschema_description:"What betplan assumed where the service's shapes are not known (tipster and sports event endpoints); empty when nothing was."`
	// UndeliveredAlerts is absent when every alert was delivered.
	UndeliveredAlerts []UndeliveredAlert `json:"undelivered_alerts,omitempty" jsonschema_description:"Alerts of the plan's notify targets not delivered by the end of the run; absent when none."`
}

// Running is a live run of the plan, as its lock says.
type Running struct {
	PID      int     `json:"pid" jsonschema_description:"The run's process id; 0 when not known."`
	Host     string  `json:"host" jsonschema_description:"The machine it runs on."`
	Command  string  `json:"command" jsonschema_description:"The command holding the lock: betplan run, cancel or stop."`
	PlanFile string  `json:"plan_file" jsonschema_description:"The plan file as that command was given it."`
	Since    *string `json:"since" jsonschema:"nullable,format=date-time" jsonschema_description:"When it took the lock, RFC 3339 in UTC."`
}

func newRunning(r *engine.Result) *Running {
	o := r.Running
	if o == nil {
		return nil
	}
	return &Running{PID: o.PID, Host: o.Host, Command: o.Command, PlanFile: o.PlanFile, Since: timePtr(o.Since)}
}

// PlanInfo names the plan a report is about.
type PlanInfo struct {
	Name string `json:"name" jsonschema_description:"The plan's name."`
	File string `json:"file" jsonschema_description:"The plan file as given on the command line."`
	Hash string `json:"hash" jsonschema_description:"sha256:<hex> of the plan file's bytes."`
}

// Limits is the plan's limits and their use. A null maximum means no limit.
// Every limit counts money at risk: a bet's stake times the sessions that
// can place it, then what the sessions accepted.
type Limits struct {
	Period string `json:"period" jsonschema:"enum=day,enum=week,enum=plan" jsonschema_description:"What the total limits count within: day (the race's meeting day, in its own time zone), week, or plan (all time)."`
	// Caps is what each limit kind is set to: report.json has a field for
	// each kind after period, null when not set (limitsjson.go).
	Caps        limit.Set    `json:"-"`
	Committed   float64      `json:"committed" jsonschema_description:"Dollars the plan's created bets requested (stake or target profit), in this and earlier runs."`
	Planned     float64      `json:"planned" jsonschema_description:"Dollars a preview's creates would request now (plan reports; 0 otherwise)."`
	CreatedBets int          `json:"created_bets" jsonschema_description:"Notifications this plan has created, ever."`
	Periods     []PeriodUsed `json:"periods" jsonschema_description:"What the limits count in each period the report's bets are in, oldest first."`
}

// Account is the account file's limits and their use over every plan
// sharing the state.
type Account struct {
	File   string   `json:"file" jsonschema_description:"The account file, as found beside or above the plan, or named with --config."`
	Plans  []string `json:"plans" jsonschema_description:"The plans whose bets were counted, this one first."`
	Unread string   `json:"unread,omitempty" jsonschema_description:"Why the other plans' journals could not be read; their bets are then not counted."`
	Limits
}

// PeriodUsed is what the plan's bets of one period add up to, across runs,
// as the limits count it.
type PeriodUsed struct {
	Period        string  `json:"period" jsonschema_description:"The period: a meeting day (2026-11-21, in the races' own time zone), an ISO week (2026-W47), or empty for the whole plan."`
	Staked        float64 `json:"staked" jsonschema_description:"Dollars at risk over the period's bets: accepted by the sessions, or what they may still place."`
	OpenStake     float64 `json:"open_stake" jsonschema_description:"Dollars at risk on the period's bets not resulted yet."`
	Profit        float64 `json:"profit" jsonschema_description:"Settled profit of the period, signed."`
	LowestProfit  float64 `json:"lowest_profit" jsonschema_description:"The settled profit at its lowest in the period, as the results came in (0 before any); stop_loss stops at it."`
	WorstCase     float64 `json:"worst_case" jsonschema_description:"Settled profit minus everything open at risk: the profit if every open bet lost; max_loss caps it."`
	HighestProfit float64 `json:"highest_profit" jsonschema_description:"The settled profit at its highest in the period, as the results came in (0 before any); take_profit stops at it."`
	Bets          int     `json:"bets" jsonschema_description:"Bets created in the period (with a preview's planned ones)."`
	Settled       int     `json:"settled" jsonschema_description:"Bets resulted."`
	Won           int     `json:"won" jsonschema_description:"Bets settled with a profit."`
	Lost          int     `json:"lost" jsonschema_description:"Bets settled with a loss."`
	Planned       float64 `json:"planned" jsonschema_description:"Of staked, what a preview's creates would add (plan reports; 0 otherwise)."`
	PlannedBets   int     `json:"planned_bets" jsonschema_description:"Of bets, how many a preview would create (plan reports; 0 otherwise)."`
}

// Race is the race a bet is for, as the service names it.
type Race struct {
	Venue       string  `json:"venue" jsonschema_description:"Venue name; empty when the race could not be resolved."`
	Code        string  `json:"code" jsonschema_description:"Race code (e.g. R for thoroughbreds, H harness, G greyhounds) as the service sends it."`
	EventNumber int     `json:"event_number" jsonschema_description:"Race number at the meeting; 0 when unresolved."`
	Start       *string `json:"start" jsonschema:"nullable,format=date-time" jsonschema_description:"Advertised start, RFC 3339 in the meeting's own offset as the service gave it; null when unresolved."`
}

// Bet is one bet of the plan.
type Bet struct {
	ID             string     `json:"id" jsonschema_description:"The bet's id as written in the plan (for for_each_race bets, one bet per race shares the id)."`
	InstanceID     string     `json:"instance_id" jsonschema_description:"The id of this row, which betplan cancel takes: the bet's id, or for a for_each_race bet its race's instance, <id>@<venue slug>-r<race number> (e.g. box1@the-meadows-r5), with -<YYYYMMDD> of the meeting date after it on a later meeting of the same venue and race."`
	Label          string     `json:"label" jsonschema_description:"The notification label, exactly as sent to the service."`
	Race           Race       `json:"race"`
	Event          *Event     `json:"event,omitempty" jsonschema_description:"A bet on a sports event: the event and what of it the bet backs (race is then empty). Absent on racing bets."`
	Selection      string     `json:"selection" jsonschema_description:"The runner or selection backed."`
	Type           string     `json:"type" jsonschema_description:"Bet type as sent to the service."`
	Market         string     `json:"market" jsonschema_description:"Market as sent to the service."`
	Stake          *float64   `json:"stake" jsonschema:"nullable" jsonschema_description:"Requested stake in dollars; null when the bet type does not use it or it is not evaluated yet."`
	TargetProfit   *float64   `json:"target_profit" jsonschema:"nullable" jsonschema_description:"Requested target profit in dollars; null when the bet type does not use it."`
	AtRisk         float64    `json:"at_risk" jsonschema_description:"Dollars the bet puts at risk: before it is created, its stake times the sessions that can place it (or the total, with ensure_total_wager); after, what the sessions accepted, or may still place. 0 while its amount is not known."`
	AtRiskBasis    string     `json:"at_risk_basis" jsonschema_description:"How at_risk was worked out, in words; empty when at_risk is not known."`
	Status         string     `json:"status" jsonschema:"enum=waiting,enum=in_doubt,enum=skipped,enum=unresolved,enum=created,enum=placed,enum=not_taken,enum=failed,enum=settled,enum=canceled" jsonschema_description:"Where the bet stands, lower case."`
	Action         string     `json:"action,omitempty" jsonschema:"enum=create,enum=wait,enum=skip,enum=adopt,enum=none,enum=unresolved,enum=refuse" jsonschema_description:"Plan reports only: what run would do with the bet now."`
	Reason         string     `json:"reason" jsonschema_description:"Why the bet has its status, in words; may be empty."`
	ReasonCode     ReasonCode `json:"reason_code,omitempty" jsonschema_description:"Why the bet was not created, not placed, stopped or cancelled, as a program reads it: one of the closed list in the README's reasons table. Absent when the bet has no such reason (placed, settled, waiting)."`
	Limit          *Limit     `json:"limit,omitempty" jsonschema_description:"For reason_code limit or stop: the limit that held the bet back, and whose it is."`
	NotificationID *int64     `json:"notification_id" jsonschema:"nullable" jsonschema_description:"The service's notification id; null when no notification was created."`
	CreatedAt      *string    `json:"created_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the notification was created, RFC 3339 in UTC; null when not created."`
	PlacedAt       *string    `json:"placed_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the first session placed the bet, RFC 3339 in UTC: the earliest submit time of the accepting records, read when the bet is first seen placed; while the records cannot be read, the poll that first saw it placed; kept in the journal, so every later run and status reports the same time (a first poll's time gives way once, to the records'); null while nothing is placed."`
	PlacedBy       []string   `json:"placed_by" jsonschema_description:"Display names of the sessions that placed the bet: exact once the bet records are read, before that the targeted sessions whose bots took it up; empty while nothing is placed."`
	Canceled       bool       `json:"canceled" jsonschema_description:"The bet was cancelled. With amount_accepted above 0 sessions had placed it before the cancel: that stays on, at risk in every limit, and once resulted status is settled with the service's profit."`
	RefusedBy      []string   `json:"refused_by" jsonschema_description:"The sessions whose records refused the bet, each as display name, colon, the service's reason; empty when none did."`
	Records        []Record   `json:"records" jsonschema_description:"What each bookmaker session did with the bet; empty until a session acts."`
	AmountAccepted float64    `json:"amount_accepted" jsonschema_description:"Dollars the bookmakers accepted over all sessions."`
	Profit         float64    `json:"profit" jsonschema_description:"The notification's signed aggregate profit in dollars; 0 when none."`
	Final          bool       `json:"final" jsonschema_description:"True once the race is resulted and the result is no longer provisional."`
	Error          string     `json:"error" jsonschema_description:"A runtime error met while handling the bet (e.g. an API error); empty when none."`
}

// ReasonCode is a bet's reason as a program reads it: its schema's enum is
// the one list of reasons (package reason).
type ReasonCode string

// JSONSchema is the code's schema: a string of the list.
func (ReasonCode) JSONSchema() *jsonschema.Schema { return enumSchema(reason.Codes()) }

// Limit names a limit that held a bet back.
type Limit struct {
	Name  string `json:"name" jsonschema_description:"The limit's key: max_total_stake, stop_loss, …"`
	Scope string `json:"scope" jsonschema:"enum=plan,enum=account" jsonschema_description:"Whose limit: the plan's, or the account file's (every plan together)."`
}

// Record is one bookmaker session's attempt at a bet.
type Record struct {
	Bookie       string  `json:"bookie" jsonschema_description:"The bookmaker."`
	DisplayName  string  `json:"display_name" jsonschema_description:"The session's display name."`
	Amount       float64 `json:"amount" jsonschema_description:"Dollars placed; 0 when refused."`
	Odds         float64 `json:"odds" jsonschema_description:"Odds taken; 0 when none."`
	SubmitResult string  `json:"submit_result" jsonschema_description:"Success, Error, In Review, or another value as the service sent it."`
	SubmitError  string  `json:"submit_error" jsonschema_description:"The bookmaker's error message, when the submit failed."`
	Status       string  `json:"status" jsonschema_description:"The record's status as the service sent it (e.g. SETTLED)."`
	Profit       float64 `json:"profit" jsonschema_description:"Signed profit of this session's bet in dollars."`
}

// Totals sums a report's bets.
type Totals struct {
	Bets           int       `json:"bets" jsonschema_description:"Number of bets."`
	ByStatus       ByStatus  `json:"by_status" jsonschema_description:"Number of bets in each status; every status is present."`
	ByAction       *ByAction `json:"by_action,omitempty" jsonschema_description:"Plan reports only: number of bets per action; every action is present."`
	Open           int       `json:"open" jsonschema_description:"Number of bets made and still to be decided, not in trouble: created, placed, or cancelled after placement with the result to come. Bets not created yet are waiting (by_status.waiting), not open."`
	StakeRequested float64   `json:"stake_requested" jsonschema_description:"Dollars requested by created bets and bets in doubt (stake, or target profit when the type has no stake)."`
	AtRisk         float64   `json:"at_risk" jsonschema_description:"Dollars created bets and bets in doubt put at risk (see bets[].at_risk)."`
	AmountAccepted float64   `json:"amount_accepted" jsonschema_description:"Dollars the bookmakers accepted."`
	Profit         float64   `json:"profit" jsonschema_description:"Sum of the bets' profits in dollars."`
	ReturnOnStake  float64   `json:"return_on_stake" jsonschema_description:"profit / amount_accepted, as a fraction rounded to 4 places (0.125 is 12.5%); 0 when nothing was accepted."`
}

// ByStatus counts bets per status, in report order. A struct rather than a
// map so every status is present and the order is fixed.
type ByStatus struct {
	Waiting    int `json:"waiting"`
	InDoubt    int `json:"in_doubt"`
	Skipped    int `json:"skipped"`
	Unresolved int `json:"unresolved"`
	Created    int `json:"created"`
	Placed     int `json:"placed"`
	NotTaken   int `json:"not_taken"`
	Failed     int `json:"failed"`
	Settled    int `json:"settled"`
	Canceled   int `json:"canceled"`
}

// ByAction counts a preview's bets per action.
type ByAction struct {
	Create     int `json:"create"`
	Wait       int `json:"wait"`
	Skip       int `json:"skip"`
	Adopt      int `json:"adopt"`
	None       int `json:"none"`
	Unresolved int `json:"unresolved"`
	Refuse     int `json:"refuse"`
}

func (c *ByStatus) add(s engine.Status) bool {
	switch s {
	case engine.StatusWaiting:
		c.Waiting++
	case engine.StatusInDoubt:
		c.InDoubt++
	case engine.StatusSkipped:
		c.Skipped++
	case engine.StatusUnresolved:
		c.Unresolved++
	case engine.StatusCreated:
		c.Created++
	case engine.StatusPlaced:
		c.Placed++
	case engine.StatusNotTaken:
		c.NotTaken++
	case engine.StatusFailed:
		c.Failed++
	case engine.StatusSettled:
		c.Settled++
	case engine.StatusCanceled:
		c.Canceled++
	default:
		return false
	}
	return true
}

func (c *ByAction) add(a engine.Action) {
	switch a {
	case engine.ActionCreate:
		c.Create++
	case engine.ActionWait:
		c.Wait++
	case engine.ActionSkip:
		c.Skip++
	case engine.ActionAdopt:
		c.Adopt++
	case engine.ActionNone:
		c.None++
	case engine.ActionUnresolved:
		c.Unresolved++
	case engine.ActionRefuse:
		c.Refuse++
	}
}

// NewDocument maps r to its report.json form. Totals are recomputed from the
// bets (engine.Result.ComputeTotals), so they always agree with the rows.
func NewDocument(r *engine.Result) *Document {
	d := &Document{
		SchemaVersion:  SchemaVersion,
		Kind:           string(r.Kind),
		Plan:           PlanInfo{Name: r.PlanName, File: r.PlanFile, Hash: r.PlanHash},
		BetplanVersion: r.Version,
		BaseURL:        r.BaseURL,
		Simulated:      r.Simulated,
		StartedAt:      timePtr(r.StartedAt),
		FinishedAt:     timePtr(r.FinishedAt),
		EndReason:      string(r.EndReason),
		Error:          r.Error,
		Running:        newRunning(r),
		Failed:         r.Failed(),
		Limits:         newLimits(&r.Limits),
		Account:        newAccount(r.Account),
		Bets:           make([]Bet, len(r.Bets)),
	}
	for i := range r.Bets {
		d.Bets[i] = newBet(&r.Bets[i])
	}
	d.Totals = newTotals(r)
	d.Tips, d.Prealerts, d.TipTotals = newTips(r), newPrealerts(r), newTipTotals(r)
	d.Assumptions = append([]string{}, r.Assumptions...)
	d.UndeliveredAlerts = newUndeliveredAlerts(r)
	return d
}

func newAccount(a *engine.AccountSummary) *Account {
	if a == nil {
		return nil
	}
	return &Account{File: a.File, Plans: append([]string{}, a.Plans...), Unread: a.Unread, Limits: newLimits(&a.LimitsSummary)}
}

func newLimits(l *engine.LimitsSummary) Limits {
	out := Limits{
		Period:      string(l.Period),
		Caps:        l.Set,
		Committed:   cents(l.Committed),
		Planned:     cents(l.Planned),
		CreatedBets: l.CreatedBets,
		Periods:     make([]PeriodUsed, len(l.Periods)),
	}
	if out.Period == "" {
		out.Period = "plan"
	}
	for i, p := range l.Periods {
		out.Periods[i] = PeriodUsed{
			Period: p.Period, Staked: cents(p.Staked), OpenStake: cents(p.OpenStake), Profit: cents(p.Profit),
			LowestProfit: cents(p.LowestProfit), HighestProfit: cents(p.HighestProfit), WorstCase: cents(p.WorstCase()),
			Bets: p.Bets, Settled: p.Settled, Won: p.Won, Lost: p.Lost, Planned: cents(p.Planned), PlannedBets: p.PlannedBets,
		}
	}
	return out
}

// newLimit is the limit of a limit's or a stop's reason; nil for others.
func newLimit(w reason.Why) *Limit {
	if w.Limit == "" || (w.Code != reason.Limit && w.Code != reason.Stop) {
		return nil
	}
	return &Limit{Name: w.Limit, Scope: string(w.Scope)}
}

func newBet(b *engine.BetResult) Bet {
	out := Bet{
		ID:             b.ID,
		InstanceID:     rowID(b),
		Label:          b.Label,
		Race:           newRace(b.Race),
		Selection:      b.Selection,
		Type:           b.Type,
		Market:         b.Market,
		Stake:          centsPtr(b.Stake),
		TargetProfit:   centsPtr(b.TargetProfit),
		AtRisk:         cents(b.AtRisk),
		AtRiskBasis:    b.AtRiskBasis,
		Status:         string(b.Status),
		Action:         string(b.Action),
		Reason:         b.Reason,
		ReasonCode:     ReasonCode(b.Why.Code),
		CreatedAt:      timePtr(b.CreatedAt),
		PlacedAt:       timePtr(b.PlacedAt),
		Limit:          newLimit(b.Why),
		PlacedBy:       append([]string{}, b.PlacedBy...),
		RefusedBy:      append([]string{}, b.RefusedBy...),
		Canceled:       b.Canceled,
		Records:        make([]Record, len(b.Records)),
		AmountAccepted: cents(b.AmountAccepted),
		Profit:         cents(b.Profit),
		Final:          b.Final,
		Error:          b.Error,
	}
	if e := b.Race.Event; e != nil {
		out.Race, out.Event = Race{}, newEvent(e, b.Race.Start)
	}
	if b.NotificationID != 0 {
		id := b.NotificationID
		out.NotificationID = &id
	}
	for i, rec := range b.Records {
		out.Records[i] = Record{
			Bookie:       rec.Bookie,
			DisplayName:  rec.DisplayName,
			Amount:       cents(rec.Amount),
			Odds:         rec.Odds,
			SubmitResult: rec.SubmitResult,
			SubmitError:  rec.SubmitError,
			Status:       rec.Status,
			Profit:       cents(rec.Profit),
		}
	}
	return out
}

func newTotals(r *engine.Result) Totals {
	// ComputeTotals only reads Bets and writes Totals: run it on a copy so the
	// caller's Result is left as it was.
	c := *r
	c.ComputeTotals()
	t := Totals{
		Bets:           c.Totals.Bets,
		Open:           c.Totals.Open,
		StakeRequested: cents(c.Totals.StakeRequested),
		AtRisk:         cents(c.Totals.AtRisk),
		AmountAccepted: cents(c.Totals.AmountAccepted),
		Profit:         cents(c.Totals.Profit),
		ReturnOnStake:  math.Round(c.Totals.ReturnOnStake*10000) / 10000,
	}
	for i := range r.Bets {
		t.ByStatus.add(r.Bets[i].Status)
	}
	if r.Kind == engine.KindPlan {
		t.ByAction = &ByAction{}
		for i := range r.Bets {
			t.ByAction.add(r.Bets[i].Action)
		}
	}
	return t
}

func centsPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	c := cents(*v)
	return &c
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// raceTimePtr keeps a race's start in the meeting's own offset, as the
// service gave it: punters read race times in local time.
func raceTimePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

func timePtr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := formatTime(t)
	return &s
}

// A tipster plan's report: each tip with its state, when it was published,
// the odds it was given at and, once its race is resulted, the units won
// or lost at those odds (the record subscribers judge a tipster by); the
// pre-alerts; and what was assumed where the service's shapes are not
// known. Every format says the same, in the words below.

// Tip is one tip of the plan on one race, in report.json.
type Tip struct {
	ID          string   `json:"id" jsonschema_description:"The tip's id as written in the plan (for for_each_race tips, one tip per race shares the id)."`
	Race        Race     `json:"race"`
	Market      string   `json:"market" jsonschema_description:"Market as sent to the service."`
	Selection   string   `json:"selection" jsonschema_description:"The runner, or R:P pairs for Same Race Multi."`
	AmountUnits float64  `json:"amount_units" jsonschema_description:"Units subscribers stake."`
	Odds        float64  `json:"odds" jsonschema_description:"The odds the tip was given at: units won or lost count at them."`
	MaxOdds     float64  `json:"max_odds" jsonschema_description:"The highest odds subscribers' bots take."`
	Bookies     string   `json:"bookies" jsonschema_description:"Bookmaker ids joined by '&'."`
	UseBonus    bool     `json:"use_bonus" jsonschema_description:"Subscribers bet with bonus funds."`
	Confidence  string   `json:"confidence" jsonschema_description:"Low, Medium or High; empty when not given."`
	Status      string   `json:"status" jsonschema:"enum=waiting,enum=skipped,enum=unresolved,enum=published,enum=unknown,enum=failed" jsonschema_description:"Where the tip stands: waiting (its when is not true yet), skipped (its race started first), unresolved (its race was not found), published, unknown (a publish was sent and may have gone out: it is never sent again by itself; run --republish TIP-ID sends it again), failed (refused, or not sent)."`
	Action      string   `json:"action,omitempty" jsonschema:"enum=publish,enum=wait,enum=skip,enum=none,enum=unresolved" jsonschema_description:"Plan reports only: what run would do with the tip now."`
	Reason      string   `json:"reason" jsonschema_description:"Why the tip has its status, in words; may be empty."`
	PublishedAt *string  `json:"published_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the service took the tip, RFC 3339 in UTC; null until then."`
	Attempts    int      `json:"attempts" jsonschema_description:"Publish calls announced for the tip, ever (the journal's count)."`
	Answer      string   `json:"answer" jsonschema_description:"What the service answered the publish, e.g. Success."`
	Result      string   `json:"result" jsonschema_description:"The race's finishing order as the service gave it (runner numbers joined by '/'), or VOID; empty until resulted."`
	Outcome     string   `json:"outcome" jsonschema:"enum=,enum=won,enum=lost,enum=void" jsonschema_description:"won, lost or void once the race is resulted; empty before."`
	Units       *float64 `json:"units" jsonschema:"nullable" jsonschema_description:"Units won (positive) or lost (negative) at the tipped odds; null until resulted."`
	Final       bool     `json:"final" jsonschema_description:"True once nothing more will change: resulted, or past being published."`
	Error       string   `json:"error" jsonschema_description:"A runtime error met publishing the tip; empty when none."`
}

// Prealert is the pre-alert of one race, in report.json.
type Prealert struct {
	Race   Race    `json:"race"`
	Status string  `json:"status" jsonschema:"enum=waiting,enum=sent,enum=unknown,enum=failed,enum=skipped" jsonschema_description:"sent, unknown (may have gone out: not sent again), failed, skipped (no tip of the race was left to publish) or waiting."`
	Reason string  `json:"reason" jsonschema_description:"Why it has its status; may be empty."`
	SentAt *string `json:"sent_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the service took it, RFC 3339 in UTC; null until then."`
	Path   string  `json:"path" jsonschema_description:"The path that answered: /pick/tipster/message/ or /pick/tipster/prealert/."`
}

// TipTotals is the tipster's record over the report's tips.
type TipTotals struct {
	Tips          int          `json:"tips" jsonschema_description:"Number of tips."`
	ByStatus      TipsByStatus `json:"by_status" jsonschema_description:"Number of tips in each status; every status is present."`
	Won           int          `json:"won" jsonschema_description:"Tips that won at their race."`
	Lost          int          `json:"lost" jsonschema_description:"Tips that lost."`
	Void          int          `json:"void" jsonschema_description:"Tips whose race or runner was void."`
	UnitsStaked   float64      `json:"units_staked" jsonschema_description:"Units of the tips that won or lost."`
	Units         float64      `json:"units" jsonschema_description:"Net units won (positive) or lost (negative) at the tipped odds."`
	ReturnOnUnits float64      `json:"return_on_units" jsonschema_description:"units / units_staked, a fraction rounded to 4 places; 0 when nothing was staked."`
}

// TipsByStatus counts tips per status, in report order.
type TipsByStatus struct {
	Waiting    int `json:"waiting"`
	Skipped    int `json:"skipped"`
	Unresolved int `json:"unresolved"`
	Published  int `json:"published"`
	Unknown    int `json:"unknown"`
	Failed     int `json:"failed"`
}

func (c *TipsByStatus) add(s engine.TipStatus) {
	switch s {
	case engine.TipWaiting:
		c.Waiting++
	case engine.TipSkipped:
		c.Skipped++
	case engine.TipUnresolved:
		c.Unresolved++
	case engine.TipPublished:
		c.Published++
	case engine.TipUnknown:
		c.Unknown++
	case engine.TipFailed:
		c.Failed++
	}
}

func newTips(r *engine.Result) []Tip {
	out := make([]Tip, len(r.Tips))
	for i := range r.Tips {
		t := &r.Tips[i]
		out[i] = Tip{
			ID: t.ID, Race: newRace(t.Race), Market: t.Market, Selection: t.Selection,
			AmountUnits: t.AmountUnits, Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
			Confidence: t.Confidence, Status: string(t.Status), Action: string(t.Action), Reason: t.Reason,
			PublishedAt: timePtr(t.PublishedAt), Attempts: t.Attempts, Answer: t.Answer,
			Result: t.Result, Outcome: t.Outcome, Units: unitsPtr(t.Units), Final: t.Final, Error: t.Error,
		}
	}
	return out
}

func newPrealerts(r *engine.Result) []Prealert {
	out := make([]Prealert, len(r.Prealerts))
	for i, p := range r.Prealerts {
		out[i] = Prealert{Race: newRace(p.Race), Status: p.Status, Reason: p.Reason, SentAt: timePtr(p.SentAt), Path: p.Path}
	}
	return out
}

func newRace(r engine.RaceInfo) Race {
	return Race{Venue: r.Venue, Code: r.Code, EventNumber: r.EventNumber, Start: raceTimePtr(r.Start)}
}

func newTipTotals(r *engine.Result) TipTotals {
	t := TipTotals{Tips: len(r.Tips)}
	for i := range r.Tips {
		tip := &r.Tips[i]
		t.ByStatus.add(tip.Status)
		switch tip.Outcome {
		case engine.TipWon:
			t.Won++
		case engine.TipLost:
			t.Lost++
		case engine.TipVoid:
			t.Void++
		}
		if tip.Units != nil && tip.Outcome != engine.TipVoid {
			t.UnitsStaked += tip.AmountUnits
			t.Units += *tip.Units
		}
	}
	t.UnitsStaked, t.Units = units(t.UnitsStaked), units(t.Units)
	if t.UnitsStaked > 0 {
		t.ReturnOnUnits = math.Round(t.Units/t.UnitsStaked*10000) / 10000
	}
	return t
}
