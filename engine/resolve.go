package engine

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// sessionsMaxAge is how old the view of the sessions may be when the
// running-bot guard is checked before a create.
const sessionsMaxAge = time.Minute

// resolver turns the plan's bets into instances on the book: it reads the
// races, the sessions and the sports events, expands for_each_race and
// matches each bet to what the service lists. Besides the book it reads
// the journal, the sums of money and whether the lock still holds.
type resolver struct {
	plan  *plan.Plan
	svc   Backend
	clock Clock
	book  *betBook
	hold  *hold  // the journal
	halt  *halt  // whether the lock still holds
	money *money // the sums and the bets as expressions read them

	races  []apiclient.Race
	sports eventsState // the events of the plan's event bets (sports.go)
	sessionsRead
	lastRefresh time.Time
	expanded    bool // for_each_race was expanded
	// looked is when this run last journalled that it saw each bet on a
	// named race waiting before its race (looked entries, by label).
	looked map[string]time.Time
	// missedNow are the labels this run found missed and journalled so.
	missedNow map[string]bool
	// ownTime is a time of the command's own, as its log shows it;
	// raceTime a time of a race's day at a venue.
	ownTime  func(time.Time) string
	raceTime func(venue string, t time.Time) string
	logf     func(format string, args ...any)
	// served says the run is a served one (serve.go): races listed after
	// it began are its bets too, looking poll.timeout ahead at each refresh.
	served bool
}

// refresh reads the upcoming races and the sessions: one call each.
func (r *resolver) refresh(ctx context.Context) error {
	races, err := r.svc.ListRaces(ctx)
	if err != nil {
		return fmt.Errorf("list races: %w", err)
	}
	if err := r.refreshSessions(ctx); err != nil {
		return err
	}
	if err := r.refreshEvents(ctx); err != nil {
		return err
	}
	r.races, r.lastRefresh = races, r.clock.Now()
	return nil
}

// refreshSessions reads the bookmaker sessions: one call.
func (r *resolver) refreshSessions(ctx context.Context) error {
	sessions, err := r.svc.ListSessions(ctx)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	r.sessions, r.sessionsAt = sessions, r.clock.Now()
	return nil
}

// raceInfo describes a race entry as the service names it.
func raceInfo(rc *apiclient.Race) RaceInfo {
	return RaceInfo{Venue: rc.Venue(), Code: rc.Code, EventNumber: int(rc.EventNumber), Start: rc.StartTime.Time}
}

// venueMatches compares a plan's venue with every name the entry carries,
// ignoring case and spacing.
func venueMatches(want string, rc *apiclient.Race) bool {
	w := plan.FoldVenue(want)
	for _, n := range rc.Name {
		if plan.FoldVenue(n) == w {
			return true
		}
	}
	return false
}

// findRace returns the earliest upcoming entry matching ref, or nil with the
// nearest candidates named.
func findRace(races []apiclient.Race, ref plan.RaceRef) (*apiclient.Race, string) {
	var best *apiclient.Race
	for i := range races {
		rc := &races[i]
		if !strings.EqualFold(rc.Code, ref.Code) || int(rc.EventNumber) != ref.EventNumber || !venueMatches(ref.Venue, rc) {
			continue
		}
		if best == nil || rc.StartTime.Before(best.StartTime.Time) {
			best = rc
		}
	}
	if best != nil {
		return best, ""
	}
	return nil, nearestRaces(races, ref)
}

// nearestRaces explains an unresolved race: same venue other numbers, or
// venues spelt alike.
func nearestRaces(races []apiclient.Race, ref plan.RaceRef) string {
	var sameVenue []string
	venues := map[string]bool{}
	for i := range races {
		rc := &races[i]
		for _, n := range rc.Name {
			venues[n+" ("+rc.Code+")"] = true
		}
		if venueMatches(ref.Venue, rc) && strings.EqualFold(rc.Code, ref.Code) {
			sameVenue = append(sameVenue, "R"+strconv.Itoa(int(rc.EventNumber)))
		}
	}
	what := fmt.Sprintf("no upcoming race %s %s R%d", ref.Venue, ref.Code, ref.EventNumber)
	if len(sameVenue) > 0 {
		sort.Strings(sameVenue)
		return fmt.Sprintf("%s; upcoming at %s: %s", what, ref.Venue, strings.Join(uniq(sameVenue), ", "))
	}
	var names []string
	for v := range venues {
		names = append(names, v)
	}
	sort.Strings(names)
	if s := plan.Suggest(ref.Venue+" ("+ref.Code+")", names); s != "" {
		return fmt.Sprintf("%s; did you mean %s?", what, s)
	}
	return what + " (it may have run already, or not be listed yet)"
}

func uniq(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// env builds the expression environment for a bet on a race at now.
func (r *resolver) env(rc *apiclient.Race, now time.Time) *plan.Env {
	e := &plan.Env{Now: now, Vars: r.plan.Vars, Sessions: r.sessionEnv()}
	if rc != nil {
		start := rc.StartTime.Time
		e.Race = plan.RaceEnv{
			Venue:          rc.Venue(),
			Code:           rc.Code,
			EventNumber:    int(rc.EventNumber),
			Start:          start,
			MinutesToStart: start.Sub(now).Minutes(),
			Country:        rc.Country,
			Runners:        rc.RunnerNumbers(),
			RunnerNames:    rc.RunnerNameList(),
		}
		r.outcomeEnv(e, raceInfo(rc), now)
	}
	return e
}

// outcomeEnv fills in what the plan's bets did (plan, bets) as a bet on
// info reads it: only plans that read them pay for them, both walk every
// bet.
func (r *resolver) outcomeEnv(e *plan.Env, info RaceInfo, now time.Time) {
	if r.plan.ReadsOutcomes {
		e.Plan = r.money.usageFor(info).Env()
		e.Bets = r.money.betEnvs(info, now)
	}
}

func (r *resolver) sessionEnv() []plan.SessionEnv {
	out := make([]plan.SessionEnv, 0, len(r.sessions))
	for _, s := range r.sessions {
		out = append(out, plan.SessionEnv{
			ID:           strconv.FormatInt(int64(s.ID), 10),
			Bookie:       string(s.Bookie),
			DisplayName:  s.DisplayName,
			Balance:      float64(s.Balance),
			BonusBalance: float64(s.BonusBalance),
			BotRunning:   bool(s.BotRunning),
			LoginStatus:  s.LoginStatus,
		})
	}
	return out
}

// expand builds the plan's instances against the current races: one per
// bet with a fixed race, one per matching race for for_each_race bets.
// Instances already known (by label) are kept; labels the journal knows
// that no bet produces any more (a for_each_race race that already ran)
// are followed too.
func (r *resolver) expand() error {
	defer func() {
		r.book.outdated() // instances found, moved or dropped: the limits' sums are rebuilt
		r.book.nameInstances()
	}()
	now := r.clock.Now()
	first := !r.expanded
	r.expanded = true
	for _, b := range r.plan.Bets {
		if b.Event != nil {
			r.expandEvent(b)
			continue
		}
		if b.ForEachRace != nil {
			if !first {
				// A run follows the races that matched when it started;
				// races listed later belong to the next run (cron), or,
				// served, to this one.
				r.refreshRaces(b)
				if !r.served {
					continue
				}
			}
			err := r.eachMatchingRace("bet "+b.ID, b.Matches, now, func(rc *apiclient.Race) {
				r.addInstance(b, rc, "")
			})
			if err != nil {
				return err
			}
			continue
		}
		if !first && r.book.hasRace(b) {
			// A bet on a named race is made on the race it resolved to
			// when the run first found it; once that race has run, the
			// same race of a later meeting belongs to a later run, or to
			// a served one once the meeting's own day has turned
			// (madeToday, below).
			r.refreshRaces(b)
			if !r.served {
				continue
			}
		}
		rc, why := findRace(r.races, *b.Race)
		if rc == nil {
			if r.journalHasBet(b.ID) || (r.served && r.book.hasRace(b)) {
				continue // its race ran already; the journal's instance follows it
			}
			info := RaceInfo{Venue: b.Race.Venue, Code: b.Race.Code, EventNumber: b.Race.EventNumber}
			key := "unresolved:" + b.ID
			if _, ok := r.book.byLabel[key]; !ok {
				r.book.add(key, newUnresolved(b, info, why))
			}
			continue
		}
		if r.madeToday(b, rc.StartTime.Time, now) {
			continue // today's meeting has it; the same race tomorrow is tomorrow's run
		}
		if first {
			r.sayLaterMeeting(b, rc, now)
		}
		// A race found on a later refresh replaces its unresolved entry.
		if old, ok := r.book.byLabel["unresolved:"+b.ID]; ok {
			r.book.remove(old, "unresolved:"+b.ID)
		}
		r.addInstance(b, rc, "")
	}
	return nil
}

// eachMatchingRace calls add, in order, for each race of the run that a
// for_each_race expression matches now (what names its bet or tip in an
// error). A race after the run is not offered.
func (r *resolver) eachMatchingRace(what string, matches func(*plan.Env) (bool, error), now time.Time, add func(rc *apiclient.Race)) error {
	for i := range r.races {
		rc := &r.races[i]
		if r.afterRun(rc, now) {
			continue
		}
		ok, err := matches(r.env(rc, now))
		if err != nil {
			return fmt.Errorf("%s: for_each_race on %s R%d: %w", what, rc.Venue(), rc.EventNumber, err)
		}
		if ok {
			add(rc)
		}
	}
	return nil
}

// afterRun reports whether rc starts after this run's poll.timeout has
// run out: a later meeting listed already (the service lists upcoming
// races of the coming days too) belongs to a later run, which a plan run
// from cron will be. A served run, which has no end, looks that far ahead
// at each refresh, as a status does.
func (r *resolver) afterRun(rc *apiclient.Race, now time.Time) bool {
	t := r.plan.Poll.Timeout
	return t > 0 && rc.StartTime.After(now.Add(t))
}

// refreshRaces points b's instances at the latest entries of their races
// (a start time can move).
func (r *resolver) refreshRaces(b *plan.Bet) {
	for _, in := range r.book.insts {
		if in.bet != b || in.race == nil || in.status != StatusWaiting || in.notifID != 0 {
			continue
		}
		for i := range r.races {
			rc := &r.races[i]
			if sameRace(in.race, rc) {
				in.race, in.info = rc, raceInfo(rc)
				r.book.outdated() // its start may have moved
				break
			}
		}
	}
}

// sameRace reports whether two entries are the one race of one meeting:
// same code, number and venue, and the same meeting date (the same race
// of the next day's meeting is another race).
func sameRace(a, b *apiclient.Race) bool {
	return strings.EqualFold(a.Code, b.Code) && a.EventNumber == b.EventNumber &&
		venueMatches(a.Venue(), b) && meetingDate(a.StartTime.Time) == meetingDate(b.StartTime.Time)
}

// madeToday reports whether b, on a named race (or event), already has
// its bet of today's meeting (today in the offset of start, the race's
// next entry's), from this run, the journal or the service, while that
// entry is a later meeting's: a re-run the same day then follows today's
// bet instead of reaching for tomorrow's, and a run from cron bets the
// race once a day.
func (r *resolver) madeToday(b *plan.Bet, start, now time.Time) bool {
	today := now.In(start.Location()).Format("2006-01-02")
	if meetingDate(start) == today {
		return false
	}
	for _, in := range r.book.insts {
		if in.bet == b && meetingDate(in.info.Start) == today {
			return true
		}
	}
	if r.hold.journal == nil {
		return false
	}
	for _, l := range r.hold.journal.Labels() {
		if s := r.hold.journal.State(l); s != nil && s.BetID == b.ID && meetingDate(s.Race.Start) == today {
			return true
		}
	}
	return false
}

// decidedToday reports whether a decided label's race is of today's
// meeting (today in the race's own zone): a decision of an earlier day is
// history, not part of this run.
func decidedToday(s *labelState, now time.Time) bool {
	return !s.Race.Start.IsZero() && meetingDate(s.Race.Start) == now.In(s.Race.Start.Location()).Format("2006-01-02")
}

// keepDecision journals a bet on a named race that this run decided
// without a create (skipped because its race started or its runner is
// not in the field, or failed before any create): the meeting day's race
// is decided, and a run resumed after it started must not take the same
// race of the next day's meeting for it (madeToday reads the entry).
func (r *resolver) keepDecision(in *instance) error {
	if r.hold.journal == nil || in.bet.Race == nil || in.race == nil || !in.final || in.notifID != 0 ||
		(in.status != StatusSkipped && in.status != StatusFailed) || r.halt.lockLost() {
		return nil
	}
	if s := r.hold.journal.State(in.label); s != nil && !s.lookedOnly() {
		return nil // created, tried or decided already: the journal knows the day's race
	}
	info := in.info
	return r.hold.journal.Record(journalEntry{Op: opDecided, Label: in.label, BetID: in.bet.ID, Race: &info, Status: string(in.status), Error: in.reason,
		Code: string(in.why.Code), Limit: in.why.Limit, Scope: string(in.why.Scope), Period: in.why.Period})
}

func (r *resolver) journalHasBet(id string) bool {
	if r.hold.journal == nil {
		return false
	}
	for _, l := range r.hold.journal.Labels() {
		if s := r.hold.journal.State(l); s != nil && s.BetID == id {
			return true
		}
	}
	return false
}

// addInstance adds (or refreshes the race of) the instance of b on rc.
func (r *resolver) addInstance(b *plan.Bet, rc *apiclient.Race, label string) *instance {
	return r.track(b, raceInfo(rc), label, func(in *instance) { in.race = rc })
}

// track adds the instance of b on the race or event info describes (label
// "" is Label's), or points a waiting one at info's latest listing; attach
// sets what it is on.
func (r *resolver) track(b *plan.Bet, info RaceInfo, label string, attach func(*instance)) *instance {
	if label == "" {
		label = Label(r.plan.Name, b.ID, info)
	}
	if in, ok := r.book.byLabel[label]; ok {
		// Once created (or final), a bet stays on the race it was made for.
		if in.status == StatusWaiting && in.notifID == 0 {
			attach(in)
			in.info = info
			r.book.outdated() // its start may have moved
		}
		return in
	}
	in := newWaiting(b, info, label, staticAmount(b))
	attach(in)
	r.applyJournal(in)
	r.book.add(label, in)
	return in
}

// applyJournal brings what the journal knows of the label into in.
func (r *resolver) applyJournal(in *instance) {
	if r.hold.journal == nil {
		return
	}
	if s := r.hold.journal.State(in.label); s != nil {
		r.book.restore(in, s)
	}
}

// followJournal adds instances for labels the journal knows but the plan
// no longer produces from upcoming races (their race ran or left the list).
func (r *resolver) followJournal() {
	r.book.outdated()
	if r.hold.journal == nil {
		return
	}
	bets := map[string]*plan.Bet{}
	for _, b := range r.plan.Bets {
		bets[b.ID] = b
	}
	for _, l := range r.hold.journal.Labels() {
		if _, ok := r.book.byLabel[l]; ok {
			continue
		}
		s := r.hold.journal.State(l)
		b := bets[s.BetID]
		decided := s.decidedOnly() && decidedToday(s, r.clock.Now())
		missed := b != nil && b.Race != nil && s.lookedOnly() && !r.clock.Now().Before(s.Race.Start)
		if b == nil || (!s.created() && !s.Pending && !decided && !missed) {
			continue
		}
		in := newWaiting(b, s.Race, l, 0)
		r.applyJournal(in)
		switch {
		case missed:
			// A run looked at it before its window opened, and its race
			// has started with no create: no run was there while it was
			// open.
			r.missWindow(in, s.Looked)
		case decided:
			// Its race has left the list: the day's decision stands.
			r.book.end(in, s.Decided, s.decidedWhy())
		}
		r.book.add(l, in)
	}
	r.book.nameInstances()
}

// Missed windows. A bet on a named race waits for its window (its when)
// to open; a run that sees it waiting before its race keeps that it
// looked (a looked entry). A later run that finds the race started, with
// no create sent for it and no run of its own there before the start,
// knows the window passed while nothing was running (the machine asleep,
// cron late): the bet is missed, said once (a missed entry, an alert,
// exit 1), and it stays on that day's race (madeToday reads the entries)
// rather than moving to the next meeting's.

// keepLook journals that this run saw in waiting before its race, at
// its first look (end false), or again at its end (end true) when its
// first look is a minute old or more. A status, or a run that lost its
// lock, keeps nothing.
func (r *resolver) keepLook(in *instance, now time.Time, end bool) error {
	j := r.hold.journal
	if j == nil || !j.writable() || r.halt.lockLost() || in.bet.Race == nil || in.race == nil ||
		in.status != StatusWaiting || in.notifID != 0 || !now.Before(in.start()) {
		return nil
	}
	if s := j.State(in.label); s != nil && !s.lookedOnly() {
		return nil // created, tried or decided: no window to miss
	} else if s != nil && now.Sub(s.Looked) >= 0 && now.Sub(s.Looked) < lookAgainAfter {
		// A cron run every few minutes would journal every waiting bet
		// every few minutes: a look less than lookAgainAfter old says
		// what a new one would.
		return nil
	}
	at, seen := r.looked[in.label]
	if seen && (!end || now.Sub(at) < time.Minute) {
		return nil
	}
	if r.looked == nil {
		r.looked = map[string]time.Time{}
	}
	r.looked[in.label] = now
	info := in.info
	// Its time is the run's clock (the service's), as the race's start
	// it is weighed against.
	return j.Record(journalEntry{Op: opLooked, Label: in.label, BetID: in.bet.ID, Race: &info, Time: now.UTC()})
}

// lookAgainAfter is how old a journalled look of a waiting bet is before
// a run journals its own: the last look a missed window names is at most
// that much earlier than the last run that saw the bet waiting.
const lookAgainAfter = 30 * time.Minute

// lookedEarlier reports whether an earlier run looked at in waiting and
// nothing else was tried or decided for it, while this run never saw it
// before its race: a race found started is then a missed window.
func (r *resolver) lookedEarlier(in *instance) (time.Time, bool) {
	if r.hold.journal == nil || in.bet.Race == nil {
		return time.Time{}, false
	}
	s := r.hold.journal.State(in.label)
	if s == nil || !s.lookedOnly() {
		return time.Time{}, false
	}
	if _, seen := r.looked[in.label]; seen {
		return time.Time{}, false
	}
	return s.Looked, true
}

// missWindow ends in, whose window passed between runs (an earlier run
// looked at it at lastLooked), as missed: skipped, reason missed. The
// run that finds it so journals it (once) and fails for it; a status
// only says it.
func (r *resolver) missWindow(in *instance, lastLooked time.Time) {
	closed := in.info.Start
	why := reason.Said(reason.Missed, fmt.Sprintf("missed: its window closed at %s, when its race started, and no run was there while it was open; betplan last looked at %s, before it opened: not created",
		r.raceTimeOf(in.info.Venue, closed), r.ownTimeOf(lastLooked)))
	j := r.hold.journal
	if j == nil || !j.writable() || r.halt.lockLost() {
		r.book.end(in, StatusSkipped, why)
		return
	}
	if s := j.State(in.label); s != nil && s.Missed {
		r.book.end(in, StatusSkipped, s.decidedWhy())
		return
	}
	info := in.info
	c, l := closed.UTC(), lastLooked.UTC()
	if err := j.Record(journalEntry{Op: opMissed, Label: in.label, BetID: in.bet.ID, Race: &info, Status: string(StatusSkipped),
		Code: string(reason.Missed), Error: why.Text, WindowClosed: &c, LastLooked: &l}); err != nil {
		r.book.end(in, StatusSkipped, why) // said; the next run journals it
		return
	}
	if r.missedNow == nil {
		r.missedNow = map[string]bool{}
	}
	r.missedNow[in.label] = true
	r.book.end(in, StatusSkipped, why)
	if r.logf != nil {
		r.logf("missed %s: %s", in.name(), why.Text)
	}
}

// sayLaterMeeting says, once a run, that b is on the next meeting's race
// rc because nothing in the journal has it on today's (a plan's first
// run in the evening, a day no run looked at it before its race).
func (r *resolver) sayLaterMeeting(b *plan.Bet, rc *apiclient.Race, now time.Time) {
	start := rc.StartTime.Time
	if r.logf == nil || meetingDate(start) == now.In(start.Location()).Format("2006-01-02") {
		return
	}
	first := ""
	if r.hold.journal == nil || r.hold.journal.Fresh() {
		first = "this plan's first run: "
	}
	r.logf("%sbet %s is on the next meeting's %s R%d, %s: no run of this plan looked at today's before it ran",
		first, b.ID, rc.Venue(), int(rc.EventNumber), r.raceTimeOf(rc.Venue(), start))
}

func (r *resolver) raceTimeOf(venue string, t time.Time) string {
	if r.raceTime != nil {
		return r.raceTime(venue, t)
	}
	return t.UTC().Format(time.RFC3339)
}

func (r *resolver) ownTimeOf(t time.Time) string {
	if r.ownTime != nil {
		return r.ownTime(t)
	}
	return t.UTC().Format(time.RFC3339)
}

// staticAmount is a bet's stake or target profit when it is known
// offline: a number, or an expression of vars and literals (0 for one
// that reads the run, known only when evaluated).
func staticAmount(b *plan.Bet) float64 {
	a, _ := b.StaticAmount()
	return a
}
