package plan_test

import (
	"testing"

	"github.com/betplan/betplan/plan"
)

// The engine hashes FoldVenue's result into every label: a change here
// changes the label of every bet already created.
func TestFoldVenue(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"as written", "The Meadows", "the meadows"},
		{"runs of spaces", "The  Meadows", "the meadows"},
		{"upper case, tabs and ends", " THE\tMEADOWS\n", "the meadows"},
		{"empty", "", ""},
		{"only spaces", "   ", ""},
		{"non-ASCII letters", "ÉCHUCA", "échuca"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equal(t, tt.want, plan.FoldVenue(tt.in))
		})
	}
}

func TestAmountFieldFor(t *testing.T) {
	tests := []struct {
		betType string
		want    plan.AmountField
	}{
		{plan.TypeFixedProfit, "target_profit"},
		{plan.TypeFixedWager, "stake"},
		{plan.TypeHighOddsFirst, "stake"},
		{"Serial", "stake"},
		{"FIXED PROFIT", "target_profit"}, // the service's spelling is read tolerantly
		{"", "stake"},
	}
	for _, tt := range tests {
		t.Run(tt.betType, func(t *testing.T) {
			equal(t, tt.want, plan.AmountFieldFor(tt.betType))
			b := &plan.Bet{Type: tt.betType}
			equal(t, tt.want, b.AmountField(), "Bet.AmountField")
		})
	}
}
