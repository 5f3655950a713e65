package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// The book of bets is the one index of a command's instances and the only
// code that changes a bet's state (flumine's Blotter and BaseOrder): the
// readers of the service and the journal hand it what they saw, the
// deciding code hands it what it decided, and everything else reads the
// instances or listens to the book's transitions. Only the files book*.go
// assign a betState (TestOnlyTheBookWritesBetState).

// betState is what a bet has reached, on the service and in the run.
type betState struct {
	status Status
	reason string
	// why is reason as a program reads it: its code (and limit) from the
	// one list of reasons; its Text is reason.
	why    reason.Why
	err    string
	amount float64 // the evaluated stake or target profit, once known
	// risk is what the bet was worked out to put at risk when it was
	// created (or last evaluated).
	risk exposure

	notifID    int64
	createdAt  time.Time
	lastPolled time.Time
	notif      *apiclient.Notification
	records    []Record
	final      bool
	// placedAt and placedBy say when the service first showed the bet
	// placed and by which sessions (from the bet records once read).
	placedAt time.Time
	placedBy []string
	// placedFromRecords says placedAt is the bet records' submit time,
	// not a poll's stand-in: it no longer moves.
	placedFromRecords bool
	// refusedBy are the sessions whose records say they refused the bet,
	// each with the service's reason ("Ladbrokes 2: Insufficient funds in
	// your account."), and refusedStake the stake they would have placed:
	// no longer at risk.
	refusedBy    []string
	refusedStake float64
	// recordsAt is the total_accepted the records were last read at: a
	// placement is read once, and again when more is accepted.
	recordsAt     float64
	recordsRead   bool
	needPlacement bool
	// placementLogged is set once the log said the bet was placed.
	placementLogged bool
	// outcomeDue holds back the line saying how the bet ended until its
	// placement is logged (engine/follow's outcome.go).
	outcomeDue bool
	// placedEarlier says an earlier run (or status) saw the bet placed, as
	// the journal keeps it: this run does not log that placement again.
	placedEarlier bool
	// canceled is set once the bet is cancelled (by betplan, or on the
	// service): nothing more will be placed, and what sessions placed
	// before stays on until its result.
	canceled bool
	// answeredBy is the received_bots whose answer was read from the
	// records, so an unplaced answer is read once.
	answeredBy string
	// needRecords marks a settled bet whose per-session records are still
	// to be read (in bulk, see follow.Follower.CompleteRecords).
	needRecords bool
	// blocked are the sessions it targets as read just before its
	// create, when none of them could bet it (sessions_check.go).
	blocked []sessionBlock

	// changed says the bet is among the book's transitions not yet taken
	// (takeChanged).
	changed bool
}

// book is the plan's bets: their index and every change to their state.
type betBook struct {
	insts   []*instance
	byLabel map[string]*instance
	// version counts the changes to what the service showed of the
	// plan's bets (and to the instances themselves), after which the
	// limits' sums are built again.
	version int
	// edits counts the changes to what a bet shows the others'
	// expressions (betEnv: its status, amount, notification, race), and
	// to which bets the book holds; layout the changes to which bets it
	// holds, their order and their starts. A view built from the bets
	// (betsView, startOrder) stands while its count does: a decision that
	// changes a bet moves edits, so the next decision of its tick reads
	// the change. A why alone (wait, trouble) or the bookkeeping of polls
	// and records does not.
	edits, layout int
	starts        startOrder // byStart's order
	// watched says the run's alerts listen to the transitions: changed
	// holds the bets that moved since they last took them, spare the
	// slice they had.
	watched        bool
	changed, spare []*instance
}

func newBook() *betBook { return &betBook{byLabel: make(map[string]*instance)} }

// moved notes a transition of in for whoever listens to the book.
func (b *betBook) moved(in *instance) {
	if b.watched && !in.changed {
		in.changed = true
		b.changed = append(b.changed, in)
	}
}

// watch starts keeping the transitions for the alerts: every bet the book
// holds counts as moved, so the first take sees each once.
func (b *betBook) watch() {
	b.watched = true
	for _, in := range b.insts {
		b.moved(in)
	}
}

// takeChanged returns the bets that moved since the last take, each once,
// in the order they first moved. The slice is the book's: it is valid
// until the next take.
func (b *betBook) takeChanged() []*instance {
	ch := b.changed
	b.changed, b.spare = b.spare[:0], ch
	for _, in := range ch {
		in.changed = false
	}
	return ch
}

// outdated says what the limits' sums are built from changed outside the
// bets' own states (instances found, moved or dropped; notifications
// read by label prefix).
func (b *betBook) outdated() { b.version, b.edits, b.layout = b.version+1, b.edits+1, b.layout+1 }

// newWaiting is a bet not created yet.
func newWaiting(bet *plan.Bet, info RaceInfo, label string, amount float64) *instance {
	return &instance{bet: bet, info: info, label: label, betState: betState{status: StatusWaiting, amount: amount}}
}

// newUnresolved is a bet whose race or event was not found, and why.
func newUnresolved(bet *plan.Bet, info RaceInfo, why string) *instance {
	return &instance{bet: bet, info: info, betState: betState{status: StatusUnresolved, reason: why, final: true,
		why: reason.Said(reason.Unresolved, why)}}
}

// newFound is a bet known from its notification n alone (a lost
// journal's recovery, status).
func newFound(bet *plan.Bet, n *apiclient.Notification, amount float64) *instance {
	return &instance{bet: bet, label: n.Label, info: notificationRace(n),
		betState: betState{status: StatusCreated, notifID: int64(n.ID), notif: n, amount: amount}}
}

// add puts in into the book, under key in the index unless key is "".
func (b *betBook) add(key string, in *instance) {
	if key != "" {
		b.byLabel[key] = in
	}
	b.insts = append(b.insts, in)
	b.edits, b.layout = b.edits+1, b.layout+1
	b.moved(in)
}

// remove takes in, indexed under key, out of the book.
func (b *betBook) remove(in *instance, key string) {
	delete(b.byLabel, key)
	b.edits, b.layout = b.edits+1, b.layout+1
	for i, x := range b.insts {
		if x == in {
			b.insts = append(b.insts[:i], b.insts[i+1:]...)
			return
		}
	}
}

// restore brings what the journal knows of in's label (s) into in.
func (b *betBook) restore(in *instance, s *labelState) {
	b.edits++
	if s.Amount > 0 {
		in.amount = s.Amount
	}
	if !s.PlacedAt.IsZero() {
		// Kept by an earlier run or status: the placement time never moves.
		in.placedAt, in.placedFromRecords = s.PlacedAt, s.PlacedFromRecords
		in.placedEarlier = true
	}
	in.blocked = s.Blocked
	switch {
	case s.created():
		in.notifID = s.NotificationID
		in.status = StatusCreated
		in.say(reason.Why{})
		if s.Canceled {
			// Until a poll shows whether sessions had placed it.
			in.status, in.canceled = StatusCanceled, true
		}
	case s.Failed != "":
		in.status = StatusFailed
		in.say(reason.Said(reason.CreateRefused, "the service refused the create: "+s.Failed))
		in.final = true
	}
	b.moved(in)
}

// say sets why in stands where it does: the sentence and its code.
func (in *instance) say(why reason.Why) { in.reason, in.why = why.Text, why }

// wait says why in is not created yet (or not now), its state unchanged:
// a passing state, with no reason code.
func (b *betBook) wait(in *instance, text string) {
	in.say(reason.Why{Text: text})
	b.moved(in)
}

// hold says why in is held back for the rest of the run, its state
// unchanged (the plan stopped, say): a reason with its code.
func (b *betBook) hold(in *instance, why reason.Why) {
	in.say(why)
	b.moved(in)
}

// end makes in final with status and why.
func (b *betBook) end(in *instance, status Status, why reason.Why) {
	in.status, in.final = status, true
	in.say(why)
	b.edits++
	b.moved(in)
}

// fail makes in final and failed: err is the error it ends with, why
// (its sentence unless "") why.
func (b *betBook) fail(in *instance, why reason.Why, err string) {
	in.status, in.final = StatusFailed, true
	b.edits++
	if why.Text != "" {
		in.say(why)
	} else {
		in.why.Code = why.Code
	}
	in.err = err
	b.moved(in)
}

// trouble keeps err, a read or a check that failed and is tried again,
// and reason (unless "") what that leaves in at.
func (b *betBook) trouble(in *instance, err, text string) {
	in.err = err
	if text != "" {
		in.say(reason.Why{Text: text})
	}
	b.moved(in)
}

// sawSessions is what the sessions in targets were just before its
// create: blocks when none of them could bet it, else nil.
func (b *betBook) sawSessions(in *instance, blocks []sessionBlock) { in.blocked = blocks }

// priced sets in's stake or target profit.
func (b *betBook) priced(in *instance, amount float64) {
	if in.amount != amount {
		in.amount = amount
		b.edits++
	}
}

// risked sets what in puts at risk.
func (b *betBook) risked(in *instance, e exposure) { in.risk = e }

// created is in's create landed as notification id, at.
func (b *betBook) created(in *instance, id int64, at time.Time) {
	in.notifID = id
	in.createdAt = at
	in.status = StatusCreated
	b.edits++
	in.say(reason.Why{})
	in.err = ""
	b.moved(in)
}

// knownAs is a preview's bet whose label notification id already carries.
func (b *betBook) knownAs(in *instance, id int64) { in.notifID, b.edits = id, b.edits+1 }

// found is in's notification n, just read by a label look-up at.
func (b *betBook) found(in *instance, n *apiclient.Notification, at time.Time) {
	in.notif, in.lastPolled = n, at
	b.version, b.edits = b.version+1, b.edits+1
	b.moved(in)
}

// polled is in read (or tried) at; ok clears a poll's failure.
func (b *betBook) polled(in *instance, at time.Time, ok bool) {
	in.lastPolled = at
	if ok && strings.HasPrefix(in.err, "polling:") {
		in.err = ""
	}
}

// readAgain makes in due at the next poll.
func (b *betBook) readAgain(in *instance) { in.lastPolled = time.Time{} }

// observe is n, what the service shows of in now.
func (b *betBook) observe(in *instance, n *apiclient.Notification) {
	in.notif = n
	b.version, b.edits = b.version+1, b.edits+1
	if in.createdAt.IsZero() && !n.CreatedAt.IsZero() {
		// Known from the journal or recovered from the service: its answer
		// window counts from when the service created it.
		in.createdAt = n.CreatedAt.Time
	}
	b.moved(in)
}

// placing marks in first seen placed (and again when more is accepted,
// up to accepted) for its records to be read: until then at and by stand
// in for when and by whom.
func (b *betBook) placing(in *instance, at time.Time, by []string, accepted float64) {
	if in.placedAt.IsZero() {
		in.placedAt = at
	}
	if len(in.placedBy) == 0 {
		in.placedBy = by
	}
	in.needPlacement, in.recordsAt = true, accepted
	b.moved(in)
}

// cancelled is in cancelled, by betplan or on the service.
func (b *betBook) cancelled(in *instance) {
	in.canceled = true
	b.edits++
	b.moved(in)
}

// answered is the answer of the bots bots read from in's records.
func (b *betBook) answered(in *instance, bots string) { in.answeredBy = bots }

// move is in at status, not final, and why.
func (b *betBook) move(in *instance, status Status, text string) {
	in.status = status
	in.say(reason.Why{Text: text})
	b.edits++
	b.moved(in)
}

// settled is in resulted with money accepted: its records are read later,
// in bulk.
func (b *betBook) settled(in *instance, text string) {
	in.final, in.err, in.needRecords = true, "", true
	in.status = StatusSettled
	in.say(reason.Why{Text: text})
	b.edits++
	b.moved(in)
}

// complete is in resulted, its records read: it ends at status, and why.
func (b *betBook) complete(in *instance, status Status, why reason.Why) {
	in.final = true
	in.err = ""
	in.status = status
	in.say(why)
	b.edits++
	b.moved(in)
}

// readRecords keeps a notification's records and what they say of who
// placed it and when (at stands in when they do not say). It reports
// whether the placement is to be logged now.
func (b *betBook) readRecords(in *instance, recs []apiclient.BetRecord, at time.Time) (logPlacement bool) {
	in.needRecords = false
	placement := in.needPlacement
	in.needPlacement, in.recordsRead = false, true
	in.records = in.records[:0]
	in.refusedBy, in.refusedStake = nil, 0
	var by []string
	var first time.Time
	for i := range recs {
		rec := &recs[i]
		in.records = append(in.records, Record{
			Bookie:       string(rec.Bookie),
			DisplayName:  rec.DisplayName,
			Amount:       float64(rec.Amount),
			Odds:         float64(rec.CurrentOdds),
			SubmitResult: rec.SubmitResult,
			SubmitError:  rec.SubmitError,
			Status:       rec.Status,
			Profit:       float64(rec.Profit),
		})
		if rec.Failed() {
			in.refusedBy = append(in.refusedBy, fmt.Sprintf("%s: %s", rec.DisplayName, rec.SubmitError))
			in.refusedStake = book.Add(in.refusedStake, refusedShare(in))
		}
		if !rec.Accepted() {
			continue
		}
		by = append(by, rec.DisplayName)
		// When the session submitted it; the record's own time else.
		t := rec.SubmitTime.Time
		if t.IsZero() {
			t = rec.CreatedAt.Time
		}
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	// The records say exactly who placed it and when.
	if len(by) > 0 {
		in.placedBy = by
		if !first.IsZero() && !in.placedFromRecords {
			in.placedAt, in.placedFromRecords = first, true
		} else if in.placedAt.IsZero() {
			in.placedAt = at
		}
	}
	b.moved(in)
	if placement && len(by) > 0 {
		in.placementLogged = true
		if in.placedEarlier {
			// An earlier run logged it: a cron run logs what changed.
			in.placedEarlier = false
			return false
		}
		return true
	}
	return false
}

// placementUnread keeps err, why in's placement records could not be
// read. It reports whether the placement is to be logged now, without
// them (once).
func (b *betBook) placementUnread(in *instance, err string) bool {
	in.err = err
	if !in.placementLogged && !in.placedEarlier && in.notif != nil {
		in.placementLogged = true
		return true
	}
	return false
}

// holdOutcome reports whether in's outcome must wait for its placement
// to be logged (seen placed and resulted in one look), and holds it.
func (b *betBook) holdOutcome(in *instance) bool {
	if in.needPlacement && !in.placedEarlier && !in.placementLogged {
		in.outcomeDue = true
		return true
	}
	return false
}

// releaseOutcome reports whether in's held outcome may be logged now:
// its placement was (force: or will never be read), and lets it go.
func (b *betBook) releaseOutcome(in *instance, force bool) bool {
	if !in.outcomeDue || (in.needPlacement && !force) {
		return false
	}
	in.outcomeDue = false
	return true
}

// inDoubt is in, whose create was announced and whose outcome is
// unknown: it may have placed money (amount, the announced one unless in
// knows its own), and reason says so.
func (b *betBook) inDoubt(in *instance, amount float64, text string) {
	in.status = StatusInDoubt
	b.edits++
	if amount > 0 && in.amount == 0 {
		in.amount = amount
	}
	in.say(reason.Said(reason.InDoubt, text))
	b.moved(in)
}

// instance is one bet of the plan on one race.
type instance struct {
	bet   *plan.Bet
	race  *apiclient.Race  // nil when unresolved or known only from the journal
	event *apiclient.Event // an event bet's event, with its markets (sports.go)
	info  RaceInfo
	label string
	id    string // what reports show and cancel takes (instance.go)

	betState // only the book changes it (book.go)
}

// open reports whether the instance still needs attention.
func (in *instance) open() bool {
	switch in.status {
	case StatusWaiting, StatusCreated, StatusPlaced:
		return true
	}
	return false
}

// refusedShare is what one session's refusal takes off a bet's money at
// risk: what its stake can lose (a lay's, its liability at the odds cap),
// for a Fixed Wager each session places in full; 0 where a session's
// share is not known (a total split across sessions, a target profit).
func refusedShare(in *instance) float64 {
	t := betTerms(in.bet)
	if !strings.EqualFold(t.risk.Type, plan.TypeFixedWager) || t.total {
		return 0
	}
	return plan.RiskOf(t.risk, in.amount).PerSession
}
