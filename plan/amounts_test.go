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
		name       string
		terms      RiskTerms
		amount     float64
		perSession float64
		bounded    bool
	}{
		{"a stake", RiskTerms{Type: TypeFixedWager}, 10, 10, true},
		{"a stake, whatever its odds floor", RiskTerms{Type: TypeHighOddsFirst, OddsFloor: 3}, 10, 10, true},
		{"a target profit at odds of at least 2.5", RiskTerms{Type: TypeFixedProfit, OddsFloor: 2.5}, 15, 10, true},
		{"a target profit at odds of at least 1.5", RiskTerms{Type: TypeFixedProfit, OddsFloor: 1.5}, 15, 30, true},
		{"rounded up: never under the stake", RiskTerms{Type: TypeFixedProfit, OddsFloor: 4}, 10, 3.34, true},
		{"a target profit with no floor", RiskTerms{Type: TypeFixedProfit}, 15, 15, false},
		{"a target profit with a floor of 1", RiskTerms{Type: TypeFixedProfit, OddsFloor: 1}, 15, 15, false},
		// A lay loses its liability: the amount × (cap − 1), never less
		// than the amount.
		{"a lay at odds up to 8", RiskTerms{Type: TypeFixedWager, Lay: true, OddsCap: 8}, 20, 140, true},
		{"a lay at odds up to 3.55", RiskTerms{Type: TypeFixedWager, Lay: true, OddsCap: 3.55}, 20, 51, true},
		{"a lay at odds up to 1.5: its stake", RiskTerms{Type: TypeFixedWager, Lay: true, OddsCap: 1.5}, 20, 20, true},
		{"a lay's cap, not the back floor", RiskTerms{Type: TypeFixedWager, Lay: true, OddsFloor: 3, OddsCap: 5}, 10, 40, true},
		{"a High Odds First lay", RiskTerms{Type: TypeHighOddsFirst, Lay: true, OddsCap: 6}, 10, 50, true},
		{"a Fixed Profit lay: the target × (cap − 1)", RiskTerms{Type: TypeFixedProfit, Lay: true, OddsFloor: 2.5, OddsCap: 8}, 15, 105, true},
		{"rounded up to cents", RiskTerms{Type: TypeFixedWager, Lay: true, OddsCap: 2.333}, 10.01, 13.35, true},
		{"a lay without a cap: its stake, no bound", RiskTerms{Type: TypeFixedWager, Lay: true}, 20, 20, false},
		{"a Fixed Profit lay without a cap", RiskTerms{Type: TypeFixedProfit, Lay: true, OddsFloor: 2}, 15, 15, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := RiskOf(tt.terms, tt.amount)
			if r.PerSession != tt.perSession || r.Bounded != tt.bounded || r.Lay != tt.terms.Lay {
				t.Errorf("%+v of %v: got %+v, want %v bounded %v", tt.terms, tt.amount, r, tt.perSession, tt.bounded)
			}
		})
	}
}

// TestKnownRiskReadsTheBetsTerms: a bet's market and options are the
// terms RiskOf counts: a Lay Win with check_max_odds counts its
// liability at max_odds; max_odds without its switch caps nothing.
func TestKnownRiskReadsTheBetsTerms(t *testing.T) {
	src := `version: 1
name: lays
defaults: {type: Fixed Wager, stake: 20, race: {venue: Flemington, code: Galloping, event_number: 8}}
bets:
  - {id: back, selection: "1", market: Fixed Win, options: {check_max_odds: true, max_odds: 8}}
  - {id: lay, selection: "2", market: Lay Win, options: {check_max_odds: true, max_odds: 8}}
  - {id: place, selection: "3", market: Lay Place, options: {check_max_odds: true, max_odds: 4.5}}
  - {id: open, selection: "4", market: Lay Win, options: {max_odds: 8}}
`
	p, diags := Parse("lays.yaml", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]Risk{
		"back":  {PerSession: 20, Bounded: true},
		"lay":   {PerSession: 140, Bounded: true, Lay: true},
		"place": {PerSession: 70, Bounded: true, Lay: true},
		"open":  {PerSession: 20, Lay: true},
	}
	for _, b := range p.Bets {
		r, known := b.KnownRisk()
		if !known || r != want[b.ID] {
			t.Errorf("bet %s: %+v (known %v), want %+v", b.ID, r, known, want[b.ID])
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
