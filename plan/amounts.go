package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/limit"
)

// What an amount is known to be before the run. An amount written as a
// number, or as an expression of the plan's vars and literals only
// (`vars.unit * 3`), is the same on every run: validate, plan and diff
// hold it to the limits like a literal. An amount that reads run-time
// values (odds, balances, the plan's totals) is known only when the run
// evaluates it; its range, worked out here from what each value can be,
// says whether it can break a limit.

// offlineOnly reports whether the expression tree reads nothing of the
// run: no name of the environment but vars, no call of now.
func offlineOnly(tree ast.Node) bool {
	ok := true
	ast.Find(tree, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IdentifierNode:
			switch x.Value {
			case "race", "event", "now", "sessions", "plan", "bets":
				ok = false
			}
		case *ast.CallNode, *ast.BuiltinNode:
			if name, _ := callOf(n); name == "now" || name == "date" || name == "timezone" {
				ok = false
			}
		}
		return !ok
	})
	return ok
}

// foldAmount evaluates an expression amount that reads only the plan's
// vars, as the run would evaluate it (rounded down to cents). ok is
// false when the amount depends on the run; err says why an offline
// amount can never be evaluated.
func foldAmount(e *Expr, tree ast.Node, field AmountField, vars map[string]any) (v float64, ok bool, err error) {
	if e == nil || tree == nil || !offlineOnly(tree) {
		return 0, false, nil
	}
	b := &Bet{Type: TypeFixedWager, Stake: &Amount{Expr: e}}
	if field == AmountTargetProfit {
		b = &Bet{Type: TypeFixedProfit, TargetProfit: &Amount{Expr: e}}
	}
	v, err = b.Amount(&Env{Vars: vars})
	return v, err == nil, err
}

// Risk is what one bet can lose on one session before it is placed, as
// far as it is known: for Fixed Wager and High Odds First the stake
// (with ensure_total_wager, the total); for Fixed Profit the stake that
// makes target_profit at the lowest odds check_odds lets the sessions
// take, target_profit / (odds − 1), rounded up to cents. Without such a
// floor a Fixed Profit stake has no bound before the sessions place it:
// Bounded is false, and PerSession is the target profit, the figure the
// run counts until the sessions say what they staked.
//
// A lay (Lay Win, Lay Place) loses its liability when the runner wins.
// The service does not say whether a lay's stake (or target profit) is
// the backer's stake or the liability, so the larger reading counts:
// the amount × max(1, cap − 1), where the cap is max_odds with
// check_max_odds on, rounded up to cents. Without a cap a lay can lose
// without bound: Bounded is false, and PerSession is its amount, the
// least it can lose and what the run counts until the sessions place it
// (then the book counts its liability at the odds they took).
type Risk struct {
	PerSession float64
	Bounded    bool
	// Lay marks a lay's risk: its liability at the odds cap (or, not
	// Bounded, its amount).
	Lay bool
}

// RiskTerms are the terms of a bet that decide what it can lose before
// it is placed.
type RiskTerms struct {
	Type string
	// Lay marks a lay market: what the bet can lose is its liability.
	Lay bool
	// OddsFloor is the lowest odds its sessions may take (check_odds), 0
	// for none; OddsCap the highest (check_max_odds), 0 for none.
	OddsFloor, OddsCap float64
}

// RiskOf is the risk of amount on a bet with terms t. Every count of a
// bet's risk before its placement, validate's, plan's, diff's and the
// run's limit checks, goes through it.
func RiskOf(t RiskTerms, amount float64) Risk {
	if t.Lay {
		if t.OddsCap <= 1 {
			return Risk{PerSession: amount, Lay: true}
		}
		return Risk{PerSession: ceilCents(amount * max(1, t.OddsCap-1)), Bounded: true, Lay: true}
	}
	if AmountFieldFor(t.Type) != AmountTargetProfit {
		return Risk{PerSession: amount, Bounded: true}
	}
	if t.OddsFloor > 1 {
		return Risk{PerSession: ceilCents(amount / (t.OddsFloor - 1)), Bounded: true}
	}
	return Risk{PerSession: amount}
}

// ceilCents rounds v up to whole cents (a product or quotient of cents
// that is a whole number of cents stays it).
func ceilCents(v float64) float64 { return math.Ceil(v*100-1e-6) / 100 }

// RiskTerms are the bet's terms that decide what it can lose.
func (b *Bet) RiskTerms() RiskTerms {
	return RiskTerms{Type: b.Type, Lay: IsLayMarket(b.Market), OddsFloor: b.OddsFloor(), OddsCap: b.OddsCap()}
}

// OddsFloor is the lowest odds a bet's sessions may take: options.odds
// when options.check_odds is on, else 0.
func (b *Bet) OddsFloor() float64 { return b.oddsOption("check_odds", "odds") }

// OddsCap is the highest odds a bet's sessions may take: options.max_odds
// when options.check_max_odds is on, else 0.
func (b *Bet) OddsCap() float64 { return b.oddsOption("check_max_odds", "max_odds") }

func (b *Bet) oddsOption(check, key string) float64 {
	if on, _ := b.Options[check].(bool); !on {
		return 0
	}
	switch x := b.Options[key].(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// LayWithoutCap reports whether the bet lays a runner with no odds cap:
// what it can lose, stake × (odds − 1), has no bound before it is placed.
func (b *Bet) LayWithoutCap() bool {
	t := b.RiskTerms()
	return t.Lay && t.OddsCap <= 1
}

// KnownRisk is what the bet puts at risk on one session when that is
// known offline: a known amount and its terms.
func (b *Bet) KnownRisk() (Risk, bool) {
	a, ok := b.StaticAmount()
	if !ok {
		return Risk{}, false
	}
	return RiskOf(b.RiskTerms(), a), true
}

// AmountBound is the largest value the bet's amount can take on a run,
// capped at MaxBetAmount (the run refuses more); math.Inf(1) when nothing
// bounds it but that cap. For a known amount it is the amount.
func (b *Bet) AmountBound() float64 {
	a := b.amount()
	if a == nil {
		return 0
	}
	if a.Expr == nil || a.Known {
		return a.Value
	}
	return a.Max
}

// interval is a range of values an expression can give.
type interval struct{ lo, hi float64 }

var anyValue = interval{math.Inf(-1), math.Inf(1)}

func point(v float64) interval { return interval{v, v} }

// nonNegative are the run-time values that are never below 0 (and odds,
// never below 1), by their path or, inside a list, their field.
var nonNegative = map[string]float64{
	"plan.staked": 0, "plan.open_stake": 0, "plan.bets": 0, "plan.settled": 0, "plan.won": 0, "plan.lost": 0,
	"race.event_number": 1, "event.selection.odds": 1,
	// fields of a session, a bet or a selection read through an index or a closure
	"balance": 0, "bonus_balance": 0, "amount": 0, "accepted": 0, "average_odds": 0, "odds": 1,
}

// rangeOf is the range of values the amount expression n can give on a
// run, counting every run-time value at its widest.
func rangeOf(n ast.Node, vars map[string]any) interval {
	if name, ok := varName(n); ok {
		switch v := vars[name].(type) {
		case float64:
			return point(v)
		case int:
			return point(float64(v))
		}
		return anyValue
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		return point(float64(x.Value))
	case *ast.FloatNode:
		return point(x.Value)
	case *ast.MemberNode:
		if lo, ok := nonNegative[memberPath(x)]; ok {
			return interval{lo, math.Inf(1)}
		}
		if s, ok := x.Property.(*ast.StringNode); ok && !x.Method && !strings.Contains(memberPath(x), ".") {
			if lo, ok := nonNegative[s.Value]; ok {
				return interval{lo, math.Inf(1)}
			}
		}
	case *ast.ChainNode:
		return rangeOf(x.Node, vars)
	case *ast.UnaryNode:
		v := rangeOf(x.Node, vars)
		switch x.Operator {
		case "-":
			return interval{-v.hi, -v.lo}
		case "+":
			return v
		}
	case *ast.BinaryNode:
		l, r := rangeOf(x.Left, vars), rangeOf(x.Right, vars)
		switch x.Operator {
		case "+":
			return interval{l.lo + r.lo, l.hi + r.hi}
		case "-":
			return interval{l.lo - r.hi, l.hi - r.lo}
		case "*":
			return span(mul(l.lo, r.lo), mul(l.lo, r.hi), mul(l.hi, r.lo), mul(l.hi, r.hi))
		case "/":
			if r.lo <= 0 && r.hi >= 0 {
				return anyValue
			}
			return span(l.lo/r.lo, l.lo/r.hi, l.hi/r.lo, l.hi/r.hi)
		}
	case *ast.ConditionalNode:
		a, b := rangeOf(x.Exp1, vars), rangeOf(x.Exp2, vars)
		return interval{math.Min(a.lo, b.lo), math.Max(a.hi, b.hi)}
	case *ast.CallNode, *ast.BuiltinNode:
		return callRange(n, vars)
	}
	return anyValue
}

// callRange is the range of a call of a function whose result grows with
// its arguments (min, max, clamp, floor, ceil, round) or is never below 0.
func callRange(n ast.Node, vars map[string]any) interval {
	name, args := callOf(n)
	rs := make([]interval, len(args))
	for i, a := range args {
		rs[i] = rangeOf(a, vars)
	}
	switch {
	case (name == "min" || name == "max") && len(rs) > 0:
		out := rs[0]
		for _, r := range rs[1:] {
			if name == "min" {
				out = interval{math.Min(out.lo, r.lo), math.Min(out.hi, r.hi)}
			} else {
				out = interval{math.Max(out.lo, r.lo), math.Max(out.hi, r.hi)}
			}
		}
		return out
	case name == "clamp" && len(rs) == 3:
		c := func(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }
		return interval{c(rs[0].lo, rs[1].lo, rs[2].lo), c(rs[0].hi, rs[1].hi, rs[2].hi)}
	case name == "floor" && len(rs) == 1:
		return interval{math.Floor(rs[0].lo), math.Floor(rs[0].hi)}
	case name == "ceil" && len(rs) == 1:
		return interval{math.Ceil(rs[0].lo), math.Ceil(rs[0].hi)}
	case name == "round" && len(rs) == 2:
		places, ok := args[1].(*ast.IntegerNode)
		if !ok || places.Value < 0 || places.Value > 10 {
			return anyValue
		}
		f := math.Pow10(places.Value)
		return interval{math.Round(rs[0].lo*f) / f, math.Round(rs[0].hi*f) / f}
	case name == "abs" && len(rs) == 1:
		lo := 0.0
		if rs[0].lo > 0 || rs[0].hi < 0 {
			lo = math.Min(math.Abs(rs[0].lo), math.Abs(rs[0].hi))
		}
		return interval{lo, math.Max(math.Abs(rs[0].lo), math.Abs(rs[0].hi))}
	case name == "total_balance" || name == "total_bonus_balance" || name == "len":
		return interval{0, math.Inf(1)}
	}
	return anyValue
}

// mul multiplies two ends of ranges, where 0 times an unbounded end is 0.
func mul(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return a * b
}

func span(vs ...float64) interval {
	out := interval{math.Inf(1), math.Inf(-1)}
	for _, v := range vs {
		if math.IsNaN(v) {
			return anyValue
		}
		out.lo, out.hi = math.Min(out.lo, v), math.Max(out.hi, v)
	}
	return out
}

// amountMax is the most a run-time amount expression can give, in whole
// cents as the run rounds it, capped at MaxBetAmount.
func amountMax(tree ast.Node, vars map[string]any) float64 {
	hi := rangeOf(tree, vars).hi
	if math.IsNaN(hi) || hi >= MaxBetAmount {
		return math.Inf(1)
	}
	return math.Floor(hi*100+1e-6) / 100
}

// checkBetRisk holds one bet's amount, when it is known offline, to the
// limits that cap one bet's own risk (max_stake_per_bet, max_loss:
// betCaps), counting what it can lose on one session (the run counts
// every session that can place it): an error at the amount. A bet that
// alone can lose more than one of them is refused by every run, whatever
// else is at risk.
func (p *parser) checkBetRisk(b *Bet, a *Amount, name, at string) {
	l := p.plan.Limits
	if a.Value <= 0 || (a.Expr != nil && !a.Known) {
		return
	}
	r := RiskOf(b.RiskTerms(), a.Value)
	if most, perBet := l.Set.Get(limit.MaxStakePerBet); !r.Bounded && !r.Lay && perBet && r.PerSession > most.Dollars+1e-9 {
		p.d.errorf(p.at(at), "%s is Fixed Profit without check_odds: its stake is known only when the sessions place it, and until then the run counts its target_profit %s as the stake, above limits.max_stake_per_bet (%s), so the run would refuse it; set options.check_odds and options.odds to bound the stake",
			name, money(a.Value), money(most.Dollars))
		return
	}
	if !r.Bounded && !r.Lay {
		// A limit of the money at risk (not a stop, which counts profit)
		// cannot hold a stake no one knows.
		if l.CapsMoney() {
			p.d.warnf(p.at(at), "%s is Fixed Profit without check_odds: what it stakes (target_profit / (odds − 1)) is known only when the sessions place it, so no limit bounds it beforehand (the run counts the target profit $%s as the stake until then); set options.check_odds and options.odds to hold it to limits.max_stake_per_bet and the others",
				name, money(a.Value))
		}
		return
	}
	if !r.Bounded {
		return // a lay without a cap: checkLayCap says so
	}
	if msg := overBetCaps(name, b, a, r, l, "limits."); msg != "" {
		p.d.errorf(p.at(at), "%s", msg)
	}
}

// betCaps are the kinds validate holds each bet's own risk to at its
// amount (checkBetRisk, CheckAccountLimits). The others a bet alone can
// break are held by their own analysis: max_open_stake and
// max_stake_per_race at the limit by the largest bet, max_total_stake by
// the sum of the bets certain to be created (checkStaticLimits).
var betCaps = []*limit.Kind{limit.MaxStakePerBet, limit.MaxLoss}

// overBetCaps says how bet name's risk r on one session (its amount a)
// breaks, alone, the first of l's betCaps the run's gate checks (as
// limit.Set.Alone names one of several); "" when none. prefix says where
// the limits are written: "limits.", or "betplan.yaml limits.".
func overBetCaps(name string, b *Bet, a *Amount, r Risk, l Limits, prefix string) string {
	for _, k := range limit.Checked() {
		v, set := l.Set.Get(k)
		if !set || !slices.Contains(betCaps, k) || k.Alone(v, &limit.Check{Risk: r.PerSession}) == "" {
			continue
		}
		return overBetLimit(name, b, a, r, prefix+k.Key, v.Dollars, k.Span != limit.PerBet)
	}
	return ""
}

// overBetLimit says how bet name's risk r on one session (its amount a)
// is above most, a cap on what one bet may put at risk or, loss, on what
// the period may lose (key names it: "limits.max_loss"); "" when it is
// not.
func overBetLimit(name string, b *Bet, a *Amount, r Risk, key string, most float64, loss bool) string {
	if r.PerSession <= most+1e-9 {
		return ""
	}
	if !r.Lay && !loss && b.AmountField() == AmountStake {
		return fmt.Sprintf("%s: %s %s is above %s (%s)", name, b.AmountField(), amountWords(a), key, money(most))
	}
	return fmt.Sprintf("%s: %s, above %s (%s)", name, riskWords(b, a, r), key, money(most))
}

// riskWords says what a bet can lose on one session and why: "a lay of
// stake 20 at odds up to 8 can lose $140 on each session".
func riskWords(b *Bet, a *Amount, r Risk) string {
	switch {
	case r.Lay:
		how := ""
		if b.OddsCap() > 2 {
			how = fmt.Sprintf(" (%s × (max_odds − 1))", b.AmountField())
		}
		return fmt.Sprintf("a lay of %s %s at odds up to %s can lose $%s on each session%s",
			b.AmountField(), amountWords(a), odds(b.OddsCap()), money(r.PerSession), how)
	case b.AmountField() == AmountTargetProfit:
		return fmt.Sprintf("target_profit %s at odds of at least %s stakes $%s on each session", amountWords(a), odds(b.OddsFloor()), money(r.PerSession))
	}
	return fmt.Sprintf("%s %s can lose $%s on each session", b.AmountField(), amountWords(a), money(r.PerSession))
}

func odds(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// checkLayCap refuses, when the plan caps its money, a lay with no odds
// cap: what it can lose, stake × (odds − 1), has no bound before it is
// placed, so no limit could hold it. An error at the bet (n).
func (p *parser) checkLayCap(b *Bet, n *yaml.Node, name string) {
	if !b.LayWithoutCap() || !p.plan.Limits.CapsMoney() {
		return
	}
	p.d.errorf(n, "%s", layWithoutCapWords(name, b, p.plan.Limits, "limits."))
}

// layWithoutCapWords says why a lay without check_max_odds cannot be held
// to the money limits of l (the plan's, or an account file's: prefix
// names them, "limits." or "betplan.yaml limits.").
func layWithoutCapWords(name string, b *Bet, l Limits, prefix string) string {
	keys := l.moneyKeys()
	for i, k := range keys {
		keys[i] = prefix + k
	}
	return fmt.Sprintf("%s lays (%s) without options.check_max_odds: it can lose %s × (odds − 1), with no bound before it is placed, so no money limit can hold it (%s); set options.check_max_odds: true and options.max_odds (the limits then count %s × (max_odds − 1) on each session)",
		name, b.Market, b.AmountField(), strings.Join(keys, ", "), b.AmountField())
}
