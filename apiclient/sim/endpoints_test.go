package sim_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestNamecodes(t *testing.T) {
	e := setup(t, sim.Options{Seed: 1})
	var races []struct {
		Code        string   `json:"code"`
		Name        []string `json:"name"`
		EventNumber int      `json:"event_number"`
		StartTime   string   `json:"starttime"`
		Runners     string   `json:"runners"`
		RunnerNames string   `json:"runner_names"`
		Country     string   `json:"country"`
		ScrapeDate  string   `json:"scrape_date"`
	}
	e.do("GET", "/competition/namecodes/", nil).decode(t, &races)
	codes := map[string]bool{}
	venues := map[string]int{}
	for _, r := range races {
		codes[r.Code] = true
		venues[r.Name[0]]++
		st, err := time.Parse(time.RFC3339, r.StartTime)
		if err != nil || !st.After(start) {
			t.Fatalf("starttime %q: %v", r.StartTime, err)
		}
		_, off := st.Zone()
		wantOff := 11 * 3600 // March: daylight time in the south
		switch r.Name[0] {
		case "Eagle Farm", "Albion Park":
			wantOff = 10 * 3600 // Queensland has none
		case "Gloucester Park":
			wantOff = 8 * 3600 // nor has Western Australia, three hours behind
		}
		if off != wantOff {
			t.Errorf("%s: offset %d", r.StartTime, off)
		}
		n := len(strings.Split(r.Runners, ","))
		if n < 6 || n > 10 || len(strings.Split(r.RunnerNames, ",")) != n || r.Country != "AUS" || r.ScrapeDate == "" {
			t.Errorf("race %+v", r)
		}
	}
	if len(codes) != 3 || venues["Flemington"] < 8 || venues["The Meadows"] < 8 || venues["Gloucester Park"] < 8 {
		t.Fatalf("codes %v venues %v", codes, venues)
	}
	// Only upcoming races: after the first start, that race is gone.
	first := e.firstRace("Flemington")
	e.clock.Set(first.Start)
	var later []struct {
		Name        []string `json:"name"`
		EventNumber int      `json:"event_number"`
	}
	e.do("GET", "/competition/namecodes/", nil).decode(t, &later)
	for _, r := range later {
		if r.Name[0] == "Flemington" && r.EventNumber == first.EventNumber && len(later) > 0 {
			// the next meeting's race 1 is listed too; it must start later
			for _, ri := range e.svc.Races() {
				if ri.Venue == "Flemington" && ri.EventNumber == 1 && !ri.Start.After(first.Start) && ri.Start != first.Start {
					t.Errorf("a started race is listed")
				}
			}
		}
	}
	if len(later) >= len(races) {
		t.Errorf("%d races listed after one started, %d before", len(later), len(races))
	}
}

func TestCreateResponseShapes(t *testing.T) {
	e := setup(t, sim.Options{CreateResponse: sim.CreateIDMessage, BareBetArrays: true})
	r := e.firstRace("Flemington")
	res := e.do("POST", "/notification/create/", createBody(r, "1", "shape"))
	var body map[string]any
	res.decode(t, &body)
	id, ok := body["id"].(string)
	if !ok || body["message"] != "Notification created" {
		t.Fatalf("body %s", res.Body)
	}
	e.clock.Advance(5 * time.Second)
	var bets []betRecord
	e.do("GET", "/bet/notification/"+id, nil).decode(t, &bets) // old doc: no trailing slash, bare array
	if len(bets) != 2 {
		t.Fatalf("bare array of %d records", len(bets))
	}
}

func TestSessionControl(t *testing.T) {
	e := setup(t, sim.Options{})
	var out map[string]any
	e.do("POST", "/bookieaccount/control/4419/", map[string]string{"command": "ON"}).decode(t, &out)
	if out["bot_status"] != "RUNNING" || out["previous_status"] != "STOPPED" || out["account_id"] != "4419" {
		t.Fatalf("control: %v", out)
	}
	var s map[string]any
	e.do("GET", "/bookieaccount/4419/", nil).decode(t, &s)
	if s["bot_running"] != true || s["login_status"] != "LOGGED_IN" {
		t.Fatalf("session after ON: %v", s)
	}
	e.do("POST", "/bookieaccount/control/", map[string]string{"command": "all_off"}).decode(t, &out)
	if out["affected_accounts"] != 3.0 {
		t.Fatalf("all_off: %v", out)
	}
	for _, si := range e.svc.Sessions() {
		if si.BotRunning {
			t.Errorf("%d still running", si.ID)
		}
	}
}

// TestEveryEndpointAnswers walks the spec's endpoint table: each answers
// with JSON and a status a client can act on.
func TestEveryEndpointAnswers(t *testing.T) {
	e := setup(t, sim.Options{})
	r := e.firstRace("Flemington")
	n := e.create(createBody(r, "1", "walk"))
	e.clock.Advance(5 * time.Second)
	recs := e.bets(n.ID)
	tests := []struct {
		method, path string
		body         any
		want         int
	}{
		{"POST", "/account/logout/", nil, 200},
		{"GET", "/account/readiness/", nil, 200},
		{"GET", "/account/connect_activity/", nil, 200},
		{"GET", "/bookie/names/", nil, 200},
		{"GET", "/bookie/42/", nil, 200},
		{"GET", "/bookie/3/", nil, 404},
		{"GET", "/bookie/markets/", nil, 200},
		{"GET", "/bet/codes/", nil, 200},
		{"GET", "/bet/markets/", nil, 200},
		{"GET", "/event/list/", nil, 200},
		{"GET", "/event/9001/", nil, 200},
		{"GET", "/notification/types/", nil, 200},
		{"GET", "/notification/scheduled/", nil, 200},
		{"GET", fmt.Sprintf("/notification/%d/race/detail/", n.ID), nil, 200},
		{"GET", "/bet/", nil, 200},
		{"POST", "/bet/search/", map[string]any{"ids": []int{recs[0].ID}}, 200},
		{"GET", "/bet/summary/", nil, 200},
		{"GET", "/bot/logs/", nil, 200},
		{"GET", fmt.Sprintf("/bot/logs/%d/", n.ID), nil, 200},
		{"POST", "/pick/tipster/publish/", map[string]any{"apikey": "SIMPACKAGEKEY001", "tips": []map[string]any{{
			"competition": r.Venue, "code": r.Code, "event_number": r.EventNumber, "market": "Fixed Win", "selection": "1",
			"amount_units": 1, "odds": 2.0, "max_odds": 5.0, "bookies": "41&42", "use_bonus": false}}}, 200},
		{"POST", "/pick/tipster/message/", map[string]string{"apikey": "SIMPACKAGEKEY001"}, 200},
		{"POST", "/pick/tipster/prealert/", map[string]string{"apikey": "BAD"}, 404},
		{"POST", "/account/forgot_password/", map[string]string{"email": "a@b.c"}, 200},
		{"POST", "/account/signup/", map[string]string{"email": "new@example.com", "password": "long-enough"}, 201},
	}
	for _, tt := range tests {
		res := e.do(tt.method, tt.path, tt.body)
		if res.Status != tt.want || !json.Valid(res.Body) {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, res.Status, res.Body)
		}
	}
	var found []betRecord
	e.do("POST", "/bet/search/", map[string]any{"ids": []int{recs[0].ID}}).decode(t, &found)
	if len(found) != 1 || found[0].ID != recs[0].ID {
		t.Errorf("search found %+v", found)
	}
}

func TestScaledClock(t *testing.T) {
	c := sim.NewScaledClock(start, 600)
	if err := c.Sleep(t.Context(), time.Minute); err != nil { // 100ms of real time
		t.Fatal(err)
	}
	if got := c.Now().Sub(start); got < time.Minute || got > 10*time.Minute {
		t.Fatalf("a minute of sim sleep moved the clock %v", got)
	}
	m := sim.NewManualClock(start)
	_ = m.Sleep(t.Context(), time.Hour)
	if !m.Now().Equal(start.Add(time.Hour)) {
		t.Fatalf("manual sleep: %v", m.Now())
	}
}
