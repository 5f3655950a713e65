package engine

import (
	"math"
	"strings"
)

// The tracker keeps how each of its bets ended in the journal it holds:
// one outcome entry a bet (journal_outcome.go), from what its notification
// and bet records say.

// keepOutcomes records in j, once, the outcome of each bet that is final
// with everything read (a settled bet's session records included): the
// run's journal, or the one a status takes the lock for, with the
// placement times (followHost.KeepPlacements). A failed write is tried
// again at the next read.
func (r *tracker) keepOutcomes(j *Journal) {
	if j == nil || !j.writable() {
		return
	}
	for _, in := range r.outcomesToKeep(j) {
		o := r.outcomeOf(in)
		_ = j.Record(journalEntry{Op: opOutcome, Label: in.label, Outcome: &o}) // a journal out of reach stops the run on its own
	}
}

// outcomesToKeep are the bets whose outcome j lacks and could keep now.
func (r *tracker) outcomesToKeep(j *Journal) []*instance {
	var out []*instance
	for _, in := range r.book.insts {
		if !in.final || in.needRecords || in.notifID == 0 || in.notif == nil {
			continue
		}
		if s := j.State(in.label); s == nil || s.Outcome {
			continue
		}
		out = append(out, in)
	}
	return out
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
	if in.why.Code != "" {
		o.ReasonCode, o.Reason = string(in.why.Code), in.reason
	}
	o.Requested = roundCents(in.amount)
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
		so := SessionOutcome{Session: name, Accepted: roundCents(rec.Amount), Odds: rec.Odds, Profit: roundCents(rec.Profit)}
		if !strings.EqualFold(rec.SubmitResult, "Success") {
			so.Result, so.Error = rec.SubmitResult, rec.SubmitError
		}
		o.Sessions = append(o.Sessions, so)
	}
	return o
}
