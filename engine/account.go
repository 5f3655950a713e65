package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// The account's limits (betplan.yaml) hold for every plan that shares the
// state (the state dir, or the PostgreSQL state of every machine),
// together, beside each plan's own. A create announces itself through the
// account's gate (state.Lease.AppendGated): under it the other plans'
// journals are read, the account's limits checked with this plan's stakes
// and theirs, and the `creating` record appended before it lets go, so two
// runs sharing the state, on one host or many, never together pass an
// account limit.

// accountGateWait bounds the wait for another plan's create to finish its
// check and announcement, which take milliseconds.
const accountGateWait = 30 * time.Second

// accountLimits are the account's limits; nil when there is no account
// file or it sets none.
func (r *money) accountLimits() *plan.Limits {
	if r.opts.Account == nil || !r.opts.Account.Limits.Any() {
		return nil
	}
	return &r.opts.Account.Limits
}

// accountRefusal is the account's limits refusing a create under the gate.
type accountRefusal struct{ reason string }

func (e *accountRefusal) Error() string { return e.reason }

// accountGateName is the gate a create in race passes: one per period of
// the account's limits, as they count nothing across periods.
func accountGateName(l plan.Limits, race RaceInfo) string {
	return "account limits " + periodKey(l.Period, race.Start)
}

// recordCreating appends in's `creating` record e, through the account's
// gate when the account has limits. refusal says why the account's
// limits refuse it (nothing was appended); err is the journal's, as
// Journal.Record's; unchecked says why the limits could not be checked
// (nothing was appended; the bet is tried again later).
func (r *money) recordCreating(ctx context.Context, in *instance, e journalEntry) (refusal, unchecked string, err error) {
	l := r.accountLimits()
	if l == nil {
		return "", "", r.hold.journal.Record(e)
	}
	// The service is read before the gate is taken: a bet another plan
	// announces meanwhile is counted at what it announced.
	if accountReadsOutcomes(l) {
		if err := r.loadAccount(ctx); err != nil {
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			return "", err.Error(), nil
		}
	}
	own := r.stakes()
	checked := false
	wait, cancel := context.WithTimeout(ctx, accountGateWait)
	defer cancel()
	err = r.hold.journal.RecordGated(wait, accountGateName(*l, in.info), e, func(logs []state.PlanLog) error {
		checked = true
		r.checkpoint("account gate")
		others, err := r.stakesOf(logs)
		if err != nil {
			return err
		}
		u, words := r.accountUsageWith(*l, in.info, own, others)
		if reason := limitRefusal(*l, in.risk, in.info, u, words); reason != "" {
			return &accountRefusal{reason: "account " + reason}
		}
		return nil
	})
	var refused *accountRefusal
	switch {
	case err == nil:
		return "", "", nil
	case errors.As(err, &refused):
		return refused.reason, "", nil
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	}
	if _, lost := isLockLost(err); lost || checked {
		return "", "", err // the record may have been sent: the journal's error
	}
	return "", err.Error(), nil
}

// otherPlansStakes reads the journals of the other plans sharing the
// state: what each announced at risk, with what the service showed of it
// when refreshAccountOutcomes read it, else counted as open, as a plan's
// own limits count a bet whose outcome they do not know yet.
func (r *money) otherPlansStakes(ctx context.Context) ([]accountStake, error) {
	logs, err := r.opts.Store.ReadAccount(ctx, r.key.Service())
	if err != nil {
		return nil, fmt.Errorf("read the other plans' journals for the account's limits: %w", err)
	}
	return r.stakesOf(logs)
}

// stakesOf is what the journals of the account's plans, but this one's,
// committed.
func (r *money) stakesOf(logs []state.PlanLog) ([]accountStake, error) {
	me := r.journals.owner()
	var out []accountStake
	for _, log := range logs {
		if log.Name == r.plan.Name || (r.opts.RehearsalPlans != nil && !slices.Contains(r.opts.RehearsalPlans, log.Name)) {
			continue
		}
		j, err := replayRecords(r.opts.Store.String()+": plan "+log.Name, log.Records, nil)
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
			out = append(out, accountStake{plan: log.Name, stake: st})
		}
	}
	return out, nil
}

// accountUsage adds up, in the account's period of race and on race
// itself, this plan's stakes and the other plans', and says who
// committed them ("committed by saturday-card and this plan").
func (r *money) accountUsage(l plan.Limits, race RaceInfo, others []accountStake) (usage, string) {
	return r.accountUsageWith(l, race, r.stakes(), others)
}

// accountUsageWith is accountUsage with this plan's stakes as given.
func (r *money) accountUsageWith(l plan.Limits, race RaceInfo, own []stake, others []accountStake) (usage, string) {
	all := make([]accountStake, 0, len(own)+len(others))
	for _, s := range own {
		all = append(all, accountStake{plan: r.plan.Name, stake: s})
	}
	return accountUsageOf(l, race, append(all, others...), r.plan.Name)
}

// accountUsageOf adds up all in the account's period of race and on race
// itself, and says who committed them, self as "this plan".
func accountUsageOf(l plan.Limits, race RaceInfo, all []accountStake, self string) (usage, string) {
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
	return u, "committed by " + committers(byPlan, self)
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

// fillAccount writes the account's limits and their use into res.
func (r *money) fillAccount(res *Result) {
	l := r.accountLimits()
	if l == nil {
		return
	}
	a := &AccountSummary{File: r.opts.Account.Filename, LimitsSummary: LimitsSummary{Limits: *l}, Plans: []string{r.plan.Name}}
	others := r.accountOthers
	if res.Kind != KindPlan {
		// The report says what the account's plans committed as it ends.
		ctx, cancel := context.WithTimeout(context.Background(), accountGateWait)
		defer cancel()
		var err error
		if others, err = r.otherPlansStakes(ctx); err != nil {
			a.Unread = err.Error()
			others = r.accountOthers
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
	for _, in := range r.book.insts {
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
// what every plan sharing the state committed as loadAccount read it,
// without the account's gate: each create is checked again under it.
func (r *money) certainAccountRefusal(certain []*instance) string {
	l := r.accountLimits()
	if l == nil {
		return ""
	}
	others := r.accountOthers
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
				plan.CutList(ids, idsShown), in.bet.ID, reason)
		}
		before = append(before, accountStake{plan: r.plan.Name, stake: stake{label: in.label, betID: in.bet.ID, race: in.info, requested: in.amount, risk: risk, open: true}})
	}
	return ""
}

// accountReadsOutcomes reports whether the account's limits depend on how
// the bets went: a stop-loss, a take-profit or exposure.
func accountReadsOutcomes(l *plan.Limits) bool {
	return l.MaxLoss != nil || l.StopLoss != nil || l.TakeProfit != nil || l.MaxOpenStake != nil
}

// accountRefreshEvery is how old what the service showed of another
// plan's open bet may be when the account's limits count it.
const accountRefreshEvery = time.Minute

// loadAccount reads what the other plans sharing the state committed into
// r.money.accountOthers. When the account's limits depend on how the bets went,
// it first reads from the service, by label, the other plans' bets whose
// outcome is not known yet, so an account stop-loss counts another plan's
// losses (cron runs of different plans see each other's results). A
// resulted bet is read once.
func (r *money) loadAccount(ctx context.Context) error {
	l := r.accountLimits()
	if l == nil {
		return nil
	}
	logs, err := r.opts.Store.ReadAccount(ctx, r.key.Service())
	if err != nil {
		return fmt.Errorf("read the other plans' journals for the account's limits: %w", err)
	}
	others, err := r.stakesOf(logs)
	if err != nil || !accountReadsOutcomes(l) {
		r.accountOthers = others
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
	r.accountOthers, err = r.stakesOf(logs)
	return err
}
