package engine

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// What following (engine/follow) asks of the command it is part of: its
// log and race times, the sessions, what deciding would create, and the
// journal's keeping of outcomes and placement times.

// newFollower wires the follower of a command's plan to the book and to
// host; host.journals is set once the journal keeper, which reads list
// pages through the follower, is made.
func newFollower(p *plan.Plan, opts *Options, svc Backend, clock Clock, b *betBook, host *followHost) *follow.Follower {
	prefix := LabelPrefix(p.Name)
	return follow.New(follow.Config{Svc: svc, Clock: clock, Book: followBook{b}, Host: host,
		Interval: p.Poll.Interval, NoWait: opts.NoWait, Ends: tokenRefused,
		OfPlan: func(label string) bool {
			return strings.HasPrefix(label, prefix) && betIDFromLabel(p.Name, label) != ""
		}})
}

// followHost is the command's side of following (follow.Host).
type followHost struct {
	opts     *Options
	svc      Backend
	book     *betBook
	res      *resolver      // the sessions that placed a bet; what a bet needs to be ready
	journals *journalKeeper // opens the plan's journal for a status's write of placement times
	hold     *hold          // the plan's journal
	halt     *halt          // whether the run still creates
	key      state.PlanKey  // the plan's, for the lock a status takes
	logf     func(format string, args ...any)
	raceTime func(venue string, t time.Time) string
	// keepOutcomes keeps the outcomes the command saw in a journal it
	// holds, with the placement times, and outcomesToKeep says whether
	// there are any (outcome_keep.go).
	keepOutcomes   func(j *Journal)
	outcomesToKeep func(j *Journal) []*instance
	// details are the detail_read entries a status could not write when
	// it read them, by label (detail.go).
	details map[string]journalEntry
}

func (h *followHost) Logf(format string, args ...any) { h.logf(format, args...) }

func (h *followHost) RaceTime(venue string, t time.Time) string { return h.raceTime(venue, t) }

func (h *followHost) Sessions() []apiclient.Session { return h.res.sessions }

// WouldCreate reports, without side effects, whether decide would look
// the bet's label up to create it now.
func (h *followHost) WouldCreate(v follow.Bet, now time.Time) bool {
	in := instanceOf(v)
	if in.status != StatusWaiting || h.halt.why != "" || !in.resolved() || !now.Before(in.start()) {
		return false
	}
	if s := h.hold.journal.State(in.label); s != nil && !s.untried() {
		return false // created, pending or known: decide handles it on its own
	}
	if notInField(in) != "" {
		return false // skipped, never created
	}
	if only := h.opts.OnlyLabels; only != nil {
		_, ok := only[in.label]
		return ok
	}
	ready, err := in.bet.Ready(h.res.instanceEnv(in, now))
	return err == nil && ready
}

// Told reports whether the journal keeps that the bet's outcome was
// logged (a resulted entry): a later cron run that reads the same outcome
// again does not repeat it. Without a journal nothing is kept.
func (h *followHost) Told(label string) bool {
	if h.hold.journal == nil {
		return false
	}
	s := h.hold.journal.State(label)
	return s != nil && s.Resulted
}

// KeepTold keeps in the journal that the bet's outcome was logged.
func (h *followHost) KeepTold(label string) {
	if h.hold.journal != nil && h.hold.journal.writable() {
		_ = h.hold.journal.Record(journalEntry{Op: opResulted, Label: label}) // a journal out of reach stops the run on its own
	}
}

// SharedPages are the list pages other plans of the run read since
// (accountPlan.listPagesSince); none for a plan running alone.
func (h *followHost) SharedPages(since time.Time) []follow.SharedPage {
	ap, ok := h.svc.(*accountPlan)
	if !ok {
		return nil
	}
	return ap.listPagesSince(since)
}

func (h *followHost) SharedBy() int { return sharedBy(h.svc) }

// Placement times are kept in the journal, once: a bet's placed_at is
// when its sessions placed it (the bet records' submit time), or, while
// the records cannot be read, the first poll that saw it placed. Every
// later run and status shows the kept time, not its own now; a stand-in
// gives way once, to the records' time, and that one never moves.

// statusCommand names a status in the lock it takes to keep placement
// times, and statusHold bounds how long a run waits for it to finish.
const (
	statusCommand = "betplan status"
	statusHold    = 5 * time.Second
)

// KeepPlacements records in the journal each placement time it does not
// keep yet, and each outcome. A run (or cancel) holds the journal; a
// status, which reads it without the lock, takes the lock for the write
// when no run holds it, and otherwise leaves the write to the run, whose
// polls see the same bets. So a bet that ended while no run followed it
// (a run refused before its first poll, or one that did not wait) has
// its outcome kept by the status that showed it: history, which reads
// the journal alone, shows what status showed. A failed write costs only
// the time's (or outcome's) permanence: the run goes on.
func (h *followHost) KeepPlacements(ctx context.Context) {
	j := h.hold.journal
	if j == nil || len(h.book.placedEntries(j)) == 0 && len(h.outcomesToKeep(j)) == 0 && len(h.details) == 0 {
		return
	}
	if j.writable() {
		h.keepOutcomes(j)
		h.recordPlacements(j)
		return
	}
	if j.Fresh() || h.opts.Store == nil {
		return // nothing of this plan's journal to add to
	}
	j.mu.Lock()
	legacy := j.service == ""
	j.mu.Unlock()
	if legacy {
		return // a journal kept before journals were per service: a run moves it first
	}
	host, _ := os.Hostname()
	lease, err := h.opts.Store.Lock(ctx, state.LockRequest{
		PlanKey: h.key,
		Owner:   state.LockOwner{PID: os.Getpid(), Host: host, PlanFile: h.opts.PlanFile, Command: statusCommand, Since: time.Now().UTC()},
	})
	if err != nil {
		var locked *state.LockedError
		if !errors.As(err, &locked) {
			h.logf("the placement times could not be kept in the journal: %v", err)
		}
		return
	}
	defer lease.Release()
	held, err := h.journals.openJournal(ctx, lease)
	if err != nil {
		h.logf("the placement times could not be kept in the journal: %v", err)
		return
	}
	if held.Lineage() != j.Lineage() {
		return // the journal changed under the status: the next one keeps them
	}
	h.keepOutcomes(held)
	h.recordPlacements(held)
}

func (h *followHost) recordPlacements(j *Journal) {
	for _, e := range h.book.placedEntries(j) {
		if err := j.Record(e); err != nil {
			h.logf("the placement time of %s could not be kept in the journal: %v", e.Label, err)
			return
		}
	}
	for label, e := range h.details {
		if s := j.State(label); s != nil && s.Detail != nil && s.Detail.Bots == e.Detail.Bots {
			delete(h.details, label) // kept by a run meanwhile
			continue
		}
		if err := j.Record(e); err != nil {
			h.logf("what was read of why %s was not placed could not be kept in the journal: %v", e.Label, err)
			return
		}
		delete(h.details, label)
	}
}
