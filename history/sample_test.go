package history_test

import (
	"time"

	"github.com/betplan/betplan/history"
)

// sampleBets are a few bets of two plans on two days: a win, two losses,
// a void, a refusal, one still open, a tip with units and two sessions.
func sampleBets() []history.Bet {
	at := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	units := 1.5
	return []history.Bet{
		{Plan: "b", Label: "b1", Final: true, Result: "won", Accepted: 1000, Profit: 1500, Odds: 2.5, Day: "2026-11-21", Venue: "Flemington", Code: "Galloping", Market: "Fixed Win", Type: "Fixed Wager", At: at(21, 3),
			Sessions: []history.Session{{Name: "Main Sportsbet", Accepted: 600, Odds: 2.5, Profit: 900}, {Name: "Ladbrokes 2", Accepted: 400, Odds: 2.5, Profit: 600}}},
		{Plan: "a", Label: "a1", Final: true, Result: "lost", Accepted: 500, Profit: -500, Odds: 3, Day: "2026-11-21", Venue: "The Meadows", Code: "Greyhounds", Type: "Fixed Profit", At: at(21, 4), Units: &units, Tips: true},
		{Plan: "a", Label: "a2", Final: true, Result: "lost", Accepted: 200, Profit: -200, Odds: 5, Day: "2026-11-22", Venue: "The Meadows", Code: "Greyhounds", Type: "Fixed Wager", At: at(22, 4)},
		{Plan: "a", Label: "a3", Final: true, Result: "void", Accepted: 300, Profit: 0, Odds: 4, Day: "2026-11-22", Venue: "Flemington", Code: "Galloping", Type: "Fixed Wager", At: at(22, 5)},
		{Plan: "b", Label: "b2", Final: true, Result: "not_placed", Day: "2026-11-22", Venue: "Flemington", Code: "Galloping", Type: "Fixed Wager", At: at(22, 6)},
		{Plan: "b", Label: "b3", Day: "2026-11-23", Venue: "Flemington", Code: "Galloping"},
	}
}
