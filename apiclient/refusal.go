package apiclient

import (
	"regexp"

	"github.com/betplan/betplan/reason"
)

// What a session's refusal of a bet means. A bet record's submit_error is
// the bookmaker's (or the bot's) own words (service facts §4.2: "The
// minimum stake is $1."); the service gives no code. This table is the one
// place those words are read: each row is a pattern of the raw words
// beside the reason it gives. Words no row matches are SessionRefused, the
// words kept as they came.
var refusalWords = []struct {
	words *regexp.Regexp
	code  reason.Code
}{
	// The plan's own odds bound (check_odds, check_max_odds): "Odds 2.10
	// are below the minimum of 2.50.", "Odds 9.00 are above the maximum of
	// 8.00.", "price too low", "odds changed beyond the limit".
	{regexp.MustCompile(`(?i)\bodds\b.*\b(below|above|under|over|beyond|exceed|higher|lower)\b|\b(below|above)\b.*\bodds\b|\bprice\b.*\b(too (low|high)|below|above)\b`), reason.OddsBound},
	// The bookmaker's stake bounds: "The minimum stake is $1.", "Maximum
	// stake for this market is $50.", "stake exceeds the max bet",
	// "Bet amount is below the minimum bet amount".
	{regexp.MustCompile(`(?i)\b(min(imum)?|max(imum)?)\b.*\b(stake|bet|wager|amount)\b|\b(stake|bet|wager|amount)\b.*\b(min(imum)?|max(imum)?|limit)\b|\bstake limit`), reason.StakeLimit},
	{regexp.MustCompile(`(?i)insufficient\s+(funds|balance)|not enough (funds|balance)|balance (is )?too low`), reason.InsufficientFunds},
	{regexp.MustCompile(`(?i)log(ged)?[ -]?(in|out)|login|sign(ed)?[ -]?in|session (has )?expired|not authenticated|unauthori[sz]ed`), reason.LoggedOut},
	{regexp.MustCompile(`(?i)market\b.*\b(not|un)\s*(available|found|offered|open)|(selection|runner)\b.*\b(not found|unavailable|scratched)|suspended|closed`), reason.MarketUnavailable},
}

// RefusalReason is the reason a session's submit_error gives: the one
// reading of the service's refusal words.
func RefusalReason(submitError string) reason.Code {
	for _, row := range refusalWords {
		if row.words.MatchString(submitError) {
			return row.code
		}
	}
	return reason.SessionRefused
}
