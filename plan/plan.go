package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/limit"
)

// Plan is a checked plan: defaults merged into every bet, expressions
// compiled, ready for the engine.
type Plan struct {
	Filename    string
	Hash        string // "sha256:<hex>" of the file's bytes
	Version     int
	Name        string
	Description string
	Vars        map[string]any
	Limits      Limits
	Defaults    BetDefaults // as written, for display; already merged into every Bet
	Races       map[string]RaceRef
	Bets        []*Bet // in file order
	Poll        Poll
	Tips        []*Tip    // in file order
	Prealert    *Prealert // nil: no pre-alerts
	// Notify are the plan's alert targets, added to the account's;
	// Heartbeat is requested at the end of every run ("" for none).
	Notify    []NotifyTarget
	Heartbeat string
	// ReadsOutcomes is true when an expression reads plan or bets: the
	// engine then fills them in before it evaluates one.
	ReadsOutcomes bool
}

// Limits are checked before every bet is created, against the money the
// bet puts at risk. The total limits count within Period. Each limit is a
// kind of package limit, which says what it counts; a kind not in Set is
// not set.
type Limits struct {
	Period Period
	Set    limit.Set
}

// Period is what a plan's total limits count within.
type Period string

// The periods of limits.period.
const (
	PeriodDay  Period = "day"  // the race's meeting day, in its own time zone
	PeriodWeek Period = "week" // Monday to Sunday of meeting days
	PeriodPlan Period = "plan" // all time: everything the plan ever created
)

// Periods returns the values limits.period takes.
func Periods() []Period { return []Period{PeriodDay, PeriodWeek, PeriodPlan} }

// CheckBet checks one bet's amount against max_stake_per_bet.
func (l Limits) CheckBet(amount float64) error {
	if v, ok := l.Set.Get(limit.MaxStakePerBet); ok && amount > v.Dollars+1e-9 {
		return fmt.Errorf("amount $%s is above limits.max_stake_per_bet ($%s)", money(amount), money(v.Dollars))
	}
	return nil
}

// BoundsMoney reports whether the limits bound the money a plan may put
// at risk in all (max_total_stake, max_open_stake, max_loss: BoundingLimits).
func (l Limits) BoundsMoney() bool { return l.Set.Any(func(k *limit.Kind) bool { return k.Bounds }) }

// ReadsOutcomes reports whether the limits depend on how the bets went: a
// profit, or what is still open.
func (l Limits) ReadsOutcomes() bool {
	return l.Set.Any(func(k *limit.Kind) bool { return k.Outcomes })
}

// CapsMoney reports whether the limits cap money at all: a limit on what
// one bet, a race, the period or its open bets may put at risk, or on
// what the period may lose (a kind that caps money, limit.Kind.CapsMoney).
func (l Limits) CapsMoney() bool { return l.Set.Any((*limit.Kind).CapsMoney) }

// moneyKeys are the keys of the limits set that cap money (CapsMoney), in
// a limits section's order.
func (l Limits) moneyKeys() []string {
	var keys []string
	for _, k := range limit.All() {
		if _, set := l.Set.Get(k); set && k.CapsMoney() {
			keys = append(keys, k.Key)
		}
	}
	return keys
}

// Any reports whether the plan sets any limit.
func (l Limits) Any() bool { return len(l.Set) > 0 }

// BoundingLimits names the limits that bound what a plan may spend in all,
// joined by conj: "max_total_stake, max_open_stake or max_loss".
func BoundingLimits(conj string) string {
	var keys []string
	for _, k := range limit.Shown() {
		if k.Bounds {
			keys = append(keys, k.Key)
		}
	}
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " " + conj + " " + keys[len(keys)-1]
}

// Poll says how often and how long outcomes are followed.
type Poll struct {
	Interval time.Duration
	Timeout  time.Duration
}

// Defaults of Poll when the plan has none.
const (
	DefaultPollInterval = 30 * time.Second
	DefaultPollTimeout  = 3 * time.Hour
)

// RaceRef names one race: the next meeting's race at a venue.
type RaceRef struct {
	Venue       string
	Code        string
	EventNumber int
}

func (r RaceRef) String() string { return fmt.Sprintf("%s (%s) R%d", r.Venue, r.Code, r.EventNumber) }

// BetDefaults are the plan's defaults as written; a nil or empty field is
// not set.
type BetDefaults struct {
	RaceKey       string
	Race          *RaceRef
	ForEachRace   *Expr
	Event         *EventRef
	Selection     string
	Handicap      *Handicap
	Type          string
	Market        string
	TargetSession string
	Stake         *Amount
	TargetProfit  *Amount
	When          *Expr
	Options       map[string]any
}

// Bet is one bet of the plan, defaults applied.
type Bet struct {
	ID            string
	RaceKey       string   // the key in races; "" when inline or for_each_race
	Race          *RaceRef // nil when ForEachRace or Event is set
	ForEachRace   *Expr
	Event         *EventRef // a sports event instead of a race (see event.go)
	Selection     string
	Handicap      *Handicap // the line, on an event bet; nil: the line the event lists
	Type          string
	Market        string
	TargetSession string
	Stake         *Amount // Fixed Wager and High Odds First
	TargetProfit  *Amount // Fixed Profit
	When          *Expr   // nil: always ready
	Options       map[string]any
	Line, Column  int // position of the bet in the file
	// AmountAt is where the bet's amount is written (its own, or the
	// defaults'): an account file's limit it breaks is an error there.
	AmountAt Span
}

// Span is where something is written in a plan file.
type Span struct{ Line, Column, EndLine, EndColumn int }

// Amount is dollars, static or computed by an expression.
type Amount struct {
	Value float64
	Expr  *Expr // nil: Value is the amount
	// Known is set on an expression that reads only the plan's vars and
	// literals: Value is what it gives on every run. Max is the most any
	// other expression can give (math.Inf(1): nothing bounds it offline).
	Known bool
	Max   float64
}

func (a *Amount) String() string {
	if a.Expr != nil {
		return a.Expr.String()
	}
	return money(a.Value)
}

// Matches reports whether the bet applies to the race of env: its
// for_each_race condition, true when it has none.
func (b *Bet) Matches(env *Env) (bool, error) { return b.ForEachRace.holds(env) }

// Ready reports whether the bet's when condition holds; true when it has
// none.
func (b *Bet) Ready(env *Env) (bool, error) { return b.When.holds(env) }

// AmountField is the create field the bet's amount goes to, by its type.
func (b *Bet) AmountField() AmountField { return AmountFieldFor(b.Type) }

// Amount is the bet's stake or target profit in dollars, evaluated when it
// is an expression, rounded down to whole cents so a computed amount never
// exceeds what the expression said.
func (b *Bet) Amount(env *Env) (float64, error) {
	a := b.amount()
	if a == nil {
		return 0, fmt.Errorf("bet %s has no %s", b.ID, b.AmountField())
	}
	v := a.Value
	if a.Expr != nil {
		var err error
		if v, err = a.Expr.evalFloat(env); err != nil {
			return 0, err
		}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %s gave %v, not a finite number", b.AmountField(), a, v)
	}
	if v > MaxBetAmount {
		return 0, fmt.Errorf("%s %s gave %s: %s", b.AmountField(), a, strconv.FormatFloat(v, 'g', -1, 64), betAmountRange)
	}
	cents := math.Floor(v*100 + 1e-6)
	if cents <= 0 {
		return 0, fmt.Errorf("%s %s gave %v: an amount must be at least $0.01", b.AmountField(), a, v)
	}
	return cents / 100, nil
}

// money formats dollars with cents only when there are any.
func money(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// StaticAmount is the bet's amount when it is known offline: a plain
// number, or an expression of the plan's vars and literals only; ok is
// false for an expression that reads the run, known only when evaluated.
func (b *Bet) StaticAmount() (amount float64, ok bool) {
	a := b.amount()
	if a == nil || (a.Expr != nil && !a.Known) {
		return 0, false
	}
	return a.Value, true
}

// Certain reports whether the bet is sure to be created once its race is
// found: a named race, no when and an amount known offline.
func (b *Bet) Certain() bool {
	_, static := b.StaticAmount()
	return b.Race != nil && b.ForEachRace == nil && b.When == nil && static
}

// StakeIsTotal reports whether the bet's stake is the total across the
// sessions that place it (options.ensure_total_wager on a Fixed Wager)
// rather than what each of them places.
func (b *Bet) StakeIsTotal() bool {
	on, _ := b.Options[OptionEnsureTotalWager].(bool)
	return on && b.Type == TypeFixedWager
}

func (b *Bet) amount() *Amount {
	if b.AmountField() == AmountTargetProfit {
		return b.TargetProfit
	}
	return b.Stake
}
