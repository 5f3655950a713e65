package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/betplan/betplan/plan"
)

// A bet whose own risk breaks a limit that caps one bet (max_stake_per_bet,
// max_loss) is an error at its amount, in the words of what it can lose; of
// both, the one the run's gate checks first is named, once, as the run
// would refuse it (limit.Set.Alone), the plan's and the account file's
// alike.
func TestABetOverTheBetCapsIsOneError(t *testing.T) {
	t.Parallel()
	const bet = `bets:
  - id: b1
    race: {venue: Flemington, code: Galloping, event_number: 4}
    type: Fixed Wager
    market: %s
    selection: "3"
    options: {check_max_odds: true, max_odds: 8}
    stake: %s
`
	tests := []struct {
		name, limits, market, stake string
		words                       string // "" for none
	}{
		{"a stake over both: max_loss, checked first", "max_stake_per_bet: 50, max_loss: 40", "Fixed Win", "60",
			"bet b1: stake 60 can lose $60 on each session, above %slimits.max_loss (40)"},
		{"a stake over max_stake_per_bet alone", "max_stake_per_bet: 50, max_loss: 100", "Fixed Win", "60",
			"bet b1: stake 60 is above %slimits.max_stake_per_bet (50)"},
		{"a lay over max_stake_per_bet by its liability", "max_stake_per_bet: 100, max_loss: 500", "Lay Win", "20",
			"bet b1: a lay of stake 20 at odds up to 8 can lose $140 on each session (stake × (max_odds − 1)), above %slimits.max_stake_per_bet (100)"},
		{"a lay within both", "max_stake_per_bet: 140, max_loss: 140", "Lay Win", "20", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := fmt.Sprintf("version: 1\nname: caps\nlimits: {%s}\n"+bet, tt.limits, tt.market, tt.stake)
			_, diags := plan.Parse("caps.yaml", []byte(src))
			if got := errorsOf(diags); tt.words == "" && len(got) != 0 || tt.words != "" && (len(got) != 1 || got[0] != fmt.Sprintf(tt.words, "")) {
				t.Errorf("the plan's limits: %q\nwant one error %q", got, fmt.Sprintf(tt.words, ""))
			}
			// The same limits in the account file, the plan bounded by
			// its own max_bets alone.
			p, diags := plan.Parse("caps.yaml", []byte(fmt.Sprintf("version: 1\nname: caps\nlimits: {max_bets: 5}\n"+bet, tt.market, tt.stake)))
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			cfg, cd := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {"+tt.limits+"}\n"))
			if cd.HasErrors() {
				t.Fatal(cd)
			}
			got := errorsOf(plan.CheckAccountLimits(p, "betplan.yaml", cfg.Limits))
			if tt.words == "" && len(got) != 0 || tt.words != "" && (len(got) != 1 || got[0] != fmt.Sprintf(tt.words, "betplan.yaml ")) {
				t.Errorf("the account file's limits: %q\nwant one error %q", got, fmt.Sprintf(tt.words, "betplan.yaml "))
			}
		})
	}
}

// A lay without an odds cap can lose without bound: under any kind that
// caps money, the account's own max_liability_per_race too, it is an error
// naming those set, in a limits section's order; the stops and the counts
// cap no money.
func TestALayWithoutCapNamesTheMoneyKinds(t *testing.T) {
	t.Parallel()
	p, diags := plan.Parse("lay.yaml", []byte(`version: 1
name: lay
limits: {max_bets: 5}
bets:
  - {id: lay1, race: {venue: Flemington, code: Galloping, event_number: 4}, type: Fixed Wager, market: Lay Win, selection: "3", stake: 20}
`))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for limits, keys := range map[string]string{
		"max_liability_per_race: 30":                                  "betplan.yaml limits.max_liability_per_race",
		"max_stake_per_race: 30, max_loss: 50, max_stake_per_bet: 10": "betplan.yaml limits.max_stake_per_bet, betplan.yaml limits.max_loss, betplan.yaml limits.max_stake_per_race",
		"stop_loss: 30, take_profit: 10, max_bets_per_race: 2":        "",
	} {
		cfg, cd := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {"+limits+"}\n"))
		if cd.HasErrors() {
			t.Fatal(cd)
		}
		got := errorsOf(plan.CheckAccountLimits(p, "betplan.yaml", cfg.Limits))
		switch {
		case keys == "" && len(got) != 0:
			t.Errorf("%s: %q, want none", limits, got)
		case keys != "" && (len(got) != 1 || !strings.Contains(got[0], "so no money limit can hold it ("+keys+"); ")):
			t.Errorf("%s: %q\nwant one naming (%s)", limits, got, keys)
		}
	}
}

// An unknown period leaves out the kinds counted over a period and keeps
// those of each bet and each race; an invalid value leaves out its kind
// alone. The kinds kept still hold the bets, so every problem is said in
// one pass.
func TestAnInvalidLimitIsLeftOutAlone(t *testing.T) {
	t.Parallel()
	src := `version: 1
name: left-out
limits: {period: dya, max_stake_per_bet: 5, max_total_stake: 50, max_stake_per_race: 0, stop_loss: 20}
bets:
  - {id: b1, race: {venue: Flemington, code: Galloping, event_number: 4}, type: Fixed Wager, market: Fixed Win, selection: "3", stake: 60}
`
	_, diags := plan.Parse("left-out.yaml", []byte(src))
	got := strings.Join(errorsOf(diags), "\n")
	for _, want := range []string{`unknown limits.period "dya"`, "max_stake_per_race must be more than 0, got 0: a limit is a positive amount in dollars",
		"bet b1: stake 60 is above limits.max_stake_per_bet (5)"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors:\n%s\nwant one saying %q", got, want)
		}
	}
	if strings.Contains(got, "above max_total_stake") || strings.Contains(got, "max_stake_per_race $0.00 is below") {
		t.Errorf("a limit left out still held the bets:\n%s", got)
	}
	if n := len(errorsOf(diags)); n != 3 {
		t.Errorf("%d errors, want 3:\n%s", n, got)
	}
}

func errorsOf(diags plan.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		if d.Severity == plan.SeverityError {
			out = append(out, d.Summary)
		}
	}
	return out
}
