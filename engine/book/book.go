// Package book is the one owner of a plan's (and an account's) money: what
// each bet puts at risk from where it stands, and what the bets add up to in
// a scope (a plan, a period, a race, the whole account). Every view the user
// reads (the limits' gate, the prompt, plan, status, doctor, the reports,
// the alerts, history) takes its figures from Count and Usage, so every
// screen shows the same money (flumine's Blotter: one index of orders, and
// exposure and P&L computed from it).
//
// A bet's money is folded once, by Count, from what is known of it: the
// journal (its create, an in-doubt create, a cancel, the outcome a run kept),
// what the service showed (accepted, resulted, cancelled, the odds taken),
// and what this command saw (it ended, sessions refused it). Nothing else
// decides what a bet puts at risk, and nothing else adds bets up: sums are
// kept in whole cents, so the totals of two views never differ by a float's
// rounding.
package book

import (
	"math"
	"time"
)

// Stage is where a bet's money stands. A bet that can no longer lose
// anything (refused, not taken, cancelled with nothing placed, void with
// nothing accepted) is not counted at all: Count says so.
type Stage uint8

// The stages of a counted bet.
const (
	// Planned is a preview's create: not sent, counted as if it were.
	Planned Stage = iota + 1
	// InDoubt is a create that was sent and may have landed: counted at
	// what it would put at risk until the service says.
	InDoubt
	// Open is a bet created on the service and not resulted: what its
	// sessions accepted, or may still place, is at risk.
	Open
	// CanceledPlaced is a bet cancelled after sessions placed it: what they
	// placed stays on until the result; nothing more is placed.
	CanceledPlaced
	// Settled is a bet resulted with money accepted: its profit is the
	// service's.
	Settled
	// Unplaced is a bet created and resulted with nothing accepted: it
	// counts as a bet the plan made, with nothing at risk.
	Unplaced
)

// String names the stage as reports and messages do.
func (s Stage) String() string {
	switch s {
	case Planned:
		return "planned"
	case InDoubt:
		return "in doubt"
	case Open:
		return "open"
	case CanceledPlaced:
		return "cancelled after placement"
	case Settled:
		return "settled"
	case Unplaced:
		return "resulted unplaced"
	}
	return "not counted"
}

// Exposure is what one bet may lose, and how that was worked out: "$2.00 ×
// 2: 2 sessions with a running bot (Main, Lads)".
type Exposure struct {
	Amount float64
	Basis  string
}

// Race is the race (or sports event) a bet is on, as the per-race sums and
// the periods compare them.
type Race struct {
	Venue       string
	Code        string
	EventNumber int
	Start       time.Time
	// Event is a sports event's id: an event is its own "race".
	Event string
}

// Bet is one counted bet: what it puts at risk now, and its profit once
// settled. Only Count makes one; its fields are read through its methods.
type Bet struct {
	plan, label, betID string
	race               Race
	stage              Stage
	requested          float64
	risk               Exposure
	profit             float64
	resultAt           time.Time
}

// Plan is the plan that committed the bet.
func (b Bet) Plan() string { return b.plan }

// Label is the bet's label on the service.
func (b Bet) Label() string { return b.label }

// BetID is the plan's id of the bet.
func (b Bet) BetID() string { return b.betID }

// Race is the race the bet is on.
func (b Bet) Race() Race { return b.race }

// Stage is where the bet's money stands.
func (b Bet) Stage() Stage { return b.stage }

// Requested is the bet's stake or target profit as requested.
func (b Bet) Requested() float64 { return b.requested }

// Risk is what the bet can lose: before its sessions answer, what it may
// put at risk; after, what they accepted (a lay's liability at the odds
// taken); once settled, what was at stake.
func (b Bet) Risk() Exposure { return b.risk }

// Profit is the settled profit (0 until settled).
func (b Bet) Profit() float64 { return b.profit }

// ResultAt is when the bet resulted.
func (b Bet) ResultAt() time.Time { return b.resultAt }

// IsOpen reports whether the bet is still to be decided: its risk may
// still be lost.
func (b Bet) IsOpen() bool { return b.stage != Settled && b.stage != Unplaced }

// IsSettled reports whether the bet resulted with money accepted.
func (b Bet) IsSettled() bool { return b.stage == Settled }

// WithPlan is b counted for another plan's name (the account's sums name
// each bet's plan).
func (b Bet) WithPlan(name string) Bet { b.plan = name; return b }

// Facts is everything known of one bet, from which Count decides what it
// puts at risk. The zero value of a part means it is not known.
type Facts struct {
	Plan, Label, BetID string
	Race               Race
	Requested          float64
	// Estimate is what the bet may put at risk before its sessions answer:
	// what its create announced, or, for a bet not created, what it would
	// put at risk with the sessions of now.
	Estimate Exposure
	// Planned marks a preview's create; InDoubt a create that may have
	// landed (the journal's last entry is `creating`).
	Planned, InDoubt bool
	// CancelSent says betplan cancelled the bet; PlacedBefore that the
	// journal or this command saw sessions place it.
	CancelSent, PlacedBefore bool
	// Seen is what the service showed of the bet when last read.
	Seen *Seen
	// Kept is the outcome a run kept in the journal.
	Kept *Kept
	// Ended says this command saw the bet end with nothing more to come;
	// CanceledNothing that it saw it cancelled with nothing placed.
	Ended, CanceledNothing bool
	// Refused is the part of Estimate the sessions that refused it would
	// have placed (no longer at risk), RefusedBy who they are.
	Refused   float64
	RefusedBy string
}

// Seen is a bet as the service showed it.
type Seen struct {
	Accepted float64 // total accepted by the sessions (a lay's backer's stake)
	Profit   float64
	// AverageOdds are the odds the sessions took (a lay's liability is
	// accepted × (odds − 1)).
	AverageOdds float64
	Resulted    bool
	Canceled    bool
	Start       time.Time
	ResultAt    time.Time
	// Lay marks a lay bet: what it can lose is its liability at the odds
	// taken, not the backer's stake it accepted.
	Lay bool
}

// Kept is the outcome a run kept in the bet's journal.
type Kept struct {
	NotPlaced bool // no session placed it
	Accepted  float64
	Odds      float64
	Profit    float64
	ResultAt  time.Time
	Lay       bool
}

// Count folds what is known of a bet into what it puts at risk now; false
// when it puts nothing at risk and is not counted (cancelled or refused
// with nothing placed, never created). The one definition of a bet's
// money: every sum is of bets it made.
func Count(f Facts, now time.Time) (Bet, bool) {
	b := Bet{plan: f.Plan, label: f.Label, betID: f.BetID, race: f.Race, requested: f.Requested, risk: f.Estimate, stage: Open}
	switch {
	case f.Planned:
		b.stage = Planned
	case f.InDoubt:
		b.stage = InDoubt
	}
	if f.CanceledNothing {
		return Bet{}, false
	}
	if s := f.Seen; s != nil {
		if !s.Start.IsZero() {
			b.race.Start = s.Start
		}
		return b.seen(f, s, now)
	}
	if k := f.Kept; k != nil {
		b.stage, b.profit, b.resultAt = Settled, k.Profit, k.ResultAt
		if k.NotPlaced || k.Accepted == 0 {
			b.stage, b.profit, b.risk = Unplaced, 0, Exposure{Basis: "nothing was placed"}
			return b, true
		}
		b.risk = Exposure{Amount: liability(k.Lay, k.Accepted, k.Odds), Basis: "accepted by the sessions"}
		if k.Lay {
			b.risk.Basis = "the lay's liability at the odds taken"
		}
		return b, true
	}
	if f.CancelSent {
		if !f.PlacedBefore {
			return Bet{}, false // nothing known placed before the cancel
		}
		b.stage = CanceledPlaced
		b.risk.Basis = "placed before the cancel, as announced; nothing more will be placed"
	}
	return b, true
}

// seen is Count for a bet the service showed as s.
func (b Bet) seen(f Facts, s *Seen, now time.Time) (Bet, bool) {
	accepted := liability(s.Lay, s.Accepted, s.AverageOdds)
	acceptedWords := "accepted by the sessions"
	if s.Lay {
		acceptedWords = "the lay's liability at the odds taken"
	}
	off := f.Ended || (!b.race.Start.IsZero() && !now.Before(b.race.Start))
	switch {
	case s.Canceled && s.Accepted == 0:
		return Bet{}, false
	case s.Resulted:
		b.stage, b.profit, b.resultAt = Settled, s.Profit, s.ResultAt
		b.risk = Exposure{Amount: RoundCents(accepted), Basis: acceptedWords}
		if s.Accepted == 0 {
			b.stage, b.profit = Unplaced, 0
		}
	case s.Canceled || f.CancelSent:
		if s.Accepted == 0 {
			return Bet{}, false
		}
		b.stage = CanceledPlaced
		b.risk = Exposure{Amount: RoundCents(accepted), Basis: "placed before the cancel; nothing more will be placed"}
	case off:
		// Past the off nothing more is placed: what was accepted is what
		// is at risk, until the result.
		b.risk = Exposure{Amount: RoundCents(accepted), Basis: acceptedWords}
		if s.Accepted == 0 {
			b.stage, b.risk.Basis = Unplaced, "nothing was placed by the off"
			if f.Ended {
				b.risk.Basis = "nothing was placed"
			}
		}
	case f.Refused > 0:
		// A session that refused places nothing: what it would have
		// placed is no longer at risk.
		left := math.Max(accepted, RoundCents(b.risk.Amount-f.Refused))
		b.risk = Exposure{Amount: RoundCents(left), Basis: "accepted by the sessions so far, or still to be placed; " +
			usd(f.Refused) + " refused by " + f.RefusedBy}
		if left == accepted {
			b.risk.Basis = "accepted by the sessions; the others refused it"
		}
	case accepted > b.risk.Amount:
		b.risk = Exposure{Amount: RoundCents(accepted), Basis: acceptedWords + " so far"}
	}
	if b.stage == InDoubt {
		b.stage = Open // the service showed it: the create landed
	}
	return b, true
}

// liability is what an accepted amount can lose: the amount, or for a lay,
// the larger of the amount and its liability at odds (the service does not
// say whether a lay's stake is the backer's stake or the liability).
func liability(lay bool, accepted, odds float64) float64 {
	if !lay || odds <= 2 {
		return accepted
	}
	return RoundCents(accepted * (odds - 1))
}

// Reported is a bet as a finished command's report counts it: what it has
// at risk and, once settled, its profit. A command of several plans counts
// the account from its plans' reports, so each report's account says the
// same money as the plans' own totals.
func Reported(plan, label, betID string, race Race, risk Exposure, stage Stage, profit float64, resultAt time.Time) Bet {
	if stage != Settled {
		profit = 0
	}
	return Bet{plan: plan, label: label, betID: betID, race: race, stage: stage, risk: risk, profit: profit, resultAt: resultAt}
}
