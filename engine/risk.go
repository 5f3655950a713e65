package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// Money at risk. A Fixed Wager stake is placed by each running session
// the notification reaches (service facts §2.1): $2 with two running
// sessions is $4 at risk. Every limit counts that amount, worked out here
// before a create from the sessions that can place the bet, and after it
// from what the sessions accepted (ledger.go).

// sessionsRead are the bookmaker sessions as the run last read them, and
// when: what a bet's exposure is worked out from. The resolver reads
// them; the money works exposures out of them.
type sessionsRead struct {
	sessions   []apiclient.Session
	sessionsAt time.Time
}

// stakeTerms are what decides a bet's exposure: what it can lose on a
// session (its type, whether it lays, its odds bounds), whom it targets
// and whether its stake is the total.
type stakeTerms struct {
	risk          plan.RiskTerms
	targetSession string // one id, or ids joined by ","
	targetBot     string
	total         bool // ensure_total_wager on a Fixed Wager
}

// betTerms are a plan bet's terms.
func betTerms(b *plan.Bet) stakeTerms {
	t := stakeTerms{risk: b.RiskTerms(), targetSession: b.TargetSession, total: b.StakeIsTotal()}
	t.targetBot, _ = b.Options["target_bot"].(string)
	return t
}

// notificationTerms are the terms a notification was created with, as
// the service echoes them (for bets found by label, not created by us).
func notificationTerms(n *apiclient.Notification) stakeTerms {
	t := stakeTerms{risk: plan.RiskTerms{Type: n.Type, Lay: plan.IsLayMarket(n.Tip.Market)},
		targetSession: string(n.TargetSession), targetBot: string(n.TargetBot),
		total: bool(n.EnsureTotalWager) && strings.EqualFold(n.Type, plan.TypeFixedWager)}
	if n.CheckOdds {
		t.risk.OddsFloor = float64(n.Tip.Odds)
	}
	if n.CheckMaxOdds {
		t.risk.OddsCap = float64(n.MaxOdds)
	}
	return t
}

// placers are the sessions that can place a bet with terms t now: the
// targeted ones whose bot runs (every session when it targets none).
func placers(sessions []apiclient.Session, t stakeTerms) []string {
	var on []string
	for _, s := range sessions {
		id := strconv.FormatInt(int64(s.ID), 10)
		if t.targetSession != "" && !listed(t.targetSession, id) {
			continue
		}
		if t.targetBot != "" && string(s.BotID) != t.targetBot {
			continue
		}
		if !s.BotRunning {
			continue
		}
		name := s.DisplayName
		if name == "" {
			name = id
		}
		on = append(on, name)
	}
	return on
}

func listed(list, id string) bool {
	for _, x := range strings.Split(list, ",") {
		if strings.TrimSpace(x) == id {
			return true
		}
	}
	return false
}

// exposureOf works out what amount (the bet's stake or target profit)
// puts at risk with the sessions as they are now.
func exposureOf(sessions []apiclient.Session, t stakeTerms, amount float64) exposure {
	if amount <= 0 {
		return exposure{}
	}
	risk := plan.RiskOf(t.risk, amount)
	if t.total {
		if risk.Lay && risk.Bounded {
			return exposure{Amount: roundCents(risk.PerSession), Basis: fmt.Sprintf("%s in all, split across the sessions (ensure_total_wager): %s", usd(risk.PerSession), layWords(t.risk, amount, risk))}
		}
		return exposure{Amount: roundCents(amount), Basis: fmt.Sprintf("%s in all, split across the sessions (ensure_total_wager)", usd(amount))}
	}
	perSession, what := risk.PerSession, ""
	switch {
	case risk.Lay:
		what = layWords(t.risk, amount, risk) + " a session"
	case plan.AmountFieldFor(t.risk.Type) != plan.AmountTargetProfit:
	case risk.Bounded:
		what = fmt.Sprintf("%s a session at most (%s profit at odds of at least %s)", usd(perSession), usd(amount), oddsWords(t.risk.OddsFloor))
	default:
		what = fmt.Sprintf("%s a session (the target profit counted as the stake: without check_odds the stake has no bound)", usd(amount))
	}
	names := placers(sessions, t)
	n := len(names)
	var who string
	switch {
	case n == 0:
		// Nothing would be placed now (run refuses that unless
		// --allow-no-bot); a bet is never counted as free.
		n = 1
		who = "no targeted session has a running bot now: counted as one"
	case t.targetSession != "" && !strings.Contains(t.targetSession, ","):
		who = fmt.Sprintf("the target session %s (%s)", t.targetSession, names[0])
	default:
		who = fmt.Sprintf("%d %s with a running bot (%s)", n, plural(n, "session", "sessions"), strings.Join(names, ", "))
	}
	if what == "" {
		what = usd(perSession)
	}
	return exposure{Amount: roundCents(perSession * float64(n)), Basis: fmt.Sprintf("%s × %d: %s", what, n, who)}
}

// layWords says what a lay of amount can lose before it is placed: "a
// lay of $20.00 at odds up to 8 can lose $140.00", or, with no odds cap,
// that its stake is what counts until the sessions place it.
func layWords(t plan.RiskTerms, amount float64, risk plan.Risk) string {
	of := usd(amount)
	if plan.AmountFieldFor(t.Type) == plan.AmountTargetProfit {
		of += " target profit"
	}
	if !risk.Bounded {
		return fmt.Sprintf("a lay of %s with no max_odds (check_max_odds is off): it can lose %s × (odds − 1) with no bound, counted at %s until it is placed", of, usd(amount), usd(risk.PerSession))
	}
	return fmt.Sprintf("a lay of %s at odds up to %s can lose %s", of, oddsWords(t.OddsCap), usd(risk.PerSession))
}

func oddsWords(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

type exposureKey struct {
	terms    stakeTerms
	amount   float64
	sessions time.Time // when the sessions were read
}

func usd(v float64) string { return fmt.Sprintf("$%.2f", v) }
