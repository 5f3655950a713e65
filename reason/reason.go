// Package reason is the one closed list of why a bet was not created, not
// placed, stopped or cancelled (Stripe's error codes: a code a program
// switches on, a sentence for people beside it). Reports, JUnit, the alerts
// and history read the code; nothing parses the sentence. The report
// schema's enum and the documentation's table are generated from All, and a
// test fails when they drift.
package reason

import "slices"

// Code is one reason. The strings are part of report.json's contract.
type Code string

// The reasons, by what did not happen. Keep All in step: a code not in it
// is not a reason.
const (
	// Not created.
	Limit          Code = "limit"           // a cap of the plan's or the account's limits held it back
	Stop           Code = "stop"            // stop_loss or take_profit ended the plan's period: no new bets
	Stopped        Code = "stopped"         // the plan is stopped (betplan stop)
	RunRefused     Code = "run_refused"     // the run refused before creating it (a safety check, no confirmation)
	ConditionFalse Code = "condition_false" // its when was never true before the race started
	Scratched      Code = "scratched"       // its runner was scratched, or its box is vacant
	RaceStarted    Code = "race_started"    // the race started before its create could be sent
	Missed         Code = "missed"          // its named race's window passed between two runs
	Unresolved     Code = "unresolved"      // its race or event could not be found
	NoBot          Code = "no_bot"          // no targeted session had a running bot
	AmountInvalid  Code = "amount_invalid"  // its amount or condition could not be worked out
	CreateRefused  Code = "create_refused"  // the service refused the create
	InDoubt        Code = "in_doubt"        // a create was sent and may have landed

	// Created, not placed.
	OddsBound         Code = "odds_bound"         // the sessions refused it for the plan's own odds bound
	StakeLimit        Code = "stake_limit"        // the bookmaker's minimum or maximum stake refused it
	InsufficientFunds Code = "insufficient_funds" // the bookmaker account lacked the funds
	LoggedOut         Code = "logged_out"         // the session's bot was not logged in to the bookmaker
	MarketUnavailable Code = "market_unavailable" // the bookmaker did not offer the market or selection
	SessionRefused    Code = "session_refused"    // the sessions refused it for another reason, given in their words
	NotTaken          Code = "not_taken"          // no session acted on it by the race's start
	Cancelled         Code = "cancelled"          // cancelled (betplan cancel or stop, or on the service) before it was placed
)

// Info is one reason with what it means, for the documentation and the
// schema.
type Info struct {
	Code Code
	// Stage is what did not happen: "not created" or "not placed".
	Stage string
	// Words says what the reason means.
	Words string
	// Failure says whether the reason counts as a failure of the run
	// (exit 1): a limit, a stop, the plan's own odds bound or a cancel is
	// the plan doing what it said, not a failure.
	Failure bool
}

// All is every reason, in the order the documentation lists them.
var All = []Info{
	{Limit, "not created", "a cap of the plan's or the account's limits (max_total_stake, max_loss, …) held it back", false},
	{Stop, "not created", "stop_loss or take_profit ended the plan's period: no new bets in it", false},
	{Stopped, "not created", "the plan is stopped (betplan stop)", false},
	{RunRefused, "not created", "the run refused before creating it: a safety check, or no confirmation", true},
	{ConditionFalse, "not created", "its when was never true before the race started", false},
	{Scratched, "not created", "its runner was scratched, or its box is vacant", false},
	{RaceStarted, "not created", "the race started before its create could be sent", true},
	{Missed, "not created", "its named race's window passed between two runs (the machine was asleep, cron was late)", true},
	{Unresolved, "not created", "its race or sports event could not be found", true},
	{NoBot, "not created", "no session it targets had a running bot", true},
	{AmountInvalid, "not created", "its amount or condition could not be worked out", true},
	{CreateRefused, "not created", "the service refused the create", true},
	{InDoubt, "not created", "a create was sent and may have landed: the next run looks its label up", true},
	{OddsBound, "not placed", "every session refused it for the plan's own odds bound (check_odds, check_max_odds)", false},
	{StakeLimit, "not placed", "the bookmaker's minimum or maximum stake refused it", true},
	{InsufficientFunds, "not placed", "the bookmaker account lacked the funds", true},
	{LoggedOut, "not placed", "the session's bot was not logged in to the bookmaker", true},
	{MarketUnavailable, "not placed", "the bookmaker did not offer the market or the selection", true},
	{SessionRefused, "not placed", "the sessions refused it for another reason, given in their words", true},
	{NotTaken, "not placed", "no session acted on it by the race's start", true},
	{Cancelled, "not placed", "cancelled before any session placed it", false},
}

// Codes is every code, in All's order.
func Codes() []Code {
	out := make([]Code, len(All))
	for i, in := range All {
		out[i] = in.Code
	}
	return out
}

// Valid reports whether c is in the list.
func (c Code) Valid() bool { return slices.Contains(Codes(), c) }

// Of is c's entry in All; false for a code not in the list.
func Of(c Code) (Info, bool) {
	for _, in := range All {
		if in.Code == c {
			return in, true
		}
	}
	return Info{}, false
}

// Failure reports whether a bet ending for reason c counts as a failure of
// the run (an unknown or empty code does: nothing is softened by not
// knowing).
func (c Code) Failure() bool {
	in, ok := Of(c)
	return !ok || in.Failure
}

// Scope is whose limit held a bet back.
type Scope string

// The scopes of a limit.
const (
	ScopePlan    Scope = "plan"    // the plan's own limits
	ScopeAccount Scope = "account" // the account file's, every plan together
)

// Why is one reason given: its code, the limit and whose it is for Limit
// and Stop, and the sentence for people (with the service's own words where
// it gave them).
type Why struct {
	Code  Code
	Limit string // the limit's key, max_total_stake, for Limit and Stop
	Scope Scope  // whose limit, for Limit and Stop
	// Period is the period the limit counts in ("2026-11-21", "2026-W47";
	// "" for all time), for Limit and Stop.
	Period string
	Text   string
}

// Said is a reason with its sentence.
func Said(c Code, text string) Why { return Why{Code: c, Text: text} }

// LimitKey names the limit of a Limit or Stop reason as the account file
// and the alerts name it: "max_total_stake", "account max_total_stake".
func (w Why) LimitKey() string {
	if w.Scope == ScopeAccount {
		return "account " + w.Limit
	}
	return w.Limit
}
