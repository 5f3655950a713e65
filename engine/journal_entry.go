package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/betplan/betplan/engine/bet"
)

// The journal's entry format: the JSON of every entry, the operations it
// names, and what one entry alone tells. Replaying the entries into what
// the journal knows sits above it: the alert book (journal_alerts.go), the
// publication book (tips_journal.go), the Journal (journal.go).

// Journal operations. A `creating` entry is written and fsync'd before
// every create is sent; `created` after the service answered with an id.
// A `creating` with nothing after it is an ambiguous create: the next run
// looks the label up before creating again.
const (
	opInit     = "init"
	opCreating = "creating"
	opCreated  = "created"  // the create answered, or a look-up found it
	opAdopted  = "adopted"  // found by label before any create of ours
	opAbsent   = "absent"   // after an ambiguous create, the label was not found over the grace window
	opFailed   = "failed"   // the service refused the create
	opCanceled = "canceled" // betplan cancel succeeded
	// opSettled ends the doubt an init entry began with: a journal begun
	// when this host had run the plan before (its journal lost, a create
	// perhaps in flight) has every label looked up over the grace window
	// before its first create.
	opSettled = "doubt_settled"
	// opService names the service (and account) a journal belongs to,
	// written when a journal kept before journals were per service was
	// moved into the service's journal (legacy.go); init says it for a
	// journal begun since. A run writes one too, with its verdict (Run),
	// before the first entry of a bet it brings into the journal.
	opService = "service"
	// opPlaced keeps when a created bet was placed: the sessions' submit
	// time from the bet records, or the first poll that saw it placed
	// while they could not be read. Every later run and status shows that
	// time; a stand-in gives way once, to the records' time.
	opPlaced = "placed"
	// opDecided keeps a bet on a named race that a run decided without a
	// create (skipped, or failed before any create), with its status and
	// reason: the meeting day's race was decided, so a resumed run of the
	// same day does not move the bet to the next day's meeting.
	opDecided = "decided"
	// opResulted says a run logged how the bet ended, so later runs that
	// read the same outcome do not log it again.
	opResulted = "resulted"
	// opReports keeps where a run wrote the plan's reports (reportdir.go).
	opReports = "reports"
	// opLimitReached keeps that a cap of the limits (Limit, its Scope and
	// the Period it counts in) first held a bet back: a later run of the
	// period held back by it again says nothing new (exit 0, no alert).
	opLimitReached = "limit_reached"
	// opServed keeps that a serving process (betplan serve) began running
	// the plan: under which leadership fence, which version of the plan
	// (PlanHash, the report's) and why: its first start, a take-over from
	// another process, a reload of the plan's file.
	opServed = "served"
	// opNotCreated keeps that a run decided a bet is not created, and why:
	// a limit held it back (with the sums the limit saw), its race started
	// or its condition was never true first, its runner was scratched, no
	// bot would take it, the plan is stopped. It is written once per bet
	// per decision, never per tick (a run that decides the same again
	// writes nothing), for `betplan explain`. It records a decision and
	// changes no bet: nothing folds it into a label's state, so the
	// journal's creates (creating, created) and the day a named race was
	// decided on (decided) mean what they meant.
	opNotCreated = "not_created"
	// opDetailRead keeps what was read of a bet's notification to say why
	// it was not placed (or only partly): its Detail, and Code, the
	// reason it gave (empty for a bet partly placed, whose reason is its
	// result). It is read once a bet: a later run or status reads this
	// entry instead of the service (a later answer of more bots is read
	// anew, and a later entry of the label stands).
	//
	//	{"op":"detail_read","label":"betplan-…","id":1234,"code":"stake_limit",
	//	 "detail":{"bots":"bot-7f3a","records":[{"session":"Ladbrokes 2","bookie":"25",
	//	   "result":"Error","error":"The maximum stake is $50.","status":"FAILED"}],
	//	   "lines":["Ladbrokes 2: bet failed: The maximum stake is $50."],
	//	   "sessions":["Ladbrokes 2 (Ladbrokes)"],
	//	   "reason":"every session refused it: Ladbrokes 2: The maximum stake is $50."}}
	opDetailRead = "detail_read"
	// opLooked keeps that a run saw a bet on a named race of a meeting day
	// waiting, its race still to come (the bet not created, nothing
	// decided): once a run, at its first look, and again at its end. A
	// later run that finds the race started with no create knows the
	// bet's window passed while no run was there (opMissed), and does not
	// move the bet to the next meeting's race.
	//
	// Its time is when the run looked, on the run's clock (the
	// service's, as race starts are).
	//
	//	{"op":"looked","label":"bp:…","bet":"r2","race":{…},"time":"…"}
	opLooked = "looked"
	// opMissed keeps that a bet on a named race was missed: a run of its
	// meeting day looked at it before its window opened (looked) and no
	// create was sent before its race started. WindowClosed is when the
	// window closed (the race's start), LastLooked when a run last looked
	// at it; Status "skipped", Code "missed" and Error the sentence, as a
	// decided entry keeps them. It is said (alert, exit 1) once, by the
	// run that writes it.
	//
	//	{"op":"missed","label":"bp:…","bet":"r2","race":{…},"status":"skipped","code":"missed",
	//	 "window_closed":"2026-11-28T03:00:00Z","last_looked":"2026-11-27T22:00:05Z","error":"missed: …"}
	opMissed = "missed"
)

// Where a placed entry's time comes from.
const (
	placedFromRecords   = "records"
	placedFromFirstPoll = "first poll"
)

// Journal operations of the alert outbox. An alert is journalled with its
// body before it is handed to the sender, and every attempt is announced
// before it is made, like a create: an attempt with no outcome after it
// may have reached its target, so it is never made again.
const (
	opAlertQueued  = "alert_queued"   // the alert, for one target: sent by this run or the next
	opAlertSending = "alert_sending"  // an attempt is about to be made
	opAlertSent    = "alert_sent"     // the target said yes
	opAlertFailed  = "alert_failed"   // certainly not delivered: tried again
	opAlertUnknown = "alert_unknown"  // it may have been delivered: never sent again
	opAlertGivenUp = "alert_given_up" // too many attempts: not tried again
	opAlertSkipped = "alert_skipped"  // already true when the target was added: not sent
	// opAlertTarget keeps that a run listened with the target: a later run
	// knows it was not added since, though nothing was sent to it yet.
	opAlertTarget = "alert_target"
)

// Journal operations of publications (tips and pre-alerts). One entry
// carries every tip of one call.
const (
	opPublishing      = "publishing"      // a publish call is about to be sent
	opPublished       = "published"       // it answered 2xx
	opPublishUnknown  = "publish_unknown" // its outcome is unknown: it may have gone out
	opPublishAbsent   = "publish_absent"  // it certainly did not reach the service (or was not processed)
	opPublishFailed   = "publish_failed"  // the service refused it
	opPrealerting     = "prealerting"
	opPrealerted      = "prealerted"
	opPrealertUnknown = "prealert_unknown"
	opPrealertAbsent  = "prealert_absent"
	opPrealertFailed  = "prealert_failed"
)

// journalEntry is one entry of a plan's journal, as its JSON is kept.
type journalEntry struct {
	Serial         int64     `json:"serial"`
	Lineage        string    `json:"lineage"`
	Time           time.Time `json:"time"`
	Op             string    `json:"op"`
	Label          string    `json:"label,omitempty"`
	BetID          string    `json:"bet,omitempty"`
	NotificationID int64     `json:"id,omitempty"`
	Amount         float64   `json:"amount,omitempty"`
	// AtRisk is what the bet was worked out to put at risk when it was
	// announced (its amount times the sessions that could place it), and
	// Basis how; limits count it until the sessions' answer is read.
	AtRisk  float64   `json:"at_risk,omitempty"`
	Basis   string    `json:"basis,omitempty"`
	Race    *RaceInfo `json:"race,omitempty"`
	Attempt int       `json:"attempt,omitempty"`
	Error   string    `json:"error,omitempty"`
	// Tips are the tips (or the race of a pre-alert) a publication entry
	// is about: one publish call, all of them at once (tips.go).
	Tips []journalTip `json:"tips,omitempty"`
	// Alert is the alert an outbox entry is about (journal_alerts.go).
	Alert *journalAlert `json:"alert,omitempty"`
	// Service and Account (init, service) are whose journal it is: the
	// service's identity and a hash of the account on it (accountKey),
	// which journals are matched by; AccountName is the account's name
	// (its login e-mail, or "user_id N"), so a refusal can say whose
	// journal it is.
	Service     string `json:"service,omitempty"`
	Account     string `json:"account,omitempty"`
	AccountName string `json:"account_name,omitempty"`
	// PlacedAt and PlacedFrom (placed) are when the bet was placed and
	// how that is known (placedFromRecords, placedFromFirstPoll).
	PlacedAt   *time.Time `json:"placed_at,omitempty"`
	PlacedFrom string     `json:"placed_from,omitempty"`
	// Status (decided) is the status the bet was decided with, and Code,
	// Limit and Scope its reason as a program reads it (package reason).
	Status string `json:"status,omitempty"`
	Code   string `json:"code,omitempty"`
	Limit  string `json:"limit,omitempty"`
	Scope  string `json:"scope,omitempty"`
	// Period (decided, limit_reached) is the period of the limits the
	// reason's limit counts in.
	Period string `json:"period,omitempty"`
	// Outcome (outcome) is how the bet ended (journal_outcome.go).
	Outcome *JournalOutcome `json:"outcome,omitempty"`
	// ReportDir (reports) is where a run wrote the plan's reports; ""
	// for the default.
	ReportDir string `json:"report_dir,omitempty"`
	// Fence (creating, served) is the account's leadership fence a
	// serving process announced the create under; the store refused the
	// entry had another process taken the account over.
	Fence int64 `json:"fence,omitempty"`
	// PlanHash, Why and By (served) are the plan's version, why the
	// serving process began running it and who it is.
	PlanHash string `json:"plan_hash,omitempty"`
	Why      string `json:"why,omitempty"`
	By       string `json:"by,omitempty"`
	// Sums (not_created) are the book's sums the limit that held the bet
	// back checked it against; nil for a bet not created for another
	// reason. The entry's Amount, AtRisk and Basis are the bet's own, as
	// the limit counted it; Status, Code, Limit, Scope and Period its
	// reason, and Error the sentence people read.
	Sums *LimitSums `json:"sums,omitempty"`
	// Blocked (creating) are the sessions the bet targets as betplan read
	// them just before the create, when none of them could bet it (a bot
	// stopped or logged out, a stake outside the bookmaker's bounds): a
	// bet no session answers is explained by them. Absent when some
	// session could.
	//
	//	"blocked":[{"session":"Main Sportsbet","code":"logged_out",
	//	  "words":"logged out since 2026-11-28 09:12:00 AEDT: 'invalid password'"}]
	Blocked []sessionBlock `json:"blocked,omitempty"`
	// Detail (detail_read) is what was read of the bet's notification.
	Detail *journalDetail `json:"detail,omitempty"`
	// WindowClosed and LastLooked (missed) are when the bet's window
	// closed (its race started) and when a run last looked at it.
	WindowClosed *time.Time `json:"window_closed,omitempty"`
	LastLooked   *time.Time `json:"last_looked,omitempty"`
	// Run (service) is the verdict of the run that wrote the entry: the
	// bets it brings into the journal after it are real money or a
	// rehearsal's (history reads it, never the service's URL).
	Run *RunVerdict `json:"run,omitempty"`
}

// journalDetail is what a detail_read entry keeps of a notification: the
// service's words, as they came.
type journalDetail struct {
	// Bots are the received_bots the detail was read at.
	Bots string `json:"bots,omitempty"`
	// Records are the sessions' answers (their bet records).
	Records []detailRecord `json:"records,omitempty"`
	// Lines are the bots' lines (bot_logs, then logs) as given; LinesCut
	// counts lines left off past maxDetailLineBytes.
	Lines    []string `json:"lines,omitempty"`
	LinesCut int      `json:"lines_cut,omitempty"`
	// Sessions are the notification's session_info parts, "Ladbrokes 2
	// (Ladbrokes)".
	Sessions []string `json:"sessions,omitempty"`
	// LogRead says GET /bot/logs/{id}/ was read (the detail had no line):
	// BotLog is its body as it came, its first 4 KiB, and BotLogCut the
	// bytes left off. Nothing is read from it.
	LogRead   bool   `json:"log_read,omitempty"`
	BotLog    string `json:"bot_log,omitempty"`
	BotLogCut int    `json:"bot_log_cut,omitempty"`
	// Reason is the sentence the detail gave the bet, its code the
	// entry's.
	Reason string `json:"reason,omitempty"`
}

// detailRecord is one session's answer in a detail_read entry.
type detailRecord struct {
	Session string  `json:"session"`
	Bookie  string  `json:"bookie,omitempty"`
	Result  string  `json:"result,omitempty"`
	Error   string  `json:"error,omitempty"`
	Status  string  `json:"status,omitempty"`
	Amount  float64 `json:"amount,omitempty"`
}

// RunVerdict is what a run decided of the money its bets put on: real, or
// a rehearsal's on a simulated service, as its reports and alerts say.
type RunVerdict struct {
	Money string `json:"money"`         // MoneyReal or MoneyRehearsal
	Sim   string `json:"sim,omitempty"` // a rehearsal's: SimServed or SimInProcess
	// Tips is set when the plan publishes tips: only then are the tip
	// figures of its bets' notifications (units at the tip's odds) its
	// own, rather than the service's echo of an odds floor.
	Tips bool `json:"tips,omitempty"`
}

// The verdicts of a run.
const (
	MoneyReal      = "real"
	MoneyRehearsal = "rehearsal"
	// SimServed is a simulated service this machine serves that said so
	// (apiclient.SimulatedHeader): betplan sim.
	SimServed = "served"
	// SimInProcess is run --sim's own simulated service.
	SimInProcess = "in-process"
)

// checkAmounts refuses an entry whose amounts the journal's replay counts
// (a bet's amount and what it put at risk, which the limits sum) are not
// money (bet.Cents): a hand edit or another tool's write, not a run's.
// The limits cannot count what such a journal committed, so it is
// refused, named, rather than summed into an absurd figure.
func (e *journalEntry) checkAmounts() error {
	for _, a := range []struct {
		name string
		v    float64
	}{{"amount", e.Amount}, {"at_risk", e.AtRisk}} {
		if err := bet.CheckDollars(a.v); err != nil {
			return fmt.Errorf("its %s %v", a.name, err)
		}
	}
	return nil
}

// bringsBet reports whether an entry of op is one with which a bet comes
// into the journal: the run's verdict is written before it.
func bringsBet(op string) bool { return op == opCreating || op == opCreated || op == opAdopted }

// journalTip is one tip (or a pre-alert's race) in a publication entry.
type journalTip struct {
	Key   string    `json:"key"`
	TipID string    `json:"tip,omitempty"`
	Race  *RaceInfo `json:"race,omitempty"`
	Odds  float64   `json:"odds,omitempty"`
	Units float64   `json:"units,omitempty"`
	Path  string    `json:"path,omitempty"` // the path that answered a pre-alert
}

// journalAlert is the alert an outbox entry is about. A target is named
// by a digest of its URL and shown by its scheme and host: the URL may
// hold a token and is never journalled.
type journalAlert struct {
	Key     string          `json:"key"`
	Target  string          `json:"target"`
	Where   string          `json:"where,omitempty"`
	Event   string          `json:"event,omitempty"`
	Body    json.RawMessage `json:"body,omitempty"`
	Attempt int             `json:"attempt,omitempty"`
}

// isOutcome reports whether op ends a send's doubt in the journal.
func isOutcome(op string) bool {
	switch op {
	case opCreated, opAdopted, opFailed, opAbsent, opCanceled,
		opPublished, opPublishUnknown, opPublishAbsent, opPublishFailed,
		opPrealerted, opPrealertUnknown, opPrealertAbsent, opPrealertFailed,
		opAlertSent, opAlertFailed, opAlertUnknown, opAlertGivenUp:
		return true
	}
	return false
}

// noteKey is the key of the note of e's send in the intent file.
func noteKey(e journalEntry) string {
	switch {
	case e.Alert != nil:
		return "alert " + e.Alert.Key + " " + e.Alert.Target
	case len(e.Tips) > 0:
		return "publish " + e.Tips[0].Key
	}
	return e.Label
}

// LimitSums are what a limit saw when it held a bet back: the book's sums
// (book.Usage) of the limit's scope and period, before the bet. Amounts
// are dollars to the cent.
type LimitSums struct {
	// Staked is what the period's bets put at risk (max_total_stake),
	// OpenStake what those not resulted yet still have at risk
	// (max_open_stake).
	Staked    float64 `json:"staked"`
	OpenStake float64 `json:"open_stake"`
	// Profit is the settled profit; WorstCase the profit if every open
	// bet lost (max_loss); LowestProfit and HighestProfit how low and high
	// it ran (stop_loss, take_profit).
	Profit        float64 `json:"profit"`
	WorstCase     float64 `json:"worst_case"`
	LowestProfit  float64 `json:"lowest_profit"`
	HighestProfit float64 `json:"highest_profit"`
	// Bets counts the period's bets (max_bets).
	Bets int `json:"bets"`
	// RaceStake and RaceBets are what the bets on the bet's race put at
	// risk and how many they are (max_stake_per_race, max_bets_per_race).
	RaceStake float64 `json:"race_stake"`
	RaceBets  int     `json:"race_bets"`
}

// limitSums are u as a not_created entry keeps them.
func limitSums(u usage) *LimitSums {
	return &LimitSums{Staked: u.Staked, OpenStake: u.OpenStake, Profit: u.Profit, WorstCase: u.WorstCase(),
		LowestProfit: u.LowestProfit, HighestProfit: u.HighestProfit, Bets: u.Bets, RaceStake: u.RaceStake, RaceBets: u.RaceBets}
}
