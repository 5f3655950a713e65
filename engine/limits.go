package engine

import (
	"fmt"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// limitRefusal returns why one more bet would break the limits l, or a
// zero Why. risk is what the bet puts at risk; u is what the stakes of its
// period and of its race add up to already (usedWords says what those
// are: committed, or committed and planned). Every limit counts money at
// risk: what the sessions accepted, or may still place. The kinds are
// checked in their order (package limit): the first that refuses says why.
func limitRefusal(l plan.Limits, risk exposure, race RaceInfo, u usage, usedWords string) reason.Why {
	in := ""
	if u.Period != "" {
		in = " in " + periodWords(l.Period, u.Period)
	}
	c := limit.Check{Sums: u.Sums(), Risk: risk.Amount, Basis: risk.Basis, In: in, Race: limitRaceWords(race), Used: usedWords}
	k, words := l.Set.Refuse(&c)
	switch {
	case words == "":
		return reason.Why{}
	case k == nil: // not an amount of money: no limit's doing
		return reason.Why{Code: reason.Limit, Scope: reason.ScopePlan, Text: words}
	case k.Stop:
		return reason.Why{Code: reason.Stop, Limit: k.Key, Scope: reason.ScopePlan, Text: words}
	}
	return reason.Why{Code: reason.Limit, Limit: k.Key, Scope: reason.ScopePlan, Text: words}
}

// limitRaceWords names a race in a limit's refusal: "Flemington R5 of
// 2026-11-21", or the sports event's name.
func limitRaceWords(race RaceInfo) string {
	words := fmt.Sprintf("%s R%d", race.Venue, race.EventNumber)
	if race.Event != nil {
		words = race.Event.Name
	}
	if d := meetingDate(race.Start); d != "" {
		words += " of " + d
	}
	return words
}

// checkLimits returns why creating in would break the plan's limits,
// counting what the plan has committed in its period so far, and those
// sums.
func (r *money) checkLimits(in *instance, risk exposure) (reason.Why, usage) {
	u := r.usageFor(in.info)
	return limitRefusal(r.plan.Limits, risk, in.info, u, "already committed by this plan"), u
}

// limitsWords says the plan's limits and what is used of each in the
// period of u, in one line: "Limits for day 2026-11-21: max_total_stake
// $100.00 ($20.00 used), ...".
func limitsWords(l plan.Limits, u usage) string {
	words := l.Set.Words(u.Sums())
	if words == "" {
		return ""
	}
	return fmt.Sprintf("Limits for %s: %s.", periodWords(l.Period, u.Period), words)
}

// ownRefusal returns why a bet would be refused whatever else the plan
// has at risk: what it puts at risk alone breaks a limit (max_stake_per_bet,
// or a total, open, race or loss limit smaller than it), or "". A bet
// still waiting for its condition is held to these now: it could never be
// created as things are. Of several, it names the one the run would.
func ownRefusal(l plan.Limits, risk exposure) string {
	_, words := l.Set.Alone(&limit.Check{Risk: risk.Amount, Basis: risk.Basis})
	return words
}

// idsShown is how many bet ids a refusal lists before "and N more".
const idsShown = 10

// limitPeriod is the period a limit of scope counts race in: the plan's
// limits' period, or the account file's.
func (r *money) limitPeriod(scope reason.Scope, race RaceInfo) string {
	p := r.plan.Limits.Period
	if scope == reason.ScopeAccount && r.opts.Account != nil {
		p = r.opts.Account.Limits.Period
	}
	return periodKey(p, race.Start)
}

// usageOf is what the bets of a limit's scope add up to in the period of
// race: the plan's own, or, for the account's limits, every plan's of
// the account as last read.
func (r *money) usageOf(scope reason.Scope, race RaceInfo) usage {
	if l := r.accountLimits(); scope == reason.ScopeAccount && l != nil {
		u, _ := r.accountUsage(*l, race, r.accountOthers)
		return u
	}
	return r.usageFor(race)
}
