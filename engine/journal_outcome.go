package engine

import (
	"math"
	"strings"
	"time"
)

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
}

// SessionOutcome is one session's part of a bet, from its bet record.
type SessionOutcome struct {
	Session  string  `json:"session"`
	Accepted float64 `json:"accepted"`
	Odds     float64 `json:"odds,omitempty"`
	Profit   float64 `json:"profit"`
}

// keepOutcomes records, once, the outcome of each bet that is final with
// everything read (a settled bet's session records included), while the
// run holds the journal. A status reading the journal without the lock
// leaves it to the run. A failed write is tried again at the next read.
func (r *tracker) keepOutcomes() {
	j := r.journal
	if j == nil || !j.writable() {
		return
	}
	for _, in := range r.book.insts {
		if !in.final || in.needRecords || in.notifID == 0 || in.notif == nil {
			continue
		}
		if s := j.State(in.label); s == nil || s.Outcome {
			continue
		}
		o := r.outcomeOf(in)
		_ = j.Record(journalEntry{Op: opOutcome, Label: in.label, Outcome: &o}) // a journal out of reach stops the run on its own
	}
}

// outcomeOf is in's outcome as its notification and records say.
func (r *tracker) outcomeOf(in *instance) JournalOutcome {
	b := in.result()
	n := in.notif
	o := JournalOutcome{
		Label: in.label, BetID: in.bet.ID, NotificationID: in.notifID,
		Status: in.status, Accepted: roundCents(float64(n.TotalAccepted)),
		Profit: roundCents(float64(n.Profit)),
		Venue:  in.info.Venue, Code: in.info.Code, Race: in.info.EventNumber,
		Day: meetingDate(in.info.Start), Start: in.info.Start,
		Market: b.Market, Type: b.Type, ResultTime: n.Tip.ResultTime.Time,
	}
	if o.Type == "" {
		o.Type = n.Type
	}
	if o.Market == "" {
		o.Market = n.Tip.Market
	}
	if e := in.info.Event; e != nil && o.Venue == "" {
		o.Venue, o.Code = e.Name, e.Sport
	}
	if o.Accepted > 0 {
		o.Odds = float64(n.AverageOdds)
		switch {
		case o.Profit > 0:
			o.Result = OutcomeWon
		case o.Profit < 0:
			o.Result = OutcomeLost
		default:
			o.Result = OutcomeVoid
		}
	} else {
		o.Result = OutcomeNotPlaced
	}
	if u, odds := float64(n.Tip.AmountUnits), float64(n.Tip.Odds); u > 0 && odds > 0 && o.Accepted > 0 {
		var v float64
		switch o.Result {
		case OutcomeWon:
			v = u * (odds - 1)
		case OutcomeLost:
			v = -u
		}
		v = math.Round(v*100) / 100
		o.Units = &v
	}
	for _, rec := range in.records {
		name := rec.DisplayName
		if strings.TrimSpace(name) == "" {
			name = rec.Bookie
		}
		o.Sessions = append(o.Sessions, SessionOutcome{Session: name, Accepted: roundCents(rec.Amount), Odds: rec.Odds, Profit: roundCents(rec.Profit)})
	}
	return o
}

// AccountKey is how a journal names the account called name (its init
// entry's account), for readers of journals that match one.
func AccountKey(name string) string { return accountKey(name) }
