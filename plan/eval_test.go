package plan_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/betplan/betplan/plan"
)

const evalPlan = `version: 1
name: eval
vars: {unit: 5, fraction: 0.01}
limits: {max_stake_per_bet: 20, max_total_stake: 100, max_bets: 10}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: static
    race: {venue: Flemington, code: Galloping, event_number: 4}
    selection: "3"
    stake: 10
    when: race.minutes_to_start <= 10 && race.minutes_to_start > 1
  - id: units
    race: {venue: Flemington, code: Galloping, event_number: 5}
    selection: "3"
    stake: vars.unit * 2.333
  - id: bankroll
    for_each_race: race.code == "Greyhounds" && race.venue == "The Meadows"
    selection: "1"
    stake: clamp(round(total_balance(running(sessions)) * vars.fraction, 2), 1, 20)
  - id: profit
    race: {venue: Randwick, code: Galloping, event_number: 1}
    selection: "2"
    type: Fixed Profit
    target_profit: 15
  - id: negative
    race: {venue: Randwick, code: Galloping, event_number: 2}
    selection: "2"
    stake: vars.unit - 10 + plan.staked # plan.staked is 0: -5 on the run
`

func loadEval(t *testing.T) map[string]*plan.Bet {
	t.Helper()
	p, diags := plan.Parse("eval.yaml", []byte(evalPlan))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	bets := map[string]*plan.Bet{}
	for _, b := range p.Bets {
		bets[b.ID] = b
	}
	return bets
}

func env(minutes float64, venue, code string) *plan.Env {
	return &plan.Env{
		Race: plan.RaceEnv{Venue: venue, Code: code, EventNumber: 4, MinutesToStart: minutes},
		Now:  time.Date(2026, 3, 7, 13, 0, 0, 0, time.UTC),
		Vars: map[string]any{"unit": 5, "fraction": 0.01},
		Sessions: []plan.SessionEnv{
			{ID: "1", Balance: 1000, BotRunning: true},
			{ID: "2", Balance: 234.56, BotRunning: true},
			{ID: "3", Balance: 5000, BotRunning: false},
		},
	}
}

func TestReady(t *testing.T) {
	bets := loadEval(t)
	tests := []struct {
		minutes float64
		want    bool
	}{{30, false}, {10, true}, {5, true}, {1, false}, {0.5, false}}
	for _, tt := range tests {
		got, err := bets["static"].Ready(env(tt.minutes, "Flemington", "Galloping"))
		must(t, err)
		equal(t, tt.want, got, "minutes ", tt.minutes)
	}
	got, err := bets["units"].Ready(nil)
	must(t, err)
	equal(t, true, got, "no when: always ready")
}

func TestMatches(t *testing.T) {
	bets := loadEval(t)
	for _, tt := range []struct {
		venue, code string
		want        bool
	}{{"The Meadows", "Greyhounds", true}, {"Sandown Park", "Greyhounds", false}, {"The Meadows", "Harness", false}} {
		got, err := bets["bankroll"].Matches(env(3, tt.venue, tt.code))
		must(t, err)
		equal(t, tt.want, got, tt.venue, " ", tt.code)
	}
	got, err := bets["static"].Matches(env(3, "X", "Y"))
	must(t, err)
	equal(t, true, got, "a bet on a named race matches")
}

func TestAmount(t *testing.T) {
	bets := loadEval(t)
	e := env(3, "The Meadows", "Greyhounds")
	for _, tt := range []struct {
		id    string
		field plan.AmountField
		want  float64
	}{
		{"static", "stake", 10},
		{"units", "stake", 11.66},    // 11.665 rounded down to cents
		{"bankroll", "stake", 12.35}, // 1% of 1234.56, rounded, within 1..20
		{"profit", "target_profit", 15},
	} {
		got, err := bets[tt.id].Amount(e)
		must(t, err)
		equal(t, tt.want, got, tt.id)
		equal(t, tt.field, bets[tt.id].AmountField(), tt.id)
	}
	_, err := bets["negative"].Amount(e)
	check(t, err != nil && strings.Contains(err.Error(), "at least $0.01"), "negative amount: %v", err)
}

func TestAmountRunsConcurrently(t *testing.T) {
	b := loadEval(t)["bankroll"]
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if v, err := b.Amount(env(3, "The Meadows", "Greyhounds")); err != nil || v != 12.35 {
					t.Errorf("got %v, %v", v, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestCheckBet(t *testing.T) {
	p, _ := plan.Parse("eval.yaml", []byte(evalPlan))
	must(t, p.Limits.CheckBet(20))
	err := p.Limits.CheckBet(20.01)
	check(t, err != nil, "want an error above the limit")
	equal(t, "amount $20.01 is above limits.max_stake_per_bet ($20)", err.Error())
	must(t, plan.Limits{}.CheckBet(1e6))
}

func TestExplain(t *testing.T) {
	bets := loadEval(t)
	e := env(0.5, "Flemington", "Galloping")
	equal(t, "race.minutes_to_start = 0.5", bets["static"].When.Explain(e))
	equal(t, "vars.unit = 5", bets["units"].Stake.Expr.Explain(e))
	equal(t, "sessions = 3 sessions, vars.fraction = 0.01", bets["bankroll"].Stake.Expr.Explain(e))
	equal(t, `race.code = "Galloping", race.venue = "Flemington"`, bets["bankroll"].ForEachRace.Explain(e))
}

func TestPlanFields(t *testing.T) {
	p, diags := plan.Parse("eval.yaml", []byte(evalPlan))
	check(t, !diags.HasErrors(), "%s", diags.Error())
	check(t, strings.HasPrefix(p.Hash, "sha256:") && len(p.Hash) == 71, "hash %q", p.Hash)
	equal(t, 30*time.Second, p.Poll.Interval)
	equal(t, 3*time.Hour, p.Poll.Timeout)
	equal(t, "Fixed Win", p.Defaults.Market)
	b := p.Bets[0]
	equal(t, []any{"static", "Fixed Wager", "Fixed Win", "3", 7, 5}, []any{b.ID, b.Type, b.Market, b.Selection, b.Line, b.Column})
	equal(t, &plan.RaceRef{Venue: "Flemington", Code: "Galloping", EventNumber: 4}, b.Race)
	check(t, p.Bets[2].Race == nil && p.Bets[2].ForEachRace != nil, "for_each_race bet has no race")
	check(t, p.Bets[3].Stake == nil && p.Bets[3].TargetProfit != nil, "Fixed Profit has only target_profit")
}

func TestWriteJSON(t *testing.T) {
	diags := plan.Diagnostics{
		{Severity: plan.SeverityError, Summary: "stake must be more than 0, got -5", Filename: "p.yaml", Line: 9, Column: 12, EndLine: 9, EndColumn: 14},
		{Severity: plan.SeverityWarning, Summary: "no limits", Filename: "p.yaml", Line: 2, Column: 7},
	}
	var buf bytes.Buffer
	must(t, plan.WriteJSON(&buf, diags))
	var got map[string]any
	must(t, json.Unmarshal(buf.Bytes(), &got))
	equal(t, "1", got["format_version"])
	equal(t, false, got["valid"])
	equal(t, 1.0, got["error_count"])
	equal(t, 1.0, got["warning_count"])
	d0 := got["diagnostics"].([]any)[0].(map[string]any)
	equal(t, map[string]any{
		"severity": "error", "rule": "BP010", "summary": "stake must be more than 0, got -5", "detail": "",
		"range": map[string]any{"filename": "p.yaml", "start": map[string]any{"line": 9.0, "column": 12.0}, "end": map[string]any{"line": 9.0, "column": 14.0}},
	}, d0)
	buf.Reset()
	must(t, plan.WriteJSON(&buf, nil))
	check(t, strings.Contains(buf.String(), `"valid": true`) && strings.Contains(buf.String(), `"diagnostics": []`), "empty: %s", buf.String())
}

func TestWriteGitHub(t *testing.T) {
	diags := plan.Diagnostics{
		{Severity: plan.SeverityError, Summary: "100% wrong:\nsecond line", Filename: "plans/a,b:c.yaml", Line: 3, Column: 5},
		{Severity: plan.SeverityWarning, Summary: "careful", Filename: "p.yaml", Line: 1, Column: 1, EndLine: 1, EndColumn: 4},
	}
	var buf bytes.Buffer
	must(t, plan.WriteGitHub(&buf, diags))
	equal(t, "::error file=plans/a%2Cb%3Ac.yaml,line=3,col=5,title=BP010 invalid-value::100%25 wrong:%0Asecond line\n"+
		"::warning file=p.yaml,line=1,col=1,endLine=1,endColumn=4,title=BP010 invalid-value::careful\n", buf.String())
}

func TestWriteText(t *testing.T) {
	src := []byte("version: 1\nname: x\n\tstake: 5\n")
	diags := plan.Diagnostics{
		{Severity: plan.SeverityWarning, Summary: "hm", Filename: "p.yaml", Line: 2, Column: 7, EndLine: 2, EndColumn: 8},
		{Severity: plan.SeverityError, Summary: "bad", Filename: "p.yaml", Line: 3, Column: 9, EndLine: 3, EndColumn: 10},
		{Severity: plan.SeverityError, Summary: "no source", Filename: "q.yaml", Line: 1, Column: 1},
	}
	var buf bytes.Buffer
	must(t, plan.WriteText(&buf, diags, map[string][]byte{"p.yaml": src}))
	equal(t, "p.yaml:2:7: warning: hm [BP010 invalid-value]\n    name: x\n          ^\np.yaml:3:9: bad [BP010 invalid-value]\n     stake: 5\n            ^\n"+
		"q.yaml:1:1: no source [BP010 invalid-value]\n", buf.String())
	equal(t, "p.yaml:3:9: bad\nq.yaml:1:1: no source", diags.Error())
	equal(t, 2, diags.Errors())
	equal(t, 1, diags.Warnings())
}

func TestSuggest(t *testing.T) {
	for _, tt := range []struct{ word, want string }{
		{"Fixed Wn", "Fixed Win"}, {"fixed win", "Fixed Win"}, {"Tote", ""}, {"Lay Plce", "Lay Place"}, {"zzz", ""},
	} {
		equal(t, tt.want, plan.Suggest(tt.word, plan.Markets()), tt.word)
	}
	equal(t, "Greyhounds", plan.Suggest("Greyhound", plan.Codes()))
	equal(t, "High Odds First", plan.Suggest("High Odds Frist", plan.Types()))
}

const outcomesPlan = `version: 1
name: outcomes
limits: {max_stake_per_bet: 40, max_total_stake: 100, max_bets: 10}
defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - id: r3
    race: {venue: Randwick, code: Galloping, event_number: 3}
    selection: "1"
    stake: 10
  - id: r6
    race: {venue: Randwick, code: Galloping, event_number: 6}
    selection: "1"
    stake: min(bets.r3.amount * 2, 15)
    when: bets.r3.lost && plan.lowest_profit > -50 && plan.won < 3
  - id: dogs
    for_each_race: race.code == "Greyhounds"
    selection: "1"
    stake: 2
    when: 'len(filter(bets["r6"].race.runners, # == "1")) > 0 && !any(bets.late, .won)'
  - id: late
    for_each_race: race.code == "Harness"
    selection: "1"
    stake: 2
    when: len(bets.dogs) < 3
`

// TestOutcomeExpressions: plan and bets are readable in conditions and
// amounts, and Explain shows what a condition saw of them.
func TestOutcomeExpressions(t *testing.T) {
	p, diags := plan.Parse("outcomes.yaml", []byte(outcomesPlan))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	check(t, p.ReadsOutcomes, "the plan reads outcomes")
	bets := map[string]*plan.Bet{}
	for _, b := range p.Bets {
		bets[b.ID] = b
	}
	e := env(5, "Randwick", "Galloping")
	e.Plan = plan.PlanEnv{Staked: 10, Profit: -10, LowestProfit: -10, Bets: 1, Settled: 1, Lost: 1}
	e.Bets = map[string]any{
		"r3":   plan.BetEnv{Status: "settled", Amount: 10, Accepted: 10, Profit: -10, Lost: true, Result: "4/2/1"},
		"r6":   plan.BetEnv{Status: "waiting", Race: plan.RaceEnv{Runners: []string{"1", "2"}}},
		"dogs": []plan.BetEnv{{Status: "settled", Won: true}},
		"late": []plan.BetEnv{},
	}
	ready, err := bets["r6"].Ready(e)
	must(t, err)
	check(t, ready, "r6 is ready after the r3 loss")
	amount, err := bets["r6"].Amount(e)
	must(t, err)
	equal(t, 15.0, amount)
	equal(t, "bets.r3.lost = true, plan.lowest_profit = -10, plan.won = 0", bets["r6"].When.Explain(e))
	ready, err = bets["dogs"].Ready(e)
	must(t, err)
	check(t, ready, "dogs reads r6's race and late's list")
	ready, err = bets["late"].Ready(e)
	must(t, err)
	check(t, ready, "late reads the list of dogs")

	e.Plan.LowestProfit = -50
	ready, err = bets["r6"].Ready(e)
	must(t, err)
	check(t, !ready, "stopped once the profit reached -50")
	e.Bets["r3"] = plan.BetEnv{Status: "settled", Amount: 5, Profit: 12, Won: true}
	ready, err = bets["r6"].Ready(e)
	must(t, err)
	check(t, !ready, "not after a win")
	amount, err = bets["r6"].Amount(e)
	must(t, err)
	equal(t, 10.0, amount)

	// The engine hands a bet on one race over as a *BetEnv: it reads
	// and explains the same.
	e.Bets["r3"] = &plan.BetEnv{Status: "settled", Amount: 4, Profit: -4, Lost: true}
	e.Plan.LowestProfit = -10
	ready, err = bets["r6"].Ready(e)
	must(t, err)
	check(t, ready, "r6 is ready after the r3 loss, read through a pointer")
	amount, err = bets["r6"].Amount(e)
	must(t, err)
	equal(t, 8.0, amount)
	equal(t, "bets.r3.lost = true, plan.lowest_profit = -10, plan.won = 0", bets["r6"].When.Explain(e))
}
