package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// limitRefusal returns why one more bet would break the plan's limits, or
// "". risk is what the bet puts at risk; u is what the stakes of its
// period and of its race add up to already (usedWords says what those
// are: committed, or committed and planned). Every limit counts money at
// risk: what the sessions accepted, or may still place.
func limitRefusal(l plan.Limits, risk exposure, race RaceInfo, u usage, usedWords string) reason.Why {
	return limitReason(limitRefusalWords(l, risk, race, u, usedWords))
}

// limitReason is the typed reason of a limit's refusal words ("" for
// none): the limit's key leads them.
func limitReason(words string) reason.Why {
	if words == "" {
		return reason.Why{}
	}
	key, _, _ := strings.Cut(words, " ")
	code := reason.Limit
	if key == "stop_loss" || key == "take_profit" {
		code = reason.Stop
	}
	return reason.Why{Code: code, Limit: key, Scope: reason.ScopePlan, Text: words}
}

func limitRefusalWords(l plan.Limits, risk exposure, race RaceInfo, u usage, usedWords string) string {
	in := ""
	if u.Period != "" {
		in = " in " + periodWords(l.Period, u.Period)
	}
	t := u
	// Every amount was checked against plan.MaxBetAmount before the
	// create; this refuses what no comparison below could (NaN compares
	// false) whatever its origin.
	if math.IsNaN(risk.Amount) || math.IsInf(risk.Amount, 0) || risk.Amount < 0 {
		return fmt.Sprintf("this bet would put %v at risk (%s): not an amount of money", risk.Amount, risk.Basis)
	}
	// Once reached in the period, a stop stays: a later winner does not
	// undo a stop-loss, nor a later loser a take-profit.
	if l.StopLoss != nil && t.LowestProfit <= -*l.StopLoss+1e-9 {
		return fmt.Sprintf("stop_loss %s: the settled profit%s reached %s (it is %s now), at or below -%s; no new bet is created", usd(*l.StopLoss), in, signedUSD(t.LowestProfit), signedUSD(t.Profit), usd(*l.StopLoss))
	}
	// A loss cap holds before the results: every open bet, and this one,
	// may lose all they have at risk.
	if l.MaxLoss != nil {
		if worst := t.WorstCase() - risk.Amount; worst < -*l.MaxLoss-1e-9 {
			return fmt.Sprintf("max_loss %s%s: if every open bet and this one lost, the profit would be %s (settled %s, %s open at risk, this bet %s (%s)), below -%s", usd(*l.MaxLoss), in, signedUSD(roundCents(worst)), signedUSD(t.Profit), usd(t.OpenStake), usd(risk.Amount), risk.Basis, usd(*l.MaxLoss))
		}
	}
	if l.TakeProfit != nil && t.HighestProfit >= *l.TakeProfit-1e-9 {
		return fmt.Sprintf("take_profit %s: the settled profit%s reached %s (it is %s now), at or above it; no new bet is created", usd(*l.TakeProfit), in, signedUSD(t.HighestProfit), signedUSD(t.Profit))
	}
	if l.MaxStakePerBet != nil && risk.Amount > *l.MaxStakePerBet+1e-9 {
		return fmt.Sprintf("max_stake_per_bet %s: this bet puts %s at risk (%s)", usd(*l.MaxStakePerBet), usd(risk.Amount), risk.Basis)
	}
	raceWords := fmt.Sprintf("%s R%d", race.Venue, race.EventNumber)
	if race.Event != nil {
		raceWords = race.Event.Name
	}
	if d := meetingDate(race.Start); d != "" {
		raceWords += " of " + d
	}
	if l.MaxStakePerRace != nil && u.RaceStake+risk.Amount > *l.MaxStakePerRace+1e-9 {
		return fmt.Sprintf("max_stake_per_race %s on %s: %s at risk on it %s, this bet adds %s (%s)", usd(*l.MaxStakePerRace), raceWords, usd(u.RaceStake), usedWords, usd(risk.Amount), risk.Basis)
	}
	if l.MaxBetsPerRace != nil && u.RaceBets+1 > *l.MaxBetsPerRace {
		return fmt.Sprintf("max_bets_per_race %d on %s: %d %s on it %s", *l.MaxBetsPerRace, raceWords, u.RaceBets, plural(u.RaceBets, "bet", "bets"), usedWords)
	}
	if l.MaxTotalStake != nil && t.Staked+risk.Amount > *l.MaxTotalStake+1e-9 {
		return fmt.Sprintf("max_total_stake %s%s: %s at risk %s, this bet adds %s (%s)", usd(*l.MaxTotalStake), in, usd(t.Staked), usedWords, usd(risk.Amount), risk.Basis)
	}
	if l.MaxOpenStake != nil && t.OpenStake+risk.Amount > *l.MaxOpenStake+1e-9 {
		return fmt.Sprintf("max_open_stake %s%s: %s at risk on bets not resulted yet, this bet adds %s (%s)", usd(*l.MaxOpenStake), in, usd(t.OpenStake), usd(risk.Amount), risk.Basis)
	}
	if l.MaxBets != nil && t.Bets+1 > *l.MaxBets {
		return fmt.Sprintf("max_bets %d%s: %d %s %s", *l.MaxBets, in, t.Bets, plural(t.Bets, "bet", "bets"), usedWords)
	}
	return ""
}

func signedUSD(v float64) string {
	if v < 0 {
		return "-" + usd(-v)
	}
	return usd(v)
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
	t := u
	var parts []string
	if l.MaxStakePerBet != nil {
		parts = append(parts, "max_stake_per_bet "+usd(*l.MaxStakePerBet))
	}
	if l.MaxTotalStake != nil {
		parts = append(parts, fmt.Sprintf("max_total_stake %s (%s used)", usd(*l.MaxTotalStake), usd(t.Staked)))
	}
	if l.MaxOpenStake != nil {
		parts = append(parts, fmt.Sprintf("max_open_stake %s (%s open)", usd(*l.MaxOpenStake), usd(t.OpenStake)))
	}
	if l.MaxBets != nil {
		parts = append(parts, fmt.Sprintf("max_bets %d (%d used)", *l.MaxBets, t.Bets))
	}
	if l.MaxLoss != nil {
		parts = append(parts, fmt.Sprintf("max_loss %s (worst case %s)", usd(*l.MaxLoss), signedUSD(t.WorstCase())))
	}
	if l.StopLoss != nil {
		parts = append(parts, fmt.Sprintf("stop_loss %s (settled profit %s)", usd(*l.StopLoss), signedUSD(t.Profit)))
	}
	if l.TakeProfit != nil {
		parts = append(parts, fmt.Sprintf("take_profit %s (settled profit %s)", usd(*l.TakeProfit), signedUSD(t.Profit)))
	}
	if l.MaxStakePerRace != nil {
		parts = append(parts, "max_stake_per_race "+usd(*l.MaxStakePerRace))
	}
	if l.MaxBetsPerRace != nil {
		parts = append(parts, fmt.Sprintf("max_bets_per_race %d", *l.MaxBetsPerRace))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Limits for %s: %s.", periodWords(l.Period, u.Period), strings.Join(parts, ", "))
}

// ownRefusal returns why a bet would be refused whatever else the plan
// has at risk: what it puts at risk alone breaks a limit (max_stake_per_bet,
// or a total, open, race or loss limit smaller than it), or "". A bet
// still waiting for its condition is held to these now: it could never be
// created as things are.
func ownRefusal(l plan.Limits, risk exposure) string {
	a := risk.Amount
	switch {
	case l.MaxStakePerBet != nil && a > *l.MaxStakePerBet+1e-9:
		return fmt.Sprintf("max_stake_per_bet %s: this bet puts %s at risk (%s)", usd(*l.MaxStakePerBet), usd(a), risk.Basis)
	case l.MaxStakePerRace != nil && a > *l.MaxStakePerRace+1e-9:
		return fmt.Sprintf("max_stake_per_race %s: this bet alone puts %s at risk on its race (%s)", usd(*l.MaxStakePerRace), usd(a), risk.Basis)
	case l.MaxOpenStake != nil && a > *l.MaxOpenStake+1e-9:
		return fmt.Sprintf("max_open_stake %s: this bet alone puts %s at risk (%s)", usd(*l.MaxOpenStake), usd(a), risk.Basis)
	case l.MaxTotalStake != nil && a > *l.MaxTotalStake+1e-9:
		return fmt.Sprintf("max_total_stake %s: this bet alone puts %s at risk (%s)", usd(*l.MaxTotalStake), usd(a), risk.Basis)
	case l.MaxLoss != nil && a > *l.MaxLoss+1e-9:
		return fmt.Sprintf("max_loss %s: this bet alone may lose %s (%s)", usd(*l.MaxLoss), usd(a), risk.Basis)
	}
	return ""
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
