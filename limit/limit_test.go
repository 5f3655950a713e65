package limit_test

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/limit"
)

// check is a bet of $20 at risk on Flemington R5, counted with what this
// plan committed in day 2026-11-21.
func check(s limit.Sums) *limit.Check {
	return &limit.Check{Sums: s, Risk: 20, Basis: "$10.00 × 2: 2 sessions", In: " in day 2026-11-21",
		Race: "Flemington R5 of 2026-11-21", Used: "already committed by this plan"}
}

// Each kind's refusal, in the words the run has always given (the reports,
// the alerts and the testscripts read them), and no refusal one cent
// below.
func TestRefusalWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind  *limit.Kind
		v     limit.Value
		sums  limit.Sums // refused
		fits  limit.Sums // allowed (a bet alone: at the bet's $20)
		words string
	}{
		{limit.StopLoss, limit.Amount(50), limit.Sums{LowestProfit: -52.4, Profit: -40}, limit.Sums{LowestProfit: -49.99},
			"stop_loss $50.00: the settled profit in day 2026-11-21 reached -$52.40 (it is -$40.00 now), at or below -$50.00; no new bet is created"},
		{limit.MaxLoss, limit.Amount(50), limit.Sums{Profit: -10, OpenStake: 25}, limit.Sums{Profit: -10, OpenStake: 20},
			"max_loss $50.00 in day 2026-11-21: if every open bet and this one lost, the profit would be -$55.00 (settled -$10.00, $25.00 open at risk, this bet $20.00 ($10.00 × 2: 2 sessions)), below -$50.00"},
		{limit.TakeProfit, limit.Amount(100), limit.Sums{HighestProfit: 100, Profit: 80}, limit.Sums{HighestProfit: 99.99},
			"take_profit $100.00: the settled profit in day 2026-11-21 reached $100.00 (it is $80.00 now), at or above it; no new bet is created"},
		{limit.MaxStakePerBet, limit.Amount(19.99), limit.Sums{}, limit.Sums{},
			"max_stake_per_bet $19.99: this bet puts $20.00 at risk ($10.00 × 2: 2 sessions)"},
		{limit.MaxStakePerRace, limit.Amount(30), limit.Sums{RaceStake: 10.01}, limit.Sums{RaceStake: 10},
			"max_stake_per_race $30.00 on Flemington R5 of 2026-11-21: $10.01 at risk on it already committed by this plan, this bet adds $20.00 ($10.00 × 2: 2 sessions)"},
		{limit.MaxBetsPerRace, limit.Count(2), limit.Sums{RaceBets: 2}, limit.Sums{RaceBets: 1},
			"max_bets_per_race 2 on Flemington R5 of 2026-11-21: 2 bets on it already committed by this plan"},
		{limit.MaxTotalStake, limit.Amount(100), limit.Sums{Staked: 80.01}, limit.Sums{Staked: 80},
			"max_total_stake $100.00 in day 2026-11-21: $80.01 at risk already committed by this plan, this bet adds $20.00 ($10.00 × 2: 2 sessions)"},
		{limit.MaxOpenStake, limit.Amount(60), limit.Sums{OpenStake: 45}, limit.Sums{OpenStake: 40},
			"max_open_stake $60.00 in day 2026-11-21: $45.00 at risk on bets not resulted yet, this bet adds $20.00 ($10.00 × 2: 2 sessions)"},
		{limit.MaxBets, limit.Count(1), limit.Sums{Bets: 1}, limit.Sums{},
			"max_bets 1 in day 2026-11-21: 1 bet already committed by this plan"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.Key, func(t *testing.T) {
			t.Parallel()
			if got := tt.kind.Refuse(tt.v, check(tt.sums)); got != tt.words {
				t.Errorf("refused with\n%s\nwant\n%s", got, tt.words)
			}
			fitsAt := tt.v
			if tt.kind.Span == limit.PerBet {
				fitsAt = limit.Amount(20)
			}
			if got := tt.kind.Refuse(fitsAt, check(tt.fits)); got != "" {
				t.Errorf("a bet that fits refused: %s", got)
			}
		})
	}
}

// A bet alone may break a limit whatever else is at risk; of several, the
// one the run's gate would name first is named (max_loss before
// max_stake_per_bet), so a preview and the run name the same limit.
func TestAlone(t *testing.T) {
	t.Parallel()
	c := &limit.Check{Risk: 60, Basis: "$60.00 × 1"}
	tests := []struct {
		set   limit.Set
		words string
	}{
		{limit.Set{limit.MaxStakePerBet: limit.Amount(50)}, "max_stake_per_bet $50.00: this bet puts $60.00 at risk ($60.00 × 1)"},
		{limit.Set{limit.MaxStakePerRace: limit.Amount(50)}, "max_stake_per_race $50.00: this bet alone puts $60.00 at risk on its race ($60.00 × 1)"},
		{limit.Set{limit.MaxOpenStake: limit.Amount(50)}, "max_open_stake $50.00: this bet alone puts $60.00 at risk ($60.00 × 1)"},
		{limit.Set{limit.MaxTotalStake: limit.Amount(50)}, "max_total_stake $50.00: this bet alone puts $60.00 at risk ($60.00 × 1)"},
		{limit.Set{limit.MaxLoss: limit.Amount(50)}, "max_loss $50.00: this bet alone may lose $60.00 ($60.00 × 1)"},
		{limit.Set{limit.MaxLoss: limit.Amount(50), limit.MaxStakePerBet: limit.Amount(50)}, "max_loss $50.00: this bet alone may lose $60.00 ($60.00 × 1)"},
		{limit.Set{limit.MaxBets: limit.Count(1), limit.StopLoss: limit.Amount(1), limit.MaxTotalStake: limit.Amount(60)}, ""},
	}
	for _, tt := range tests {
		if _, got := tt.set.Alone(c); got != tt.words {
			t.Errorf("alone: %q, want %q", got, tt.words)
		}
	}
}

// The limits are checked in one order: a stop first (the period is over),
// then the loss cap, then the caps from the narrowest (one bet, one race)
// to the widest (the period). Of several a bet breaks, the user reads the
// first.
func TestCheckingOrder(t *testing.T) {
	t.Parallel()
	all := limit.Set{}
	for _, k := range limit.All() {
		all[k] = limit.Value{Dollars: 0.01, Count: 1}
	}
	broken := check(limit.Sums{Staked: 1, OpenStake: 1, Bets: 1, LowestProfit: -1, HighestProfit: 1, RaceStake: 1, RaceOpenStake: 1, RaceBets: 1})
	var order []string
	for len(all) > 0 {
		k, words := all.Refuse(broken)
		if k == nil || !strings.HasPrefix(words, k.Key+" ") {
			t.Fatalf("%v refused %q: every limit set should refuse, its key first", k, words)
		}
		order = append(order, k.Key)
		delete(all, k)
	}
	want := []string{"stop_loss", "max_loss", "take_profit", "max_stake_per_bet", "max_stake_per_race", "max_bets_per_race", "max_total_stake", "max_open_stake", "max_bets"}
	if got := known(order); !slices.Equal(got, want) {
		t.Errorf("checked in the order %v, want %v", got, want)
	}
	if !slices.Equal(order, keysOf(limit.Checked())) {
		t.Errorf("refused in the order %v, Checked says %v", order, keysOf(limit.Checked()))
	}
}

// The kinds that were there before the list keep their place in each list:
// a limits section's key order (`fmt` lays plans out by it), and the views'
// order (the prompt's line, doctor, the reports' table).
func TestOrders(t *testing.T) {
	t.Parallel()
	if got, want := known(keysOf(limit.All())), []string{"max_stake_per_bet", "max_total_stake", "max_bets", "max_loss", "stop_loss", "take_profit", "max_open_stake", "max_stake_per_race", "max_bets_per_race"}; !slices.Equal(got, want) {
		t.Errorf("key order %v, want %v", got, want)
	}
	if got, want := known(keysOf(limit.Shown())), []string{"max_stake_per_bet", "max_total_stake", "max_open_stake", "max_bets", "max_loss", "stop_loss", "take_profit", "max_stake_per_race", "max_bets_per_race"}; !slices.Equal(got, want) {
		t.Errorf("shown in the order %v, want %v", got, want)
	}
}

// The prompt's line says every limit set, with the use of those counted
// over the period, as it always has.
func TestWords(t *testing.T) {
	t.Parallel()
	s := limit.Set{limit.MaxStakePerBet: limit.Amount(5), limit.MaxTotalStake: limit.Amount(100), limit.MaxOpenStake: limit.Amount(60),
		limit.MaxBets: limit.Count(20), limit.MaxLoss: limit.Amount(50), limit.StopLoss: limit.Amount(40), limit.TakeProfit: limit.Amount(80),
		limit.MaxStakePerRace: limit.Amount(30), limit.MaxBetsPerRace: limit.Count(2)}
	u := limit.Sums{Staked: 20, OpenStake: 12, Bets: 3, Profit: -4.5}
	want := "max_stake_per_bet $5.00, max_total_stake $100.00 ($20.00 used), max_open_stake $60.00 ($12.00 open), max_bets 20 (3 used), max_loss $50.00 (worst case -$16.50), stop_loss $40.00 (settled profit -$4.50), take_profit $80.00 (settled profit -$4.50), max_stake_per_race $30.00, max_bets_per_race 2"
	if got := s.Words(u); got != want {
		t.Errorf("words\n%s\nwant\n%s", got, want)
	}
	if got := (limit.Set{}).Words(u); got != "" {
		t.Errorf("no limits: %q", got)
	}
	if b, err := json.Marshal(s); err != nil || !strings.Contains(string(b), `"max_bets":20,`) || !strings.Contains(string(b), `"max_stake_per_bet":5,`) {
		t.Errorf("a set as JSON: %s, %v", b, err)
	}
}

// The stops share the table's settled-profit line: its limit reads "stops
// at -$50.00 or +$80.00", and it is over, with "stopped:", when either is
// reached.
func TestMergedRows(t *testing.T) {
	t.Parallel()
	f := limit.Format{Dollars: func(v float64) string { return limit.MaxStakePerBet.Words(limit.Amount(v)) },
		Signed: func(v float64) string { return "±" + limit.MaxStakePerBet.Words(limit.Amount(math.Abs(v))) }}
	s := limit.Sums{Profit: 90, HighestProfit: 90, Won: 2}
	stop, take := limit.Amount(50), limit.Amount(80)
	rows := limit.Merge(nil, limit.StopLoss.Row(&stop, s, f))
	rows = limit.Merge(rows, limit.TakeProfit.Row(&take, s, f))
	want := limit.Row{Name: "Settled profit", Used: "stopped: ±$90.00, 2 won, 0 lost", After: "±$90.00", Lead: "stops at ", Limit: "$-50.00 or ±$80.00", Over: true}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows %+v\nwant [%+v]", rows, want)
	}
}

// Every kind is whole: a snake_case key, its doc, its ranks apart from
// every other kind's (so no order depends on how files happen to sort).
func TestEveryKindIsWhole(t *testing.T) {
	t.Parallel()
	key := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	ranks := map[[2]int]string{}
	for _, k := range limit.All() {
		if !key.MatchString(k.Key) || limit.Lookup(k.Key) != k {
			t.Errorf("kind %q: not a key, or not found by it", k.Key)
		}
		if k.Doc == "" || strings.HasSuffix(k.Doc, ".") || k.Help() == "" {
			t.Errorf("%s: its doc completes a sentence, without a full stop: %q", k.Key, k.Doc)
		}
		for i, r := range []int{k.Rank.Key, k.Rank.Check, k.Rank.Show} {
			if other, taken := ranks[[2]int{i, r}]; taken {
				t.Errorf("%s and %s share rank %d of list %d", k.Key, other, r, i)
			}
			ranks[[2]int{i, r}] = k.Key
		}
		if k.Span != limit.PerPeriod && k.Use(limit.Value{Dollars: 1, Count: 1}, limit.Sums{}).Brief != "" {
			t.Errorf("%s counts per bet or race, yet says a period's use", k.Key)
		}
	}
}

// The limits round cents as the book does.
func TestRoundCentsIsTheBooks(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{0, 0.005, -0.005, 1.115, -1.115, 2.675, 1e13, -1e15, 1e300, math.Inf(-1)} {
		s := limit.Sums{Profit: v}
		if got, want := s.WorstCase(), bet.RoundCents(v); got != want {
			t.Errorf("%v rounds to %v, the book's %v", v, got, want)
		}
	}
}

// known keeps the keys of the kinds there were before the list.
func known(keys []string) []string {
	old := []string{"max_stake_per_bet", "max_total_stake", "max_bets", "max_loss", "stop_loss", "take_profit", "max_open_stake", "max_stake_per_race", "max_bets_per_race"}
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !slices.Contains(old, k) })
}

func keysOf(ks []*limit.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Key
	}
	return out
}

// The kinds that cap money are those in dollars but the stops: a bet whose
// risk is not known before it is placed (a lay without an odds cap) cannot
// be held to them, and validate names them when it refuses one.
func TestCapsMoney(t *testing.T) {
	t.Parallel()
	var caps []string
	for _, k := range limit.All() {
		if k.CapsMoney() {
			caps = append(caps, k.Key)
		}
	}
	want := []string{"max_stake_per_bet", "max_total_stake", "max_loss", "max_open_stake", "max_stake_per_race", "max_liability_per_race"}
	if !slices.Equal(caps, want) {
		t.Errorf("the kinds that cap money: %v, want %v", caps, want)
	}
}
