package engine

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// The ledger is what the plan committed, bet by bet, as the limits and the
// plan's expressions count it: from the journal (every run's creates),
// what the service showed of each (this run's polls, or the scan that
// rebuilt a lost journal), and, in a preview, what it would create.

// PeriodTitle says what the total limits count within.
func (l LimitsSummary) PeriodTitle() string {
	switch l.Period {
	case plan.PeriodDay:
		return "per day (the race's meeting day, in its own time zone)"
	case plan.PeriodWeek:
		return "per week (Monday to Sunday of meeting days)"
	}
	return "over the whole plan (all time)"
}

// money is the plan's stakes and what they add up to: the one place the
// limits, the reports and the alerts take their sums from.
type money struct {
	plan     *plan.Plan
	opts     *Options
	clock    Clock
	svc      Backend
	key      state.PlanKey
	book     *betBook
	journals *journalKeeper
	hold     *hold         // the journal
	sessions *sessionsRead // the sessions it last read, and when
	// checkpoint marks a point of a create for the tests that crash
	// there (Options.Checkpoint).
	checkpoint func(point string)
	// known holds notifications of the plan read from the service by
	// label prefix (a preview's scan, a lost journal's recovery), so the
	// ledger knows their outcomes before any poll.
	known map[string]*apiclient.Notification
	// planned are a preview's creates, counted by the limits like
	// committed ones.
	planned []book.Bet
	// ledger keeps the limits' sums between creates, built again after
	// each change of the book's version (ledgerGen); ledgerSerial is the
	// journal's last entry it counted, ledgerPlanned the planned creates.
	ledger                   *book.Ledger
	ledgerGen, ledgerPlanned int
	ledgerSerial             int64
	exposures                map[exposureKey]exposure
	// bets is what the plan's bets did as expressions read them, kept
	// between decisions while the book stands still.
	bets betsView
	// accountOthers are the other plans' bets a preview holds its
	// creates to, with the account's limits (account.go).
	accountOthers []book.Bet
	// accountSeen is what the service showed of the other plans' bets,
	// by label (refreshAccountOutcomes).
	accountSeen map[string]*seenNotification
}

// counted lists what the plan committed, and what a preview plans, as the
// book counts each (book.Count), in journal order. A bet cancelled or
// refused with nothing placed puts nothing at risk and is left out.
func (r *money) counted() []book.Bet {
	now := r.clock.Now()
	var out []book.Bet
	seen := map[string]bool{}
	if r.hold.journal != nil {
		for _, e := range r.hold.journal.states() {
			seen[e.label] = true
			if b, ok := r.journalBet(e.label, &e.labelState, now); ok {
				out = append(out, b)
			}
		}
	}
	for _, n := range r.known {
		if seen[n.Label] {
			continue
		}
		if b, ok := r.knownBet(n, now); ok {
			out = append(out, b)
		}
	}
	return append(out, r.planned...)
}

// journalBet is what the journal's label l puts at risk now, with what
// this command knows of it; false when it puts nothing at risk.
func (r *money) journalBet(l string, s *labelState, now time.Time) (book.Bet, bool) {
	f, ok := journalFacts(r.plan.Name, l, s)
	if !ok {
		return book.Bet{}, false
	}
	return r.count(f, now)
}

// knownBet is what a notification of the plan found on the service, and
// not in the journal, puts at risk now.
func (r *money) knownBet(n *apiclient.Notification, now time.Time) (book.Bet, bool) {
	f := book.Facts{Plan: r.plan.Name, Label: n.Label, BetID: betIDFromLabel(r.plan.Name, n.Label), Race: bookRace(notificationRace(n)),
		Requested: notificationAmount(n, plan.AmountFieldFor(n.Type)), Estimate: r.notificationExposure(n)}
	return r.count(f, now)
}

// count adds to f what this command knows of the bet (its instance, and
// the notification it or a scan read) and counts it.
func (r *money) count(f book.Facts, now time.Time) (book.Bet, bool) {
	in := r.book.byLabel[f.Label]
	var n *apiclient.Notification
	if in != nil {
		n = in.notif
	}
	if n == nil {
		n = r.known[f.Label]
	}
	instanceFacts(&f, in, n)
	return book.Count(f, now)
}

// refusedNames are the sessions of refusals ("Ladbrokes 2: reason"),
// without their reasons.
func refusedNames(refusals []string) string {
	names := make([]string, len(refusals))
	for i, r := range refusals {
		names[i], _, _ = strings.Cut(r, ": ")
	}
	return strings.Join(names, ", ")
}

// notificationExposure is what a notification found on the service puts
// at risk: what its sessions accepted once they answered, else what its
// terms let the sessions of now place.
func (r *money) notificationExposure(n *apiclient.Notification) exposure {
	if n.TotalAccepted > 0 || n.Resulted() {
		if b, ok := book.Count(book.Facts{Seen: seenOf(n)}, time.Time{}); ok {
			return b.Risk()
		}
		return exposure{Basis: "accepted by the sessions"}
	}
	t := notificationTerms(n)
	return exposureOf(r.sessions.sessions, t, notificationAmount(n, plan.AmountFieldFor(n.Type)))
}

// usageFor is what the plan's bets add up to in the period of race, and
// on race itself, from the ledger, which keeps the sums between creates.
func (r *money) usageFor(race RaceInfo) usage {
	l := r.ledgerSums()
	u := l.Usage(bookRace(race))
	if verifyLedger && l.Len() < 300 { // past that the check itself would dominate a test
		if want := r.sum(r.counted(), race); !sameUsage(u, want) {
			panic(fmt.Sprintf("engine: the ledger's running sums %+v differ from the bets' %+v", u, want))
		}
	}
	return u
}

// verifyLedger makes every use of the running sums check them against
// the bets added up afresh; the tests turn it on.
var verifyLedger = false

// sameUsage reports whether two sums agree to the cent.
func sameUsage(a, b usage) bool {
	a.ByPlan, b.ByPlan = nil, nil
	return reflect.DeepEqual(a, b)
}

// sum adds up bets in the period of race, and on race itself
// (book.Sum): the definition the ledger's running sums keep to.
func (r *money) sum(bets []book.Bet, race RaceInfo) usage {
	return book.Sum(bets, r.plan.Limits.Period, bookRace(race), false)
}

// periodUsages are the usages of the periods the result's bets are in
// (the races this run considered), oldest first; with none, the latest
// period the plan has bets in.
func (r *money) periodUsages() []PeriodUsage {
	bets := r.counted()
	keys := map[string]RaceInfo{}
	for _, in := range r.book.insts {
		if !in.resolved() || in.info.Start.IsZero() {
			continue
		}
		k := periodKey(r.plan.Limits.Period, in.info.Start)
		if _, ok := keys[k]; !ok {
			keys[k] = RaceInfo{Start: in.info.Start}
		}
	}
	if len(keys) == 0 {
		var latest RaceInfo
		for _, b := range bets {
			if start := b.Race().Start; start.After(latest.Start) {
				latest = RaceInfo{Start: start}
			}
		}
		keys[periodKey(r.plan.Limits.Period, latest.Start)] = latest
	}
	out := make([]PeriodUsage, 0, len(keys))
	for k, race := range keys {
		u := r.sum(bets, race)
		out = append(out, PeriodUsage{Period: k, Words: periodWords(r.plan.Limits.Period, k), PlanEnv: u.Env(),
			Planned: u.Planned, PlannedBets: u.PlannedBets})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Period < out[j].Period })
	return out
}

// betEnvs are the plan's bets as expressions read them (bets.ID) at now,
// in the period of race: a bet on one race is its latest instance, a
// for_each_race bet the list of its instances in the period. Built once
// while the book stands still (betsview.go).
func (r *money) betEnvs(race RaceInfo, now time.Time) map[string]any {
	key := periodKey(r.plan.Limits.Period, race.Start)
	bets := r.bets.at(r.book.edits, key, now, r.betEnvsIn)
	if verifyLedger && len(r.book.insts) < 100 { // past that the check would make a tick square again
		fresh := &periodBets{bets: r.betEnvsIn(key)}
		fresh.retime(now)
		if !reflect.DeepEqual(bets, fresh.bets) {
			panic(fmt.Sprintf("engine: the bets' view kept since the book's edit %d differs from one built afresh: a change to what betEnv reads did not move the book's edits", r.book.edits))
		}
	}
	return bets
}

// betEnvsIn are betEnvs in the period key, minutes_to_start unset: a
// *plan.BetEnv for a bet on one race, a []plan.BetEnv for a
// for_each_race bet.
func (r *money) betEnvsIn(key string) map[string]any {
	out := make(map[string]any, len(r.plan.Bets))
	latest := map[*plan.Bet]*instance{}
	lists := map[*plan.Bet][]plan.BetEnv{}
	for _, in := range r.book.byStart() {
		if in.bet.ForEachRace != nil {
			if key == "" || in.info.Start.IsZero() || periodKey(r.plan.Limits.Period, in.info.Start) == key {
				lists[in.bet] = append(lists[in.bet], r.betEnv(in))
			}
			continue
		}
		latest[in.bet] = in // byStart: the last one is the latest
	}
	for _, b := range r.plan.Bets {
		if b.ForEachRace != nil {
			l := lists[b]
			if l == nil {
				l = []plan.BetEnv{}
			}
			out[b.ID] = l
			continue
		}
		e := plan.BetEnv{Status: string(StatusWaiting)}
		if in := latest[b]; in != nil {
			e = r.betEnv(in)
		}
		out[b.ID] = &e
	}
	return out
}

// betEnv is one instance as another bet's expressions see it, but for
// its minutes_to_start (retimeBet). A bet an earlier run created that this
// command has not polled (a preview) reads as the service's scan showed
// it. What it reads of in must move the book's edits when it changes
// (book.go): the view is kept until they do.
func (r *money) betEnv(in *instance) plan.BetEnv {
	status := in.status
	n := in.notif
	if n == nil && in.notifID != 0 {
		if n = r.known[in.label]; n != nil && status == StatusCreated {
			switch {
			case n.Resulted() && n.TotalAccepted > 0:
				status = StatusSettled
			case n.TotalAccepted > 0:
				status = StatusPlaced
			}
		}
	}
	e := plan.BetEnv{
		Status: string(status),
		Amount: in.amount,
		Race: plan.RaceEnv{Venue: in.info.Venue, Code: in.info.Code, EventNumber: in.info.EventNumber,
			Start: in.info.Start},
	}
	if in.race != nil {
		e.Race.Country = in.race.Country
		e.Race.Runners = in.race.RunnerNumbers()
		e.Race.RunnerNames = in.race.RunnerNameList()
	}
	if n != nil {
		e.Accepted = float64(n.TotalAccepted)
		e.AverageOdds = float64(n.AverageOdds)
		e.Profit = roundCents(float64(n.Profit))
		if n.Resulted() {
			e.Result = n.Tip.Competition.Result
		}
	}
	settled := status == StatusSettled
	e.Won = settled && e.Profit > 0
	e.Lost = settled && e.Profit < 0
	return e
}

// seenNotification is another plan's notification as the service showed
// it, and when.
type seenNotification struct {
	n  *apiclient.Notification
	at time.Time
}

// exposure is what in would put at risk with its current amount. A plan's
// bets share a few terms and amounts: each is worked out once per read of
// the sessions.
func (r *money) exposure(in *instance) exposure {
	key := exposureKey{betTerms(in.bet), in.amount, r.sessions.sessionsAt}
	if e, ok := r.exposures[key]; ok {
		return e
	}
	e := exposureOf(r.sessions.sessions, key.terms, in.amount)
	if r.exposures == nil || len(r.exposures) > 10_000 {
		r.exposures = map[exposureKey]exposure{}
	}
	r.exposures[key] = e
	return e
}

// ledgerSums returns the ledger, brought up to date: built again after a
// change of what the service showed (the book's version) or once a race
// of an open bet went off, else brought forward by the journal's labels
// written since (creates) and a preview's planned creates.
func (r *money) ledgerSums() *book.Ledger {
	now := r.clock.Now()
	l := r.ledger
	if l == nil || r.ledgerGen != r.book.version || (!l.NextChange().IsZero() && !now.Before(l.NextChange())) {
		return r.rebuildLedger(now)
	}
	if r.hold.journal != nil && r.hold.journal.Serial() != r.ledgerSerial {
		for _, e := range r.hold.journal.changedSince(r.ledgerSerial) {
			if b, ok := r.journalBet(e.label, &e.labelState, now); ok {
				l.Put(b, now)
			} else {
				l.Remove(e.label)
			}
		}
		r.ledgerSerial = r.hold.journal.Serial()
	}
	for _, b := range r.planned[r.ledgerPlanned:] {
		l.Put(b, now)
	}
	r.ledgerPlanned = len(r.planned)
	return l
}

func (r *money) rebuildLedger(now time.Time) *book.Ledger {
	l := book.NewLedger(r.plan.Limits.Period)
	r.ledgerSerial = 0
	if r.hold.journal != nil {
		r.ledgerSerial = r.hold.journal.Serial()
	}
	for _, b := range r.counted() {
		l.Put(b, now)
	}
	r.ledger, r.ledgerGen, r.ledgerPlanned = l, r.book.version, len(r.planned)
	return l
}

// betResult is in as the report shows it, with what it puts at risk: the
// book's count of it, as every sum counts it.
func (r *money) betResult(in *instance) BetResult {
	b := in.result()
	var js *labelState
	if r.hold.journal != nil {
		js = r.hold.journal.State(in.label)
	}
	if b.CreatedAt.IsZero() && in.notifID != 0 && js != nil {
		// Neither this command nor the service said when: the journal's
		// created entry does.
		b.CreatedAt = js.CreatedAt
	}
	switch {
	case in.notifID != 0 || (js != nil && js.Pending):
		f, ok := book.Facts{}, false
		if js != nil {
			f, ok = journalFacts(r.plan.Name, in.label, js)
		}
		if !ok {
			f = book.Facts{Plan: r.plan.Name, Label: in.label, BetID: in.bet.ID, Race: bookRace(in.info), Requested: in.amount}
		}
		if f.Estimate.Amount == 0 || (js == nil || js.AtRisk == 0) && in.risk.Amount > 0 {
			f.Estimate = in.risk
		}
		if f.Estimate.Amount == 0 && in.notif != nil {
			f.Estimate = r.notificationExposure(in.notif)
		}
		if bet, ok := r.count(f, r.clock.Now()); ok {
			b.AtRisk, b.AtRiskBasis = bet.Risk().Amount, bet.Risk().Basis
		} else {
			b.AtRiskBasis = "cancelled before anything was placed"
		}
	case in.status == StatusWaiting && in.amount > 0:
		e := r.exposure(in)
		b.AtRisk, b.AtRiskBasis = e.Amount, e.Basis
	}
	return b
}

// asCreated is in counted as if created now with risk: a bet certain to
// be created, held to the limits with the ones before it.
func (r *money) asCreated(in *instance, risk exposure) book.Bet {
	b, _ := book.Count(book.Facts{Plan: r.plan.Name, Label: in.label, BetID: in.bet.ID, Race: bookRace(in.info),
		Requested: in.amount, Estimate: risk}, r.clock.Now())
	return b
}

// asPlanned is in counted as a preview's create: what run would create now.
func (r *money) asPlanned(in *instance) book.Bet {
	b, _ := book.Count(book.Facts{Plan: r.plan.Name, Label: in.label, BetID: in.bet.ID, Race: bookRace(in.info),
		Requested: in.amount, Estimate: in.risk, Planned: true}, r.clock.Now())
	return b
}
