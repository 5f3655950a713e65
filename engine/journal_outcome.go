package engine

import "time"

// opOutcome keeps how a bet ended, once, in the journal of the run that saw
// it end: what the sessions accepted, at what odds, the service's profit,
// and the race it was on, so `betplan history` reads the state alone. Its
// facts sit under the entry's "outcome" key, never in the fields other
// entries fold (amount, race), so a betplan that does not know the entry
// folds nothing from it.
const opOutcome = "outcome"

// The results an outcome entry records.
const (
	OutcomeWon       = "won"
	OutcomeLost      = "lost"
	OutcomeVoid      = "void"
	OutcomeNotPlaced = "not_placed" // no session placed it: refused, not taken, or cancelled first
)

// JournalOutcome is a bet's final outcome as its journal keeps it (the
// "outcome" object of an outcome entry). Amounts are dollars to the cent.
type JournalOutcome struct {
	Label          string `json:"label"`
	BetID          string `json:"bet_id"`
	NotificationID int64  `json:"notification_id"`
	// Result is won, lost or void (by the sign of the service's profit, as
	// the settled alert words it), or not_placed; Status the bet's status.
	Result   string  `json:"result"`
	Status   Status  `json:"status"`
	Accepted float64 `json:"accepted"`
	Odds     float64 `json:"odds,omitempty"`
	// Profit is the notification's aggregate profit as the service gave it.
	Profit float64 `json:"profit"`
	// Units is the tip's record at its published odds, for a notification
	// whose tip carries units; nil otherwise.
	Units    *float64         `json:"units,omitempty"`
	Sessions []SessionOutcome `json:"sessions,omitempty"`
	Venue    string           `json:"venue,omitempty"`
	Code     string           `json:"code,omitempty"`
	Race     int              `json:"race,omitempty"`
	// Day is the race's meeting day in the venue's time zone, as the
	// limits count it.
	Day        string    `json:"day,omitempty"`
	Start      time.Time `json:"start,omitempty"`
	Market     string    `json:"market,omitempty"`
	Type       string    `json:"type,omitempty"`
	ResultTime time.Time `json:"result_time,omitempty"`
	// ReasonCode and Reason say why a bet ended not placed (or
	// cancelled): its code from the one list (package reason) and the
	// sentence people read, the service's words in it; empty for a bet
	// placed.
	ReasonCode string `json:"reason_code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Requested is the bet's stake (or target profit), what the plan
	// meant to bet: `history --by reason` sums it for the bets not placed.
	Requested float64 `json:"requested,omitempty"`
}

// SessionOutcome is one session's part of a bet, from its bet record.
type SessionOutcome struct {
	Session  string  `json:"session"`
	Accepted float64 `json:"accepted"`
	Odds     float64 `json:"odds,omitempty"`
	Profit   float64 `json:"profit"`
	// Result and Error are the record's submit_result and submit_error:
	// the service's words for a session that did not place it.
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}
