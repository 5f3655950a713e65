package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// Preview is `betplan plan`: read-only, it says for each bet what run would
// do now. It takes no lock and writes nothing; one scan of the service's
// notifications finds labels that exist already.
func Preview(ctx context.Context, p *plan.Plan, opts Options) (*Result, *SavedPlan, error) {
	if err := opts.validate(); err != nil {
		return nil, nil, err
	}
	r := newTracker(p, opts)
	res := r.newResult(KindPlan, r.clock.Now())
	j, err := r.journals.readJournal(ctx)
	if err != nil {
		return res, nil, err
	}
	r.hold.journal = j
	if err := r.res.refresh(ctx); err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	existing, err := r.follow.ScanPrefix(ctx)
	if err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	exists := map[string]int64{}
	r.money.known = map[string]*apiclient.Notification{}
	for i := range existing {
		n := &existing[i]
		exists[n.Label] = int64(n.ID)
		r.money.known[n.Label] = n
	}
	r.book.outdated()
	if err := r.res.expand(); err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	r.res.followJournal()
	if err := r.money.loadAccount(ctx); err != nil {
		r.finish(res, err)
		return res, nil, err
	}

	now := r.clock.Now()
	res.Warnings = r.res.unmatchedForEach(now)
	certainWhy, certain, _ := r.create.certainRefusal()
	refuseAll := map[*instance]bool{}
	for _, in := range certain {
		refuseAll[in] = true
	}
	saved := &SavedPlan{
		Format: savedPlanFormat, PlanFile: r.opts.PlanFile, PlanHash: p.Hash, PlanName: p.Name,
		BaseURL: r.opts.BaseURL, JournalLineage: j.Lineage(), JournalSerial: j.Serial(), CreatedAt: now.UTC(),
	}
	res.Bets = res.Bets[:0]
	r.book.sortInstances(r.plan.Bets)
	r.book.nameInstances()
	for _, in := range r.book.insts {
		var b BetResult
		if refuseAll[in] {
			b = r.money.betResult(in)
			b.Action = ActionRefuse
			b.Reason = "run would refuse the plan before creating any bet: " + certainWhy
		} else {
			b = r.create.previewOne(in, now, exists)
		}
		res.Bets = append(res.Bets, b)
		if b.Action == ActionCreate {
			saved.Creates = append(saved.Creates, SavedCreate{Label: b.Label, BetID: b.ID, Amount: in.amount})
		}
	}
	all := r.money.usageFor(RaceInfo{}) // every period's, what this preview would add with it
	res.Limits.Committed, res.Limits.CreatedBets = all.Requested, max(len(existing), all.Bets-all.PlannedBets)
	res.Limits.Planned = all.PlannedRequested
	if err := r.tips.previewTips(res, now); err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	res.Limits.Periods = r.money.periodUsages()
	r.money.fillAccount(res)
	if certainWhy != "" {
		res.Error = "run would refuse: " + certainWhy
	}
	res.FinishedAt = r.clock.Now()
	res.EndReason = EndCompleted
	res.Simulated = r.simulated()
	res.ComputeTotals()
	return res, saved, nil
}

// previewOne decides what run would do with one instance now.
func (r *creator) previewOne(in *instance, now time.Time, exists map[string]int64) BetResult {
	if in.status == StatusWaiting && in.notifID == 0 {
		if id, ok := exists[in.label]; ok {
			r.book.knownAs(in, id)
			b := r.money.betResult(in)
			b.Action, b.Status = ActionAdopt, StatusCreated
			b.Reason = fmt.Sprintf("notification %d already carries this label: run adopts it, never creates", id)
			return b
		}
	}
	if in.status != StatusWaiting {
		b := r.money.betResult(in)
		b.Action = ActionNone
		if in.status == StatusUnresolved {
			b.Action = ActionUnresolved
		} else if in.notifID != 0 {
			b.Reason = fmt.Sprintf("created by an earlier run: notification %d", in.notifID)
		}
		return b
	}
	if s := r.hold.journal.State(in.label); s != nil && s.Pending {
		b := r.money.betResult(in)
		b.Action = ActionAdopt
		b.Reason = "an earlier create may have landed: run looks the label up over the grace window first"
		return b
	}
	if !in.resolved() || !now.Before(in.start()) {
		b := r.money.betResult(in)
		b.Action, b.Status = ActionSkip, StatusSkipped
		b.Reason = "the " + in.what() + " has started"
		return b
	}
	if why := notInField(in); why != "" {
		// Skipped: nothing of it is ever at risk.
		r.book.move(in, StatusSkipped, why+": run skips it")
		b := r.money.betResult(in)
		b.Action = ActionSkip
		return b
	}
	env := r.res.instanceEnv(in, now)
	if amount, err := in.bet.Amount(env); err == nil {
		r.book.priced(in, amount)
	}
	ready, err := in.bet.Ready(env)
	b := r.money.betResult(in)
	switch {
	case err != nil:
		b.Action, b.Status = ActionSkip, StatusFailed
		b.Reason = fmt.Sprintf("evaluating when: %v", err)
	case !ready:
		b.Action = ActionWait
		b.Reason = fmt.Sprintf("waiting for %q (%s)", in.bet.When.String(), in.bet.When.Explain(env))
		if why := r.waitRefusal(in); why != "" {
			b.Action = ActionRefuse
			b.Reason = "run would refuse it when " + fmt.Sprintf("%q", in.bet.When.String()) + " holds: " + why
		} else if why := r.mayRefuse(in); why != "" {
			b.Reason += "; may refuse: " + why
		}
	default:
		r.book.risked(in, r.money.exposure(in))
		if why := limitRefusal(r.plan.Limits, in.risk, in.info, r.money.usageFor(in.info), "committed or planned before this bet"); why.Code != "" {
			b.Action = ActionRefuse
			b.Reason = "run would refuse: " + why.Text
			why.Text, why.Period = b.Reason, r.money.limitPeriod(why.Scope, in.info)
			b.Why = why
			return b
		}
		if l := r.money.accountLimits(); l != nil {
			u, who := r.money.accountUsage(*l, in.info, r.money.accountOthers)
			if why := limitRefusal(*l, in.risk, in.info, u, who+" or planned before this bet"); why.Code != "" {
				b.Action = ActionRefuse
				b.Reason = "run would refuse: account " + why.Text
				why.Scope = reason.ScopeAccount
				why.Text, why.Period = b.Reason, r.money.limitPeriod(why.Scope, in.info)
				b.Why = why
				return b
			}
		}
		if reason := r.checkBot(in); reason != "" && !r.opts.AllowNoBot {
			// The hint is run's flag, which plan does not have.
			if r, ok := strings.CutSuffix(reason, allowNoBotHint); ok {
				reason = r + ", or run with --allow-no-bot"
			}
			b.Action = ActionRefuse
			b.Reason = "run would refuse: " + reason
			return b
		}
		b.Action = ActionCreate
		b.Reason = "ready: run would create it now"
		r.money.planned = append(r.money.planned, r.money.asPlanned(in))
	}
	return b
}

// waitRefusal returns why a bet waiting for its condition could never be
// created as things are: its amount is known offline and what it puts at
// risk with the running sessions breaks a limit on its own (ownRefusal),
// the plan's or the account's; or "".
func (r *creator) waitRefusal(in *instance) string {
	if _, known := in.bet.StaticAmount(); !known || in.amount <= 0 {
		return ""
	}
	return r.refusalOnItsOwn(r.money.exposure(in))
}

// refusalOnItsOwn is the limit, the plan's or else the account's
// ("account max_stake_per_bet …"), that risk breaks on its own; or "".
func (r *creator) refusalOnItsOwn(risk exposure) string {
	if why := ownRefusal(r.plan.Limits, risk); why != "" {
		return why
	}
	if l := r.money.accountLimits(); l != nil {
		if why := ownRefusal(*l, risk); why != "" {
			return "account " + why
		}
	}
	return ""
}

// mayRefuse says how a waiting bet whose amount is known only at run time
// can break a limit on its own: the most its expression can give, with
// the running sessions, is more than a limit allows; or "".
func (r *creator) mayRefuse(in *instance) string {
	if _, known := in.bet.StaticAmount(); known {
		return ""
	}
	hi := in.bet.AmountBound()
	field := string(in.bet.AmountField())
	src := in.bet.Stake
	if in.bet.AmountField() == plan.AmountTargetProfit {
		src = in.bet.TargetProfit
	}
	if src == nil {
		return ""
	}
	if in.amount > 0 {
		// As things are now the amount already breaks a limit: say so,
		// with the value it gives now.
		why := r.refusalOnItsOwn(r.money.exposure(in))
		if why != "" {
			return fmt.Sprintf("%s %s gives %s now, and then %s", field, src, usd(in.amount), why)
		}
	}
	if math.IsInf(hi, 1) {
		risk := exposureOf(r.res.sessions, betTerms(in.bet), plan.MaxBetAmount)
		limit := r.refusalOnItsOwn(risk)
		if limit == "" {
			return ""
		}
		limit, _, _ = strings.Cut(limit, ":") // "max_stake_per_bet $10.00"
		return fmt.Sprintf("%s %s has no upper bound before the run evaluates it; the run refuses it if it puts more at risk than %s allows", field, src, limit)
	}
	risk := exposureOf(r.res.sessions, betTerms(in.bet), hi)
	why := r.refusalOnItsOwn(risk)
	if why == "" {
		return ""
	}
	return fmt.Sprintf("%s %s can reach %s, and then %s", field, src, usd(hi), why)
}
