package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

// detailView is GET /bet/notification/{id}/ with its lines.
type detailView struct {
	Bets    []betRecord `json:"bets"`
	BotLogs []struct {
		ID  int    `json:"id"`
		Log string `json:"log"`
	} `json:"bot_logs"`
}

// A session's bookmaker refuses what its account does not allow, as the
// real bots are expected to: a stake outside its min_bet_amount and
// max_bet_amount (refused, not capped, in the bookmaker's words), a market
// it does not offer the account. A session whose bot runs but is not
// logged in makes no record; its line on the notification says why.
func TestSessionRefusals(t *testing.T) {
	tests := []struct {
		name    string
		set     func(svc *sim.Service)
		stake   float64
		session int
		record  string // the record's submit_error; "" for no record
		line    string // a bot line of the notification contains it
	}{
		{"above the maximum", func(svc *sim.Service) { svc.SetStakeBounds(4418, 1, 50) }, 80, 4418,
			"The maximum stake is $50.", "Ladbrokes 2: bet failed: The maximum stake is $50."},
		{"below the minimum", func(svc *sim.Service) { svc.SetStakeBounds(4418, 5, 0) }, 2.5, 4418,
			"The minimum stake is $5.", "Ladbrokes 2: bet failed: The minimum stake is $5."},
		{"within the bounds", func(svc *sim.Service) { svc.SetStakeBounds(4418, 5, 100) }, 80, 4418,
			"Bet has been placed.", "Ladbrokes 2: placed $80.00"},
		{"a market refused", func(svc *sim.Service) { svc.SetRefusedMarkets(4417, "Fixed Win") }, 10, 4417,
			"Market Fixed Win is not available for this account.", "Main Sportsbet: bet failed: Market Fixed Win is not available"},
		{"logged out", func(svc *sim.Service) { svc.SetLoginError(4417, "invalid password") }, 10, 4417,
			"", "Main Sportsbet: not logged in to Sportsbet (invalid password): bet not placed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, sim.Options{Seed: 5})
			tt.set(e.svc)
			body := createBody(e.firstRace("Flemington"), "1", "refusals")
			body["stake"], body["target_session"] = tt.stake, fmt.Sprint(tt.session)
			n := e.create(body)
			e.clock.Advance(10 * time.Second)
			var d detailView
			e.do("GET", fmt.Sprintf("/bet/notification/%d/", n.ID), nil).decode(t, &d)
			switch {
			case tt.record == "" && len(d.Bets) != 0:
				t.Errorf("records %+v, want none", d.Bets)
			case tt.record != "" && (len(d.Bets) != 1 || d.Bets[0].SubmitError != tt.record):
				t.Errorf("records %+v, want one saying %q", d.Bets, tt.record)
			}
			var lines []string
			for _, l := range d.BotLogs {
				lines = append(lines, l.Log)
			}
			if !strings.Contains(strings.Join(lines, "\n"), tt.line) {
				t.Errorf("bot lines %q, want one with %q", lines, tt.line)
			}
		})
	}
}

// The stake bounds a bot enforces are the ones its session lists.
func TestSessionListsStakeBounds(t *testing.T) {
	e := setup(t, sim.Options{})
	e.svc.SetStakeBounds(4418, 2, 50)
	var ss []struct {
		ID       int `json:"id"`
		Settings struct {
			Min float64 `json:"min_bet_amount"`
			Max float64 `json:"max_bet_amount"`
		} `json:"account_settings"`
	}
	e.do("GET", "/bookieaccount/", nil).decode(t, &ss)
	for _, s := range ss {
		want := [2]float64{1, 1000}
		if s.ID == 4418 {
			want = [2]float64{2, 50}
		}
		if got := [2]float64{s.Settings.Min, s.Settings.Max}; got != want {
			t.Errorf("session %d: bounds %v, want %v", s.ID, got, want)
		}
	}
}
