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
	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
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

// accountRefusal is the account's limits refusing a create under the
// gate, and the sums they saw.
type accountRefusal struct {
	why reason.Why
	u   usage
}

func (e *accountRefusal) Error() string { return e.why.Text }

// accountGateName is the gate a create in race passes: one per period of
// the account's limits, as they count nothing across periods.
func accountGateName(l plan.Limits, race RaceInfo) string {
	return "account limits " + periodKey(l.Period, race.Start)
}

// recordCreating appends in's `creating` record e, through the account's
// gate when the account has limits. refusal says why the account's
// limits refuse it (nothing was appended), and seen the sums they saw;
// err is the journal's, as Journal.Record's; unchecked says why the
// limits could not be checked (nothing was appended; the bet is tried
// again later).
func (r *money) recordCreating(ctx context.Context, in *instance, e journalEntry) (refusal reason.Why, seen usage, unchecked string, err error) {
	l := r.accountLimits()
	if l == nil {
		return reason.Why{}, usage{}, "", r.hold.journal.Record(e)
	}
	// The service is read before the gate is taken: a bet another plan
	// announces meanwhile is counted at what it announced.
	if accountReadsOutcomes(l) {
		if err := r.loadAccount(ctx); err != nil {
			if ctx.Err() != nil {
				return reason.Why{}, usage{}, "", ctx.Err()
			}
			return reason.Why{}, usage{}, err.Error(), nil
		}
	}
	own := r.counted()
	checked := false
	wait, cancel := context.WithTimeout(ctx, accountGateWait)
	defer cancel()
	err = r.hold.journal.RecordGated(wait, accountGateName(*l, in.info), e, func(logs []state.PlanLog) error {
		checked = true
		r.checkpoint("account gate")
		others, err := r.othersOf(logs)
		if err != nil {
			return err
		}
		u, words := accountUsageOf(*l, in.info, slices.Concat(own, others), r.plan.Name)
		if why := limitRefusal(*l, in.risk, in.info, u, words); why.Code != "" {
			why.Scope, why.Text = reason.ScopeAccount, "account "+why.Text
			return &accountRefusal{why: why, u: u}
		}
		return nil
	})
	var refused *accountRefusal
	switch {
	case err == nil:
		return reason.Why{}, usage{}, "", nil
	case errors.As(err, &refused):
		return refused.why, refused.u, "", nil
	case ctx.Err() != nil:
		return reason.Why{}, usage{}, "", ctx.Err()
	}
	if _, lost := isLockLost(err); lost || checked {
		return reason.Why{}, usage{}, "", err // the record may have been sent: the journal's error
	}
	return reason.Why{}, usage{}, err.Error(), nil
}

// otherPlansBets reads the journals of the other plans sharing the
// state: each bet as the book counts it, from its journal (what it
// announced, its cancel, the outcome a run kept) and what the service
// showed of it when refreshAccountOutcomes read it.
func (r *money) otherPlansBets(ctx context.Context) ([]book.Bet, error) {
	logs, err := r.opts.Store.ReadAccount(ctx, r.key.Service())
	if err != nil {
		return nil, fmt.Errorf("read the other plans' journals for the account's limits: %w", err)
	}
	return r.othersOf(logs)
}

// othersOf is what the journals of the account's plans, but this one's,
// committed, as the book counts it.
func (r *money) othersOf(logs []state.PlanLog) ([]book.Bet, error) {
	me := r.journals.owner()
	now := r.clock.Now()
	var out []book.Bet
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
			f, ok := journalFacts(log.Name, e.label, &e.labelState)
			if !ok {
				continue
			}
			if n := r.accountSeen[e.label]; n != nil {
				f.Seen = seenOf(n.n)
			}
			if b, ok := book.Count(f, now); ok {
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// accountUsage adds up, in the account's period of race and on race
// itself, this plan's bets and the other plans', and says who committed
// them ("committed by saturday-card and this plan").
func (r *money) accountUsage(l plan.Limits, race RaceInfo, others []book.Bet) (usage, string) {
	return accountUsageOf(l, race, slices.Concat(r.counted(), others), r.plan.Name)
}

// accountUsageOf adds up all in the account's period of race and on race
// itself, and says who committed them, self as "this plan".
func accountUsageOf(l plan.Limits, race RaceInfo, all []book.Bet, self string) (usage, string) {
	u := book.Sum(all, l.Period, bookRace(race), true)
	return u, "committed by " + committers(u.ByPlan, self)
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
func (r *money) fillAccount(res *Result) { r.fillAccountFrom(res, res.Kind != KindPlan) }

// fillAccountFrom is fillAccount with the other plans' bets read afresh
// (reread) or as last read.
func (r *money) fillAccountFrom(res *Result, reread bool) {
	l := r.accountLimits()
	if l == nil {
		return
	}
	a := &AccountSummary{File: r.opts.Account.Filename, LimitsSummary: LimitsSummary{Limits: *l}, Plans: []string{r.plan.Name}}
	others := r.accountOthers
	if reread {
		// The report says what the account's plans committed as it ends.
		ctx, cancel := context.WithTimeout(context.Background(), accountGateWait)
		defer cancel()
		var err error
		if others, err = r.otherPlansBets(ctx); err != nil {
			a.Unread = err.Error()
			others = r.accountOthers
		}
	}
	seen := map[string]bool{r.plan.Name: true}
	for _, o := range others {
		if !seen[o.Plan()] {
			seen[o.Plan()] = true
			a.Plans = append(a.Plans, o.Plan())
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
		a.Periods = append(a.Periods, PeriodUsage{Period: k, Words: periodWords(l.Period, k), PlanEnv: u.Env(),
			Planned: u.Planned, PlannedBets: u.PlannedBets})
	}
	sort.Slice(a.Periods, func(i, j int) bool { return a.Periods[i].Period < a.Periods[j].Period })
	res.Account = a
}

// certainAccountRefusal is certainRefusal for the account's limits: the
// bets certain to be created now, each counting the ones before it, with
// what every plan sharing the state committed as loadAccount read it,
// without the account's gate: each create is checked again under it.
func (r *money) certainAccountRefusal(certain []*instance) (string, *limitSeen) {
	l := r.accountLimits()
	if l == nil {
		return "", nil
	}
	others := r.accountOthers
	var before []book.Bet
	for _, in := range certain {
		risk := r.exposure(in)
		u, who := r.accountUsage(*l, in.info, slices.Concat(others, before))
		if why := limitRefusal(*l, risk, in.info, u, who+" and the certain bets before it"); why.Text != "" {
			ids := make([]string, len(certain))
			for i, c := range certain {
				ids[i] = c.bet.ID
			}
			why.Scope = reason.ScopeAccount
			return fmt.Sprintf("the bets certain to be created (%s: a named race, no when, a static amount) break an account limit together, with what the account's plans committed before: at bet %s, account %s",
				plan.CutList(ids, idsShown), in.bet.ID, why.Text), &limitSeen{why: why, u: u}
		}
		before = append(before, r.asCreated(in, risk))
	}
	return "", nil
}

// accountReadsOutcomes reports whether the account's limits depend on how
// the bets went: a loss cap, a stop, exposure.
func accountReadsOutcomes(l *plan.Limits) bool { return l.ReadsOutcomes() }

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
	others, err := r.othersOf(logs)
	if err != nil || !accountReadsOutcomes(l) {
		r.accountOthers = others
		return err
	}
	now := r.clock.Now()
	for _, o := range others {
		if !o.IsOpen() {
			continue // its outcome is kept: nothing more to read
		}
		if seen := r.accountSeen[o.Label()]; seen != nil && (seen.n.Resulted() || bool(seen.n.IsCanceled) || now.Sub(seen.at) < accountRefreshEvery) {
			continue
		}
		ns, err := r.svc.NotificationsByLabel(ctx, o.Label())
		if err != nil {
			return fmt.Errorf("read plan %s's bet %s for the account's limits: %w", o.Plan(), o.BetID(), err)
		}
		var first *apiclient.Notification
		for i := range ns {
			if ns[i].Label == o.Label() && (first == nil || ns[i].ID < first.ID) {
				first = &ns[i]
			}
		}
		if first == nil {
			continue // not found (yet): counted at what its journal announced
		}
		if r.accountSeen == nil {
			r.accountSeen = map[string]*seenNotification{}
		}
		r.accountSeen[o.Label()] = &seenNotification{n: first, at: now}
	}
	r.accountOthers, err = r.othersOf(logs)
	return err
}
