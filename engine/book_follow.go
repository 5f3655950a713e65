package engine

import (
	"iter"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/reason"
)

// The book as the follower (engine/follow) sees it: read-only views of
// its bets, and its transitions by name. The follower changes nothing
// itself; each change it applies is one of the book's.

// betView is the read-only view of a bet the book hands the follower:
// the follower reads through it and cannot write; the engine, handed a
// view back, finds the bet behind it (instanceOf).
type betView struct{ in *instance }

// instanceOf is the book's bet behind v, a view the book handed out.
func instanceOf(v follow.Bet) *instance { return v.(betView).in }

func (v betView) Name() string              { return v.in.name() }
func (v betView) Label() string             { return v.in.label }
func (v betView) NotifID() int64            { return v.in.notifID }
func (v betView) Status() bet.Status        { return v.in.status }
func (v betView) Reason() string            { return v.in.reason }
func (v betView) Err() string               { return v.in.err }
func (v betView) Final() bool               { return v.in.final }
func (v betView) Canceled() bool            { return v.in.canceled }
func (v betView) CreatedAt() time.Time      { return v.in.createdAt }
func (v betView) LastPolled() time.Time     { return v.in.lastPolled }
func (v betView) Venue() string             { return v.in.info.Venue }
func (v betView) ListedStart() time.Time    { return v.in.info.Start }
func (v betView) TargetSession() string     { return v.in.bet.TargetSession }
func (v betView) Placers() int              { return len(v.in.placedBy) }
func (v betView) PlacedBy() string          { return strings.Join(v.in.placedBy, ", ") }
func (v betView) RefusedBy() string         { return strings.Join(v.in.refusedBy, "; ") }
func (v betView) RecordsRead() bool         { return v.in.recordsRead }
func (v betView) RecordsAt() float64        { return v.in.recordsAt }
func (v betView) AnsweredBy() string        { return v.in.answeredBy }
func (v betView) NeedRecords() bool         { return v.in.needRecords }
func (v betView) NeedPlacement() bool       { return v.in.needPlacement }
func (v betView) OutcomeDue() bool          { return v.in.outcomeDue }
func (v betView) Accepted() float64         { return v.notif().accepted }
func (v betView) ReceivedBots() string      { return v.notif().bots }
func (v betView) NotifCreatedAt() time.Time { return v.notif().created }
func (v betView) PlacementWarning() string  { return oddsPastCap(v.in) }
func (v betView) Blocked() (reason.Code, string) {
	why := blocksWhy(v.in.blocked)
	return why.Code, why.Text
}

// notifSeen is what the last read of a bet's notification showed that
// the follower reads: zero before any.
type notifSeen struct {
	accepted float64
	bots     string
	created  time.Time
}

func (v betView) notif() notifSeen {
	n := v.in.notif
	if n == nil {
		return notifSeen{}
	}
	return notifSeen{accepted: float64(n.TotalAccepted), bots: n.ReceivedBots, created: n.CreatedAt.Time}
}

// followBook is the book's side of following (follow.Book): its bets as
// views, and its transitions.
type followBook struct{ b *betBook }

func (f followBook) Bets() iter.Seq[follow.Bet] {
	return func(yield func(follow.Bet) bool) {
		for _, in := range f.b.insts {
			if !yield(betView{in}) {
				return
			}
		}
	}
}

func (f followBook) Len() int { return len(f.b.insts) }

func (f followBook) Polled(v follow.Bet, at time.Time, ok bool) { f.b.polled(instanceOf(v), at, ok) }
func (f followBook) Trouble(v follow.Bet, err string)           { f.b.trouble(instanceOf(v), err, "") }
func (f followBook) Cancelled(v follow.Bet)                     { f.b.cancelled(instanceOf(v)) }
func (f followBook) Answered(v follow.Bet, bots string)         { f.b.answered(instanceOf(v), bots) }
func (f followBook) Settled(v follow.Bet, reason string)        { f.b.settled(instanceOf(v), reason) }
func (f followBook) HoldOutcome(v follow.Bet) bool              { return f.b.holdOutcome(instanceOf(v)) }

func (f followBook) Observe(v follow.Bet, n *apiclient.Notification) { f.b.observe(instanceOf(v), n) }

// Listed is the start the service lists the bet's race at now: the
// race's start from then on, for the bet's messages and its not-taken
// deadline. What the bet shows the others (edits) moves with the
// notification it came in (observe).
func (f followBook) Listed(v follow.Bet, start time.Time) { instanceOf(v).info.Start = start }

func (f followBook) End(v follow.Bet, s bet.Status, why reason.Why) { f.b.end(instanceOf(v), s, why) }
func (f followBook) Move(v follow.Bet, s bet.Status, reason string) {
	f.b.move(instanceOf(v), s, reason)
}
func (f followBook) Complete(v follow.Bet, s bet.Status, why reason.Why) {
	f.b.complete(instanceOf(v), s, why)
}

func (f followBook) Placing(v follow.Bet, at time.Time, by []string, accepted float64) {
	f.b.placing(instanceOf(v), at, by, accepted)
}

func (f followBook) ReadRecords(v follow.Bet, recs []apiclient.BetRecord, at time.Time) bool {
	return f.b.readRecords(instanceOf(v), recs, at)
}

func (f followBook) PlacementUnread(v follow.Bet, err string) bool {
	return f.b.placementUnread(instanceOf(v), err)
}

func (f followBook) ReleaseOutcome(v follow.Bet, force bool) bool {
	return f.b.releaseOutcome(instanceOf(v), force)
}
