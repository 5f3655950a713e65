package plan

import (
	"fmt"
	"math"
	"reflect"
	"time"
)

// Env is what expressions see: the race (or, for an event bet, the sports
// event) being considered, the time, the plan's vars, the account's
// bookmaker sessions, and what the plan's bets did so far (its period
// totals, and its other bets by id).
type Env struct {
	Race     RaceEnv        `expr:"race"`
	Event    EventEnv       `expr:"event"`
	Now      time.Time      `expr:"now"`
	Vars     map[string]any `expr:"vars"`
	Sessions []SessionEnv   `expr:"sessions"`
	Plan     PlanEnv        `expr:"plan"`
	// Bets holds every other bet of the plan by id: a BetEnv (or a
	// *BetEnv) for a bet on one race, a []BetEnv (its instances) for a
	// for_each_race bet.
	Bets map[string]any `expr:"bets"`
}

// PlanEnv is the plan's totals in the current period of its limits
// (limits.period: the race's meeting day, its week, or all time), across
// every run of the plan. Amounts are dollars at risk: what the sessions
// accepted, or may still place.
type PlanEnv struct {
	Staked    float64 `expr:"staked"`     // at risk over the period's bets
	OpenStake float64 `expr:"open_stake"` // at risk on bets not resulted yet
	Profit    float64 `expr:"profit"`     // settled profit, signed
	// LowestProfit and HighestProfit are the settled profit at its lowest
	// and highest so far in the period (0 before anything settled), taken
	// as the results came in: "stop after $50 lost" stays stopped when a
	// later winner brings the profit back.
	LowestProfit  float64 `expr:"lowest_profit"`
	HighestProfit float64 `expr:"highest_profit"`
	Bets          int     `expr:"bets"`    // bets created
	Settled       int     `expr:"settled"` // bets resulted
	Won           int     `expr:"won"`     // settled with a profit
	Lost          int     `expr:"lost"`    // settled with a loss
}

// BetEnv is one bet of the plan on one race, as another bet's expressions
// see it.
type BetEnv struct {
	Status      string  `expr:"status"`       // as in the report: waiting, created, placed, settled, failed, ...
	Amount      float64 `expr:"amount"`       // the requested stake or target profit; 0 until known
	Accepted    float64 `expr:"accepted"`     // dollars the sessions accepted
	AverageOdds float64 `expr:"average_odds"` // over what was accepted
	Profit      float64 `expr:"profit"`       // signed; final once settled
	Won         bool    `expr:"won"`          // settled with a profit
	Lost        bool    `expr:"lost"`         // settled with a loss
	Result      string  `expr:"result"`       // the race's finishing order, e.g. "4/1/7", once resulted
	Race        RaceEnv `expr:"race"`
}

// RaceEnv is a race as expressions see it.
type RaceEnv struct {
	Venue          string    `expr:"venue"`
	Code           string    `expr:"code"`
	EventNumber    int       `expr:"event_number"`
	Start          time.Time `expr:"start"`
	MinutesToStart float64   `expr:"minutes_to_start"`
	Country        string    `expr:"country"`
	Runners        []string  `expr:"runners"`
	RunnerNames    []string  `expr:"runner_names"`
}

// EventEnv is a sports event as expressions see it: the event of an event
// bet, with the markets the service lists for it and the bet's own
// selection.
type EventEnv struct {
	ID             string       `expr:"id"`
	Name           string       `expr:"name"`
	Sport          string       `expr:"sport"`
	Competition    string       `expr:"competition"`
	Start          time.Time    `expr:"start"`
	MinutesToStart float64      `expr:"minutes_to_start"`
	Markets        []MarketEnv  `expr:"markets"`
	Selection      SelectionEnv `expr:"selection"` // the bet's own market and selection
}

// MarketEnv is one market of a sports event.
type MarketEnv struct {
	Name       string         `expr:"name"`
	Selections []SelectionEnv `expr:"selections"`
}

// SelectionEnv is one selection of a market: its price and, on line
// markets, its handicap (0 when the market has no line).
type SelectionEnv struct {
	Name     string  `expr:"name"`
	Market   string  `expr:"market"`
	Odds     float64 `expr:"odds"`
	Handicap float64 `expr:"handicap"`
}

// SessionEnv is one bookmaker session of the account.
type SessionEnv struct {
	ID           string  `expr:"id"`
	Bookie       string  `expr:"bookie"`
	DisplayName  string  `expr:"display_name"`
	Balance      float64 `expr:"balance"`
	BonusBalance float64 `expr:"bonus_balance"`
	BotRunning   bool    `expr:"bot_running"`
	LoginStatus  string  `expr:"login_status"`
}

// envNames lists the names of a struct's expr tags, for did-you-mean.
func envNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("expr"); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

var (
	topNames     = append(envNames(reflect.TypeFor[Env]()), helperNames...)
	raceNames    = envNames(reflect.TypeFor[RaceEnv]())
	eventNames   = envNames(reflect.TypeFor[EventEnv]())
	marketNames  = envNames(reflect.TypeFor[MarketEnv]())
	pickNames    = envNames(reflect.TypeFor[SelectionEnv]())
	sessionNames = envNames(reflect.TypeFor[SessionEnv]())
	planNames    = envNames(reflect.TypeFor[PlanEnv]())
	betNames     = envNames(reflect.TypeFor[BetEnv]())
)

// Helper functions of expressions, beyond expr's builtins (len, abs, min,
// max, floor, ceil, sum, filter, map, ...).
var helperNames = []string{"round", "clamp", "running", "total_balance", "total_bonus_balance"}

// helpers are typed, so expressions using them are checked at compile time.
var helpers = []struct {
	name  string
	fn    func(...any) (any, error)
	types []any
}{
	{"round", func(p ...any) (any, error) {
		x, places := p[0].(float64), p[1].(int)
		if places < 0 || places > 10 {
			return nil, fmt.Errorf("round: places must be 0..10, got %d", places)
		}
		f := math.Pow10(places)
		return math.Round(x*f) / f, nil
	}, []any{new(func(float64, int) float64)}},
	{"clamp", func(p ...any) (any, error) {
		x, lo, hi := p[0].(float64), p[1].(float64), p[2].(float64)
		if lo > hi {
			return nil, fmt.Errorf("clamp: lo %v is above hi %v", lo, hi)
		}
		return math.Min(math.Max(x, lo), hi), nil
	}, []any{new(func(float64, float64, float64) float64)}},
	{"running", func(p ...any) (any, error) {
		var out []SessionEnv
		for _, s := range p[0].([]SessionEnv) {
			if s.BotRunning {
				out = append(out, s)
			}
		}
		return out, nil
	}, []any{new(func([]SessionEnv) []SessionEnv)}},
	{"total_balance", sessionsSum(func(s SessionEnv) float64 { return s.Balance }), []any{new(func([]SessionEnv) float64)}},
	{"total_bonus_balance", sessionsSum(func(s SessionEnv) float64 { return s.BonusBalance }), []any{new(func([]SessionEnv) float64)}},
}

// sessionsSum is an expression function adding up one amount over a list
// of sessions.
func sessionsSum(amount func(SessionEnv) float64) func(p ...any) (any, error) {
	return func(p ...any) (any, error) {
		t := 0.0
		for _, s := range p[0].([]SessionEnv) {
			t += amount(s)
		}
		return t, nil
	}
}
