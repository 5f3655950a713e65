package plan

import (
	"math"
	"testing"

	exprparser "github.com/expr-lang/expr/parser"
)

func TestAmountRange(t *testing.T) {
	vars := map[string]any{"unit": 10, "share": 0.5, "name": "x"}
	inf := math.Inf(1)
	for _, tt := range []struct {
		src    string
		hi     float64
		folded bool
	}{
		{"vars.unit * 3", 30, true},
		{"vars.unit * vars.share + 1", 6, true},
		{"min(vars.unit, 4)", 4, true},
		{"total_balance(sessions) / 100", inf, false},
		{"clamp(total_balance(sessions) / 100, 1, 8)", 8, false},
		{"min(total_balance(sessions) / 100, 5)", 5, false},
		{"max(total_balance(sessions) / 100, 5)", inf, false},
		{"round(min(plan.staked, 7.456), 2)", 7.46, false},
		{"floor(min(sessions[0].balance, 9.9))", 9, false},
		{"vars.unit - plan.staked", 10, false},
		{"vars.unit + plan.profit", inf, false},
		{"plan.bets > 2 ? 3 : vars.unit", 10, false},
		{"vars.unit / (plan.staked - 1)", inf, false},
		{"race.minutes_to_start < 5 ? 2 : 4", 4, false},
		{"now().Hour() > 12 ? 1 : 2", 2, false},
	} {
		tree, err := exprparser.Parse(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := amountMax(tree.Node, vars); got != tt.hi {
			t.Errorf("%s: the most it gives is %v, want %v", tt.src, got, tt.hi)
		}
		if got := offlineOnly(tree.Node); got != tt.folded {
			t.Errorf("%s: known offline %v, want %v", tt.src, got, tt.folded)
		}
	}
}

func TestRiskOf(t *testing.T) {
	for _, tt := range []struct {
		typ        string
		amount     float64
		floor      float64
		perSession float64
		bounded    bool
	}{
		{TypeFixedWager, 10, 0, 10, true},
		{TypeHighOddsFirst, 10, 3, 10, true},
		{TypeFixedProfit, 15, 2.5, 10, true},
		{TypeFixedProfit, 15, 1.5, 30, true},
		{TypeFixedProfit, 10, 4, 3.34, true}, // 3.333… rounded up: never under the stake
		{TypeFixedProfit, 15, 0, 15, false},
		{TypeFixedProfit, 15, 1, 15, false},
	} {
		r := RiskOf(tt.typ, tt.amount, tt.floor)
		if r.PerSession != tt.perSession || r.Bounded != tt.bounded {
			t.Errorf("%s %v at odds %v: got %+v, want %v bounded %v", tt.typ, tt.amount, tt.floor, r, tt.perSession, tt.bounded)
		}
	}
}

func TestWorstCaseCountsAmountsKnownOffline(t *testing.T) {
	src := `version: 1
name: worst
vars: {unit: 10}
limits: {max_stake_per_bet: 30, max_total_stake: 100, max_bets: 5}
defaults: {market: Fixed Win, race: {venue: Flemington, code: Galloping, event_number: 8}}
bets:
  - {id: a, selection: "1", type: Fixed Wager, stake: vars.unit * 2}
  - {id: b, selection: "2", type: Fixed Profit, target_profit: 15, options: {check_odds: true, odds: 2.5}}
  - {id: c, selection: "3", type: Fixed Wager, stake: "clamp(total_balance(sessions) / 100, 1, 8)"}
`
	p, diags := Parse("worst.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	w := worstCase(p)
	if w.StaticTotal != 30 || w.MaxStatic != 20 || w.ExprAmounts != 1 {
		t.Errorf("static total %v, largest %v, run-time %d; want 30 (20 + 15/1.5), 20, 1", w.StaticTotal, w.MaxStatic, w.ExprAmounts)
	}
	if w.Limits[0].Binds {
		t.Errorf("max_stake_per_bet $30 binds (%s): the run-time stake is at most $8", w.Limits[0].Why)
	}
}
