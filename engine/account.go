package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// The account's limits (betplan.yaml) hold for every plan whose journal
// is in the same state dir, together, beside each plan's own. Before a
// create announces itself, the run takes the account's lock in the state
// dir, reads the other plans' journals, checks the account's limits with
// its own plan's stakes and theirs, and appends its `creating` record
// before it lets go: two processes sharing the state dir never together
// pass an account limit.

// accountLockName is the account's lock file in the state dir.
const accountLockName = "account.lock"

// accountLockWait bounds the wait for another plan's create to finish
// its check and announcement, which take milliseconds.
const accountLockWait = 30 * time.Second

// accountStake is a bet another plan of the account committed, as its
// journal says.
type accountStake struct {
	plan string
	stake
}

// accountLimits are the account's limits; nil when there is no account
// file or it sets none.
func (r *tracker) accountLimits() *plan.Limits {
	if r.opts.Account == nil || !r.opts.Account.Limits.Any() {
		return nil
	}
	return &r.opts.Account.Limits
}

// accountUnenforceable says why the account's limits cannot be held
// here, or "": the other plans' journals are read from the local state
// dir, so with a shared state (PostgreSQL) they are not in reach yet, and
// a run is refused rather than passing them unchecked.
func (r *tracker) accountUnenforceable() string {
	if r.accountLimits() == nil {
		return ""
	}
	if _, local := r.opts.Store.(LocalStore); local {
		return ""
	}
	return fmt.Sprintf("the account limits of %s are held across the plans of one local state dir only, not yet on a shared state: refusing rather than creating unchecked; run without --state, or move the limits into each plan", r.opts.Account.Filename)
}

// accountGate holds a create to the account's limits. When they allow it,
// the account's lock is held until release, which the caller calls once
// the bet's `creating` record is durable; refusal says why they do not
// (the lock is then released already).
func (r *tracker) accountGate(ctx context.Context, in *instance) (release func(), refusal string, err error) {
	l := r.accountLimits()
	if l == nil {
		return func() {}, "", nil
	}
	// The service is read before the lock is taken: a bet another plan
	// announces meanwhile is counted at what it announced.
	if err := r.refreshAccountOutcomes(ctx); err != nil {
		return nil, "", err
	}
	fl := flock.New(filepath.Join(r.opts.State.Dir, accountLockName))
	wait, cancel := context.WithTimeout(ctx, accountLockWait)
	defer cancel()
	ok, err := fl.TryLockContext(wait, 20*time.Millisecond)
	if err != nil || !ok {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("another plan's create held it for %v", accountLockWait)
		}
		return nil, "", fmt.Errorf("take the account's lock %s: %w", fl.Path(), err)
	}
	release = func() { fl.Unlock() }
	others, err := r.otherPlansStakes()
	if err != nil {
		release()
		return nil, "", err
	}
	u, words := r.accountUsage(*l, in.info, others)
	if reason := limitRefusal(*l, in.risk, in.info, u, words); reason != "" {
		release()
		return nil, "account " + reason, nil
	}
	return release, "", nil
}

// otherPlansStakes reads the journals of the other plans in the state dir:
// what each announced at risk, with what the service showed of it when
// refreshAccountOutcomes read it, else counted as open, as a plan's own
// limits count a bet whose outcome they do not know yet.
func (r *tracker) otherPlansStakes() ([]accountStake, error) {
	if _, local := r.opts.Store.(LocalStore); !local {
		return nil, nil // out of reach: see accountUnenforceable
	}
	paths, err := r.accountJournals()
	if err != nil {
		return nil, err
	}
	me := r.owner()
	var out []accountStake
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		j, err := ReadJournal(paths[name])
		if err != nil {
			return nil, fmt.Errorf("read another plan's journal for the account's limits: %w", err)
		}
		if me.othersJournal(j) != "" {
			continue // another account's, on this service
		}
		for _, e := range j.states() {
			s := e.labelState
			if (!s.created() && !s.Pending) || s.Canceled {
				continue
			}
			st := stake{label: e.label, betID: s.BetID, race: s.Race, requested: s.Amount,
				risk: exposure{Amount: s.AtRisk, Basis: s.Basis}, open: true}
			if st.risk.Amount == 0 {
				st.risk = exposure{Amount: s.Amount, Basis: "the requested amount"}
			}
			if n := r.accountSeen[e.label]; n != nil && !applyOutcome(&st, n.n, nil, r.clock.Now()) {
				continue // cancelled with nothing placed
			}
			out = append(out, accountStake{plan: name, stake: st})
		}
	}
	return out, nil
}

// accountJournals are the journals of the account's other plans: those of
// the state dir kept against this run's service (a rehearsal's, or
// another service's, are another account's), by plan name. A plan with
// none yet but a journal an earlier betplan kept for every service alike
// has that one counted, to be safe, until its first run against this
// service tells whose it is (claimLegacy).
func (r *tracker) accountJournals() (map[string]string, error) {
	paths, err := r.opts.State.Journals(r.opts.BaseURL)
	if err != nil {
		return nil, err
	}
	legacy, err := r.opts.State.LegacyJournals()
	if err != nil {
		return nil, err
	}
	for name, p := range legacy {
		if _, ok := paths[name]; !ok {
			paths[name] = p
		}
	}
	delete(paths, r.plan.Name)
	return paths, nil
}

// accountUsage adds up, in the account's period of race and on race
// itself, this plan's stakes and the other plans', and says who
// committed them ("committed by saturday-card and this plan").
func (r *tracker) accountUsage(l plan.Limits, race RaceInfo, others []accountStake) (usage, string) {
	all := make([]accountStake, 0, len(others))
	for _, s := range r.stakes() {
		all = append(all, accountStake{plan: r.plan.Name, stake: s})
	}
	all = append(all, others...)
	key := periodKey(l.Period, race.Start)
	var a periodSums
	byPlan := map[string]float64{}
	u := usage{period: key}
	for i := range all {
		s := &all[i].stake
		if key != "" && !s.race.Start.IsZero() && periodKey(l.Period, s.race.Start) != key {
			continue
		}
		a.add(s, 1)
		byPlan[all[i].plan] += s.risk.Amount
		if (race.Venue != "" || race.Event != nil) && sameRaceInfo(s.race, race) {
			u.raceStake += s.risk.Amount
			u.raceBets++
		}
	}
	a.finish()
	u.totals = a.t
	u.planned, u.plannedBets = roundCents(a.planned), a.plannedBets
	u.totals.LowestProfit, u.totals.HighestProfit = profitRange(a.settled)
	u.raceStake = roundCents(u.raceStake)
	return u, "committed by " + committers(byPlan, r.plan.Name)
}

// committers names the plans that committed money, the largest first:
// "saturday-card ($30) and this plan ($10)".
func committers(byPlan map[string]float64, self string) string {
	names := make([]string, 0, len(byPlan))
	for n, v := range byPlan {
		if v > 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "the account's plans"
	}
	sort.Slice(names, func(i, j int) bool {
		if byPlan[names[i]] != byPlan[names[j]] {
			return byPlan[names[i]] > byPlan[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		who := n
		if n == self {
			who = "this plan"
		}
		parts[i] = fmt.Sprintf("%s (%s)", who, usd(byPlan[n]))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// AccountSummary is the account file's limits and what the plans sharing
// the state use of them, in the periods of the account's limits the
// result's bets are in.
type AccountSummary struct {
	File string // the account file, as found or named
	LimitsSummary
	// Plans name the plans whose bets were counted, this one first.
	Plans []string
	// Unread says why the other plans' journals could not be read; their
	// bets are then missing from Periods.
	Unread string
}

// fillAccount writes the account's limits and their use into res.
func (r *tracker) fillAccount(res *Result) {
	l := r.accountLimits()
	if l == nil {
		return
	}
	a := &AccountSummary{File: r.opts.Account.Filename, LimitsSummary: LimitsSummary{Limits: *l}, Plans: []string{r.plan.Name}}
	others := r.accountOthers
	_, local := r.opts.Store.(LocalStore)
	switch {
	case !local:
		a.Unread = "the other plans' journals are not read on a shared state yet"
		others = nil
	case res.Kind != KindPlan:
		var err error
		if others, err = r.otherPlansStakes(); err != nil {
			a.Unread = err.Error()
		}
	}
	seen := map[string]bool{r.plan.Name: true}
	for _, o := range others {
		if !seen[o.plan] {
			seen[o.plan] = true
			a.Plans = append(a.Plans, o.plan)
		}
	}
	sort.Strings(a.Plans[1:])
	keys := map[string]RaceInfo{}
	for _, in := range r.insts {
		if in.resolved() && !in.info.Start.IsZero() {
			if k := periodKey(l.Period, in.info.Start); keys[k].Start.IsZero() {
				keys[k] = RaceInfo{Start: in.info.Start}
			}
		}
	}
	if len(keys) == 0 {
		keys[periodKey(l.Period, r.clock.Now())] = RaceInfo{Start: r.clock.Now()}
	}
	for k, race := range keys {
		u, _ := r.accountUsage(*l, race, others)
		a.Periods = append(a.Periods, PeriodUsage{Period: k, Words: periodWords(l.Period, k), PlanEnv: u.totals,
			Planned: u.planned, PlannedBets: u.plannedBets})
	}
	sort.Slice(a.Periods, func(i, j int) bool { return a.Periods[i].Period < a.Periods[j].Period })
	res.Account = a
}

// certainAccountRefusal is certainRefusal for the account's limits: the
// bets certain to be created now, each counting the ones before it, with
// what every plan sharing the state committed. It reads the other plans'
// journals without the account's lock: each create is checked again under
// it.
func (r *tracker) certainAccountRefusal(certain []*instance) string {
	l := r.accountLimits()
	if l == nil {
		return ""
	}
	others, err := r.otherPlansStakes()
	if err != nil {
		return err.Error()
	}
	var before []accountStake
	for _, in := range certain {
		risk := r.exposure(in)
		u, who := r.accountUsage(*l, in.info, slices.Concat(others, before))
		if reason := limitRefusal(*l, risk, in.info, u, who+" and the certain bets before it"); reason != "" {
			ids := make([]string, len(certain))
			for i, c := range certain {
				ids[i] = c.bet.ID
			}
			return fmt.Sprintf("the bets certain to be created (%s: a named race, no when, a static amount) break an account limit together, with what the account's plans committed before: at bet %s, account %s",
				strings.Join(ids, ", "), in.bet.ID, reason)
		}
		before = append(before, accountStake{plan: r.plan.Name, stake: stake{label: in.label, betID: in.bet.ID, race: in.info, requested: in.amount, risk: risk, open: true}})
	}
	return ""
}

// seenNotification is another plan's notification as the service showed
// it, and when.
type seenNotification struct {
	n  *apiclient.Notification
	at time.Time
}

// accountReadsOutcomes reports whether the account's limits depend on how
// the bets went: a stop-loss, a take-profit or exposure.
func accountReadsOutcomes(l *plan.Limits) bool {
	return l.MaxLoss != nil || l.StopLoss != nil || l.TakeProfit != nil || l.MaxOpenStake != nil
}

// accountRefreshEvery is how old what the service showed of another
// plan's open bet may be when the account's limits count it.
const accountRefreshEvery = time.Minute

// refreshAccountOutcomes reads from the service, by label, the other
// plans' bets whose outcome is not known yet, so an account stop-loss
// counts another plan's losses (cron runs of different plans see each
// other's results). A resulted bet is read once.
func (r *tracker) refreshAccountOutcomes(ctx context.Context) error {
	l := r.accountLimits()
	if l == nil || !accountReadsOutcomes(l) {
		return nil
	}
	if _, local := r.opts.Store.(LocalStore); !local {
		return nil
	}
	others, err := r.otherPlansStakes()
	if err != nil {
		return err
	}
	now := r.clock.Now()
	for _, o := range others {
		if seen := r.accountSeen[o.label]; seen != nil && (seen.n.Resulted() || bool(seen.n.IsCanceled) || now.Sub(seen.at) < accountRefreshEvery) {
			continue
		}
		ns, err := r.svc.NotificationsByLabel(ctx, o.label)
		if err != nil {
			return fmt.Errorf("read plan %s's bet %s for the account's limits: %w", o.plan, o.betID, err)
		}
		var first *apiclient.Notification
		for i := range ns {
			if ns[i].Label == o.label && (first == nil || ns[i].ID < first.ID) {
				first = &ns[i]
			}
		}
		if first == nil {
			continue // not found (yet): counted at what its journal announced
		}
		if r.accountSeen == nil {
			r.accountSeen = map[string]*seenNotification{}
		}
		r.accountSeen[o.label] = &seenNotification{n: first, at: now}
	}
	return nil
}
