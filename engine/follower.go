package engine

import (
	"time"

	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// follower follows the plan's created bets to their outcome: it reads the
// service's notification list, label look-ups and bet records on the
// run's clock and applies what they show through the book. It is the one
// place that keeps the polling rule (every page that holds an open bet is
// read once a tick).
type follower struct {
	plan     *plan.Plan
	opts     *Options
	svc      Backend
	clock    Clock
	book     *book
	res      *resolver      // the sessions that placed a bet (botSessions); what a bet needs to be ready (wouldCreate)
	journals *journalKeeper // opens the plan's journal for a status's write of placement times
	hold     *hold          // the plan's journal
	halt     *halt          // whether the run still creates
	host     followHost

	// read reads the service; its index is where the plan's notifications
	// stand in the service's list.
	read        follow.Reader
	want        []follow.Open // a poll's open bets, kept from poll to poll
	wantRecords []follow.Want // the bets whose records a read asks for, kept likewise
	tickAt      time.Time     // when the run's current tick began
	lastLook    bool          // the poll reads every open bet, due or not (pollLast)
	// adoptedAt is when the last list page adopted from another plan of
	// the run was read (adoptListPages).
	adoptedAt time.Time
}

// followHost is what following asks of the command it is part of: its
// log and race times, the plan's key and the journal's keeping of
// outcomes.
type followHost interface {
	logf(format string, args ...any)
	raceTime(venue string, t time.Time) string
	planKey() state.PlanKey
	keepOutcomes()
}

func newFollower(p *plan.Plan, opts *Options, svc Backend, clock Clock, b *book, res *resolver, hd *hold, ht *halt, host followHost) *follower {
	return &follower{plan: p, opts: opts, svc: svc, clock: clock, book: b, res: res, hold: hd, halt: ht, host: host,
		read: follow.Reader{Svc: svc, Logf: host.logf, Ends: tokenRefused}}
}

func (f *follower) logf(format string, args ...any) { f.host.logf(format, args...) }

func (f *follower) raceTime(venue string, t time.Time) string { return f.host.raceTime(venue, t) }

// noteCreated notes a notification the run just created: the head of the
// service's list.
func (f *follower) noteCreated(id int64) { f.read.Index.Created(id) }
