package apiclient_test

import (
	"testing"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/reason"
)

// The one reading of a session's refusal words: the bookmaker's and the
// simulator's sentences each give their reason; words no row knows are
// kept as the sessions' own refusal.
func TestRefusalReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		words string
		want  reason.Code
	}{
		{"Odds 2.10 are below the minimum of 2.50.", reason.OddsBound},
		{"Odds 9.00 are above the maximum of 8.00.", reason.OddsBound},
		{"Price too low for this bet", reason.OddsBound},
		{"The minimum stake is $1.", reason.StakeLimit},
		{"Maximum stake for this market is $50.", reason.StakeLimit},
		{"Bet amount exceeds the max bet limit", reason.StakeLimit},
		{"Insufficient funds in your account.", reason.InsufficientFunds},
		{"Not logged in: please log in again", reason.LoggedOut},
		{"Session expired", reason.LoggedOut},
		{"Market not available", reason.MarketUnavailable},
		{"Selection not found", reason.MarketUnavailable},
		{"Market suspended", reason.MarketUnavailable},
		{"Something went wrong", reason.SessionRefused},
		{"", reason.SessionRefused},
	}
	for _, tt := range tests {
		if got := apiclient.RefusalReason(tt.words); got != tt.want {
			t.Errorf("RefusalReason(%q) = %s, want %s", tt.words, got, tt.want)
		}
	}
}
