package limit_test

import (
	"strings"
	"testing"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
)

// max_liability_per_race refuses a bet when the race's worst case, every
// plan's bets on it and this one, would pass it: what they still have at
// risk, less what the settled ones made. A settled bet's stake, which
// max_stake_per_race still counts, is not; a settled win makes room.
func TestMaxLiabilityPerRace(t *testing.T) {
	t.Parallel()
	k, v := limit.MaxLiabilityPerRace, limit.Amount(50)
	c := &limit.Check{Risk: 20, Basis: "$10.00 × 2: 2 sessions", Race: "Flemington R5 of 2026-11-28",
		Used: "committed by first-card ($30.00) and this plan ($5.00)"}
	tests := []struct {
		name  string
		race  limit.Sums
		words string
	}{
		{"open bets and this one pass it", limit.Sums{RaceStake: 35, RaceOpenStake: 35},
			"max_liability_per_race $50.00 on Flemington R5 of 2026-11-28: if every bet on it and this one lost, they would lose $55.00 ($35.00 open at risk on it committed by first-card ($30.00) and this plan ($5.00), settled $0.00, this bet $20.00 ($10.00 × 2: 2 sessions)), more than $50.00"},
		{"up to it", limit.Sums{RaceStake: 30, RaceOpenStake: 30}, ""},
		{"a settled loss counts what it lost", limit.Sums{RaceStake: 40, RaceOpenStake: 25, RaceProfit: -15},
			"max_liability_per_race $50.00 on Flemington R5 of 2026-11-28: if every bet on it and this one lost, they would lose $60.00 ($25.00 open at risk on it committed by first-card ($30.00) and this plan ($5.00), settled -$15.00, this bet $20.00 ($10.00 × 2: 2 sessions)), more than $50.00"},
		{"a settled win makes room", limit.Sums{RaceStake: 45, RaceOpenStake: 35, RaceProfit: 12}, ""},
	}
	for _, tt := range tests {
		c.Sums = tt.race
		if got := k.Refuse(v, c); got != tt.words {
			t.Errorf("%s: refused with\n%q\nwant\n%q", tt.name, got, tt.words)
		}
	}
	// Where max_stake_per_race counts the settled win's stake, this one
	// lets the bet through.
	c.Sums = limit.Sums{RaceStake: 45, RaceOpenStake: 35, RaceProfit: 12}
	if limit.MaxStakePerRace.Refuse(v, c) == "" {
		t.Error("max_stake_per_race $50.00 let $65.00 of stakes through: the case above shows no difference")
	}
	if got, want := k.Alone(limit.Amount(15), c), "max_liability_per_race $15.00: this bet alone may lose $20.00 on its race ($10.00 × 2: 2 sessions)"; got != want {
		t.Errorf("alone: %q, want %q", got, want)
	}
}

// Only the account file sets it: it counts every plan's bets, which only
// the account's gate reads. A plan that writes it is told where it goes.
func TestMaxLiabilityPerRaceIsTheAccounts(t *testing.T) {
	t.Parallel()
	c, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {max_liability_per_race: 40}\n"))
	if diags.HasErrors() {
		t.Fatalf("the account file: %v", diags)
	}
	if v, ok := c.Limits.Set.Get(limit.MaxLiabilityPerRace); !ok || v.Dollars != 40 {
		t.Errorf("the account file sets %v, %v; want $40", v, ok)
	}
	src := "version: 1\nname: card\nlimits: {max_total_stake: 50, max_liability_per_race: 40}\nbets:\n  - {id: b1, race: {venue: Flemington, code: Galloping, event_number: 5}, selection: \"1\", type: Fixed Wager, market: Fixed Win, stake: 5}\n"
	_, diags = plan.Parse("card.yaml", []byte(src))
	want := "card.yaml:3:31: max_liability_per_race is a limit of the account file only: it counts every plan of the account together, so it goes in the limits of betplan.yaml, not a plan's"
	if len(diags) == 0 || !strings.HasPrefix(diags[0].String(), want) || diags[0].RuleOf().ID != "BP006" {
		t.Errorf("a plan that sets it: %v\nwant %s (BP006)", diags, want)
	}
}
