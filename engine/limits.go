package engine

import (
	"fmt"

	"github.com/betplan/betplan/plan"
)

// limitRefusal returns why one more bet of amount would break the plan's
// limits, given the amount and count of bets already used (usedWords says
// what those are: committed, or committed and planned), or "".
func limitRefusal(l plan.Limits, amount, used float64, count int, usedWords string) string {
	if err := l.CheckBet(amount); err != nil {
		return err.Error()
	}
	if l.MaxTotalStake != nil && used+amount > *l.MaxTotalStake+1e-9 {
		return fmt.Sprintf("max_total_stake %.2f: %.2f %s, this bet adds %.2f", *l.MaxTotalStake, used, usedWords, amount)
	}
	if l.MaxBets != nil && count+1 > *l.MaxBets {
		return fmt.Sprintf("max_bets %d: %d bets %s", *l.MaxBets, count, usedWords)
	}
	return ""
}
