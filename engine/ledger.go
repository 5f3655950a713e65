package engine

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
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
	book     *book
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
	planned []stake
	// ledger keeps the limits' sums between creates, built again after
	// each change of the book's version.
	ledger    *ledger
	exposures map[exposureKey]exposure
	// bets is what the plan's bets did as expressions read them, kept
	// between decisions while the book stands still.
	bets betsView
	// accountOthers are the other plans' stakes a preview holds its
	// creates to, with the account's limits (account.go).
	accountOthers []accountStake
	// accountSeen is what the service showed of the other plans' bets,
	// by label (refreshAccountOutcomes).
	accountSeen map[string]*seenNotification
}

// inPeriod reports whether a stake counts in period key. A stake whose
// race has no known start counts in every period: it may be today's.
func (r *money) inPeriod(s *stake, key string) bool {
	if key == "" || s.race.Start.IsZero() {
		return true
	}
	return periodKey(r.plan.Limits.Period, s.race.Start) == key
}

// stakes lists what the plan committed, and what a preview plans, in
// journal order. Cancelled bets (by betplan cancel, or on the service
// before anything was placed) put nothing at risk and are left out.
func (r *money) stakes() []stake {
	now := r.clock.Now()
	var out []stake
	seen := map[string]bool{}
	if r.hold.journal != nil {
		for _, e := range r.hold.journal.states() {
			seen[e.label] = true
			if st, ok := r.stakeOf(e.label, &e.labelState, now); ok {
				out = append(out, st)
			}
		}
	}
	for _, n := range r.known {
		if seen[n.Label] {
			continue
		}
		if st, ok := r.knownStake(n, now); ok {
			out = append(out, st)
		}
	}
	return append(out, r.planned...)
}

// stakeOf is what the journal's label l puts at risk now; false when it
// puts nothing at risk (never created, or cancelled before any session
// placed it).
func (r *money) stakeOf(l string, s *labelState, now time.Time) (stake, bool) {
	if !s.created() && !s.Pending {
		return stake{}, false
	}
	st := stake{label: l, betID: s.BetID, race: s.Race, requested: s.Amount,
		risk: exposure{Amount: s.AtRisk, Basis: s.Basis}, open: true, canceled: s.Canceled}
	if st.risk.Amount == 0 { // a journal from before at-risk was kept
		st.risk = exposure{Amount: s.Amount, Basis: "the requested amount (recorded before at-risk amounts were)"}
	}
	return st, r.outcome(&st, now)
}

// knownStake is what a notification of the plan found on the service, and
// not in the journal, puts at risk now.
func (r *money) knownStake(n *apiclient.Notification, now time.Time) (stake, bool) {
	st := stake{label: n.Label, betID: betIDFromLabel(r.plan.Name, n.Label), race: notificationRace(n),
		requested: notificationAmount(n, plan.AmountFieldFor(n.Type)), risk: r.notificationExposure(n), open: true}
	return st, r.outcome(&st, now)
}

// outcome brings what the service showed of a stake into it; false when
// the bet was cancelled with nothing placed.
func (r *money) outcome(st *stake, now time.Time) bool {
	in := r.book.byLabel[st.label]
	var n *apiclient.Notification
	if in != nil {
		if in.status == StatusCanceled && in.final {
			return false // the service showed nothing placed
		}
		st.canceled = st.canceled || in.canceled
		n = in.notif
		if !in.info.Start.IsZero() {
			st.race.Start = in.info.Start
		}
	}
	if n == nil {
		n = r.known[st.label]
	}
	if n == nil {
		// Not read yet: what it may place, unless cancelled with nothing
		// known placed.
		return !st.canceled
	}
	return applyOutcome(st, n, in, now)
}

// applyOutcome brings what the service showed of a stake, n, into it;
// in is this run's bet of it, nil for another plan's. False when the bet
// was cancelled with nothing placed.
func applyOutcome(st *stake, n *apiclient.Notification, in *instance, now time.Time) bool {
	accepted := float64(n.TotalAccepted)
	off := in != nil && in.final
	if start := n.Tip.Competition.StartTime.Time; !start.IsZero() && !now.Before(start) {
		off = true
	}
	switch {
	case bool(n.IsCanceled) && accepted == 0:
		return false
	case n.Resulted():
		st.open = false
		st.settled = accepted > 0
		st.profit = float64(n.Profit)
		st.resultAt = n.Tip.ResultTime.Time
		st.risk = exposure{Amount: roundCents(accepted), Basis: "accepted by the sessions"}
	case bool(n.IsCanceled) || st.canceled:
		// Cancelled after sessions placed it: that stays on, nothing
		// more is placed.
		if accepted == 0 {
			return false
		}
		st.risk = exposure{Amount: roundCents(accepted), Basis: "placed before the cancel; nothing more will be placed"}
	case off:
		// Past the off nothing more is placed: what was accepted is what
		// is at risk, until the result.
		st.open = accepted > 0
		st.risk = exposure{Amount: roundCents(accepted), Basis: "accepted by the sessions"}
	case in != nil && in.refusedStake > 0:
		// A session that refused places nothing: what it would have
		// placed is no longer at risk.
		left := max(accepted, roundCents(st.risk.Amount-in.refusedStake))
		st.risk = exposure{Amount: roundCents(left), Basis: fmt.Sprintf("accepted by the sessions so far, or still to be placed; %s refused by %s",
			usd(in.refusedStake), refusedNames(in.refusedBy))}
		if left == accepted {
			st.risk.Basis = "accepted by the sessions; the others refused it"
		}
	case accepted > st.risk.Amount:
		st.risk = exposure{Amount: roundCents(accepted), Basis: "accepted by the sessions so far"}
	}
	return true
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
		return exposure{Amount: roundCents(float64(n.TotalAccepted)), Basis: "accepted by the sessions"}
	}
	t := notificationTerms(n)
	return exposureOf(r.sessions.sessions, t, notificationAmount(n, plan.AmountFieldFor(n.Type)))
}

// usageFor adds up the stakes in the period of race, and on race itself,
// from the ledger (ledgercache.go), which keeps the sums between creates.
func (r *money) usageFor(race RaceInfo) usage {
	l := r.ledgerSums()
	u := l.usage(r.plan.Limits.Period, race)
	if verifyLedger && len(l.byLabel) < 300 { // past that the check itself would dominate a test
		if want := r.sum(r.stakes(), race); !sameUsage(u, want) {
			panic(fmt.Sprintf("engine: the ledger's running sums %+v differ from the stakes' %+v", u, want))
		}
	}
	return u
}

// verifyLedger makes every use of the running sums check them against
// the stakes added up afresh; the tests turn it on.
var verifyLedger = false

func sameUsage(a, b usage) bool {
	near := func(x, y float64) bool { return x-y < 0.005 && y-x < 0.005 }
	ta, tb := a.totals, b.totals
	return a.period == b.period && ta.Bets == tb.Bets && ta.Settled == tb.Settled && ta.Won == tb.Won && ta.Lost == tb.Lost &&
		near(ta.Staked, tb.Staked) && near(ta.OpenStake, tb.OpenStake) && near(ta.Profit, tb.Profit) &&
		near(ta.LowestProfit, tb.LowestProfit) && near(ta.HighestProfit, tb.HighestProfit) &&
		near(a.planned, b.planned) && a.plannedBets == b.plannedBets && near(a.raceStake, b.raceStake) && a.raceBets == b.raceBets
}

// sum adds up stakes in the period of race, and on race itself: the
// definition the ledger's running sums keep to.
func (r *money) sum(stakes []stake, race RaceInfo) usage {
	var a periodSums
	key := periodKey(r.plan.Limits.Period, race.Start)
	for i := range stakes {
		if r.inPeriod(&stakes[i], key) {
			a.add(&stakes[i], 1)
		}
	}
	a.finish()
	u := usage{period: key, totals: a.t, planned: roundCents(a.planned), plannedBets: a.plannedBets}
	u.totals.LowestProfit, u.totals.HighestProfit = profitRange(a.settled)
	if race.Venue != "" || race.Event != nil {
		for i := range stakes {
			if sameRaceInfo(stakes[i].race, race) {
				u.raceStake += stakes[i].risk.Amount
				u.raceBets++
			}
		}
	}
	u.raceStake = roundCents(u.raceStake)
	return u
}

// sameRaceInfo reports whether two bets are on one race of one meeting.
// A sports event is its own "race": per-race limits hold for its bets.
func sameRaceInfo(a, b RaceInfo) bool {
	if a.Event != nil || b.Event != nil {
		return a.Event != nil && b.Event != nil && a.Event.ID == b.Event.ID && a.Event.ID != ""
	}
	return strings.EqualFold(a.Code, b.Code) && a.EventNumber == b.EventNumber &&
		plan.FoldVenue(a.Venue) == plan.FoldVenue(b.Venue) && meetingDate(a.Start) == meetingDate(b.Start)
}

// periodUsages are the usages of the periods the result's bets are in
// (the races this run considered), oldest first; with none, the latest
// period the plan has bets in.
func (r *money) periodUsages() []PeriodUsage {
	stakes := r.stakes()
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
		for _, s := range stakes {
			if s.race.Start.After(latest.Start) {
				latest = RaceInfo{Start: s.race.Start}
			}
		}
		keys[periodKey(r.plan.Limits.Period, latest.Start)] = latest
	}
	out := make([]PeriodUsage, 0, len(keys))
	for k, race := range keys {
		u := r.sum(stakes, race)
		out = append(out, PeriodUsage{Period: k, Words: periodWords(r.plan.Limits.Period, k), PlanEnv: u.totals,
			Planned: u.planned, PlannedBets: u.plannedBets})
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

// accountStake is a bet another plan of the account committed, as its
// journal says.
type accountStake struct {
	plan string
	stake
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

// ledgerSums returns the ledger, brought up to date.
func (r *money) ledgerSums() *ledger {
	now := r.clock.Now()
	l := r.ledger
	if l == nil || l.gen != r.book.version || (!l.nextChange.IsZero() && !now.Before(l.nextChange)) {
		return r.rebuildLedger(now)
	}
	if r.hold.journal != nil && r.hold.journal.Serial() != l.serial {
		for _, e := range r.hold.journal.changedSince(l.serial) {
			st, ok := r.stakeOf(e.label, &e.labelState, now)
			old, had := l.byLabel[e.label]
			if (ok && st.settled) || (had && old.settled) {
				return r.rebuildLedger(now) // the profit's low and high need the order of results
			}
			if had {
				l.apply(r.plan.Limits.Period, &old, -1)
				delete(l.byLabel, e.label)
			}
			if ok {
				l.apply(r.plan.Limits.Period, &st, 1)
				l.byLabel[e.label] = st
				l.watch(&st, now)
			}
		}
		l.serial = r.hold.journal.Serial()
	}
	for _, st := range r.planned[l.planned:] {
		l.apply(r.plan.Limits.Period, &st, 1)
		l.watch(&st, now)
	}
	l.planned = len(r.planned)
	return l
}

func (r *money) rebuildLedger(now time.Time) *ledger {
	l := &ledger{gen: r.book.version, byLabel: map[string]stake{}, periods: map[string]*periodSums{}, races: map[string]*raceSums{}}
	if r.hold.journal != nil {
		l.serial = r.hold.journal.Serial()
	}
	stakes := r.stakes()
	for i := range stakes {
		st := &stakes[i]
		if !st.planned {
			l.byLabel[st.label] = *st
		}
		l.apply(r.plan.Limits.Period, st, 1)
		l.watch(st, now)
	}
	l.planned = len(r.planned)
	for _, a := range l.periods {
		a.lo, a.hi = profitRange(a.settled)
	}
	l.all.lo, l.all.hi = profitRange(l.all.settled)
	r.ledger = l
	return l
}

// betResult is in as the report shows it, with what it puts at risk.
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
		st := stake{label: in.label, race: in.info, risk: in.risk, open: true}
		if st.risk.Amount == 0 && js != nil && js.AtRisk > 0 {
			st.risk = exposure{Amount: js.AtRisk, Basis: js.Basis}
		}
		if st.risk.Amount == 0 && in.notif != nil {
			st.risk = r.notificationExposure(in.notif)
		}
		if r.outcome(&st, r.clock.Now()) {
			b.AtRisk, b.AtRiskBasis = st.risk.Amount, st.risk.Basis
		} else {
			b.AtRiskBasis = "cancelled before anything was placed"
		}
	case in.status == StatusWaiting && in.amount > 0:
		e := r.exposure(in)
		b.AtRisk, b.AtRiskBasis = e.Amount, e.Basis
	}
	return b
}
