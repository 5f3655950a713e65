package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

type sportsEventJSON struct {
	ID        int     `json:"id"`
	Sports    string  `json:"sports"`
	Name      string  `json:"name"`
	StartTime string  `json:"start_time"`
	Status    string  `json:"status"`
	Result    *string `json:"result"`
	Markets   []struct {
		ID         int    `json:"id"`
		Name       string `json:"name"`
		Selections []struct {
			ID       int      `json:"id"`
			Name     string   `json:"name"`
			Odds     float64  `json:"odds"`
			Handicap *float64 `json:"handicap"`
		} `json:"selections"`
	} `json:"markets"`
}

// event returns the world's first event of a sport in its first round.
func (e *env) event(sport string) sim.SportsEventInfo {
	e.t.Helper()
	for _, ev := range e.svc.SportsEvents() {
		if ev.Sport == sport && ev.Start.After(e.clock.Now()) {
			return ev
		}
	}
	e.t.Fatalf("no upcoming %s event", sport)
	return sim.SportsEventInfo{}
}

func market(ev sim.SportsEventInfo, name string) sim.SportsMarketInfo {
	for _, m := range ev.Markets {
		if m.Name == name {
			return m
		}
	}
	panic("no market " + name)
}

func sportsBody(ev sim.SportsEventInfo, m sim.SportsMarketInfo, sel int, label string) map[string]any {
	return map[string]any{
		"type": "Fixed Wager", "sports": ev.Sport, "event_id": ev.ID, "sports_market": m.ID,
		"sports_selection": m.Selections[sel].ID, "stake": 10, "label": label,
	}
}

// TestSportsEventsEveryDay: AFL, NBA and tennis events are listed minutes
// after the simulator starts, again every day, and leave the list when
// they start; the detail has head to head, line and total markets.
func TestSportsEventsEveryDay(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	var list []sportsEventJSON
	e.do("GET", "/event/list/", nil).decode(t, &list)
	sports := map[string]int{}
	names := map[string]bool{}
	for _, ev := range list {
		sports[ev.Sports]++
		names[ev.Name] = true
		st, err := time.Parse(time.RFC3339, ev.StartTime)
		if err != nil || !st.After(start) {
			t.Errorf("event %d starts %q", ev.ID, ev.StartTime)
		}
		if ev.Status != "upcoming" || len(ev.Markets) != 0 {
			t.Errorf("a list entry: %+v", ev)
		}
	}
	for _, s := range []string{"AFL", "NBA", "Tennis"} {
		if sports[s] < 2 {
			t.Errorf("%d %s events listed, want a round of today's and tomorrow's", sports[s], s)
		}
	}
	first := e.event("NBA")
	if d := first.Start.Sub(start); d <= 0 || d > 30*time.Minute {
		t.Errorf("the first NBA game starts %s after the simulator, want minutes", d)
	}
	var detail sportsEventJSON
	e.do("GET", fmt.Sprintf("/event/%d/", first.ID), nil).decode(t, &detail)
	if detail.Name != "Lakers v Celtics" || len(detail.Markets) != 3 || detail.Result != nil {
		t.Fatalf("detail: %+v", detail)
	}
	for _, m := range detail.Markets {
		for _, s := range m.Selections {
			if s.Odds <= 1 || (m.Name != "Head To Head") != (s.Handicap != nil) {
				t.Errorf("%s %s: odds %v handicap %v", m.Name, s.Name, s.Odds, s.Handicap)
			}
		}
	}
	if r := e.do("GET", "/event/1/", nil); r.Status != 404 {
		t.Errorf("unknown event: %d", r.Status)
	}

	// A day later the same fixtures are listed again, with new ids; the
	// first has left the list and shows its score.
	e.clock.Advance(24 * time.Hour)
	e.do("GET", "/event/list/", nil).decode(t, &list)
	again := false
	for _, ev := range list {
		if ev.ID == first.ID {
			t.Errorf("event %d started yesterday and is still listed", ev.ID)
		}
		again = again || ev.Name == first.Name
	}
	if !again {
		t.Errorf("no %s today", first.Name)
	}
	e.do("GET", fmt.Sprintf("/event/%d/", first.ID), nil).decode(t, &detail)
	if detail.Status != "finished" || detail.Result == nil || !strings.HasPrefix(*detail.Result, "Lakers ") {
		t.Errorf("yesterday's game: status %s result %v", detail.Status, detail.Result)
	}
}

// TestSportsBetSettles: a sports notification is placed by the bots at
// the selection's odds and settled by the final score, market by market.
func TestSportsBetSettles(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	ev := e.event("AFL")
	type bet struct {
		market string
		sel    int
		won    bool
		void   bool
	}
	margin := float64(ev.HomeScore - ev.AwayScore)
	total := float64(ev.HomeScore + ev.AwayScore)
	h2h, line, tot := market(ev, "Head To Head"), market(ev, "Line"), market(ev, "Total Points")
	bets := []bet{
		{market: "Head To Head", sel: 0, won: margin > 0, void: margin == 0},
		{market: "Head To Head", sel: 1, won: margin < 0, void: margin == 0},
		{market: "Line", sel: 0, won: margin+line.Selections[0].Line > 0},
		{market: "Line", sel: 1, won: -margin+line.Selections[1].Line > 0},
		{market: "Total Points", sel: 0, won: total > tot.Selections[0].Line},
		{market: "Total Points", sel: 1, won: total < tot.Selections[1].Line},
	}
	ids := make([]int, len(bets))
	for i, b := range bets {
		m := map[string]sim.SportsMarketInfo{"Head To Head": h2h, "Line": line, "Total Points": tot}[b.market]
		body := sportsBody(ev, m, b.sel, fmt.Sprintf("s-%d", i))
		res := e.do("POST", "/notification/create/", body)
		if res.Status != 200 {
			t.Fatalf("create %+v: %d %s", b, res.Status, res.Body)
		}
		var n struct {
			ID              int      `json:"id"`
			Sports          string   `json:"sports"`
			EventID         int      `json:"event_id"`
			SportsMarket    int      `json:"sports_market"`
			SportsSelection int      `json:"sports_selection"`
			Handicap        *float64 `json:"handicap"`
			Tip             struct {
				Market      string `json:"market"`
				Selection   string `json:"selection"`
				Competition struct {
					Name string `json:"name"`
				} `json:"competition"`
			} `json:"tip"`
		}
		res.decode(t, &n)
		if n.Sports != "AFL" || n.EventID != ev.ID || n.SportsMarket != m.ID || n.SportsSelection != m.Selections[b.sel].ID ||
			n.Tip.Market != b.market || n.Tip.Selection != m.Selections[b.sel].Name || n.Tip.Competition.Name != ev.Name {
			t.Fatalf("the notification does not echo the bet: %s", res.Body)
		}
		if (n.Handicap != nil) != m.Selections[b.sel].HasLine {
			t.Errorf("%s: handicap %v", b.market, n.Handicap)
		}
		ids[i] = n.ID
	}
	e.clock.Advance(10 * time.Second)
	for i, id := range ids {
		recs := e.bets(id)
		if len(recs) != 2 || recs[0].SubmitResult != "Success" {
			t.Fatalf("bet %d: records %+v", i, recs)
		}
	}
	e.clock.Advance(ev.End.Sub(e.clock.Now()) - time.Minute)
	if n := e.notification(ids[0]); n.Tip.ResultTime != nil {
		t.Fatal("resulted before the end")
	}
	e.clock.Advance(5 * time.Minute)
	for i, b := range bets {
		n := e.notification(ids[i])
		if n.Tip.ResultTime == nil || n.Tip.Competition.Result != fmt.Sprintf("Collingwood %d - %d Carlton", ev.HomeScore, ev.AwayScore) {
			t.Fatalf("bet %d not resulted: %+v", i, n)
		}
		recs := e.bets(ids[i])
		switch {
		case b.void:
			if n.Profit != 0 || recs[0].Status != "VOID" {
				t.Errorf("bet %d (%s %d) should be void: profit %v, %+v", i, b.market, b.sel, n.Profit, recs[0])
			}
		case b.won:
			if n.Profit <= 0 || recs[0].TransactionResult != "WIN" {
				t.Errorf("bet %d (%s %d) should have won: profit %v", i, b.market, b.sel, n.Profit)
			}
		default:
			if n.Profit != -n.TotalAccepted || recs[0].TransactionResult != "LOSS" {
				t.Errorf("bet %d (%s %d) should have lost: profit %v", i, b.market, b.sel, n.Profit)
			}
		}
	}
}

// TestSportsLine: a line asked for that is not the listed one is refused,
// unless the listed one is better and accept_better_line says take it.
func TestSportsLine(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	ev := e.event("NBA")
	line := market(ev, "Line")
	home := line.Selections[0]
	tests := []struct {
		asked  float64
		better bool
		placed bool
	}{
		{home.Line, false, true},
		{home.Line - 2, false, false}, // the listed line is better: not without accept_better_line
		{home.Line - 2, true, true},
		{home.Line + 2, true, false}, // the listed line is worse
	}
	for i, tt := range tests {
		body := sportsBody(ev, line, 0, fmt.Sprintf("l-%d", i))
		body["handicap"], body["accept_better_line"] = tt.asked, tt.better
		n := e.create(body)
		e.clock.Advance(5 * time.Second)
		recs := e.bets(n.ID)
		if len(recs) == 0 || (recs[0].SubmitResult == "Success") != tt.placed {
			t.Errorf("asked %v (better %v): %+v", tt.asked, tt.better, recs)
		}
	}
}

// TestSportsCreateErrors: the ids are foreign keys.
func TestSportsCreateErrors(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	afl, nba := e.event("AFL"), e.event("NBA")
	h2h := market(afl, "Head To Head")
	tests := []struct {
		name  string
		edit  func(map[string]any)
		field string
	}{
		{"unknown event", func(b map[string]any) { b["event_id"] = 1 }, "event_id"},
		{"another event's market", func(b map[string]any) { b["event_id"] = nba.ID }, "sports_market"},
		{"another market's selection", func(b map[string]any) { b["sports_selection"] = market(afl, "Line").Selections[0].ID }, "sports_selection"},
		{"not a pk", func(b map[string]any) { b["sports_market"] = "Head To Head" }, "sports_market"},
		{"the wrong sport", func(b map[string]any) { b["sports"] = "NRL" }, "sports"},
		{"a line that is not a number", func(b map[string]any) { b["handicap"] = "minus six" }, "handicap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sportsBody(afl, h2h, 0, "x")
			tt.edit(body)
			res := e.do("POST", "/notification/create/", body)
			var fe map[string][]string
			res.decode(t, &fe)
			if res.Status != 400 || len(fe[tt.field]) == 0 {
				t.Errorf("%d %s, want a 400 on %s", res.Status, res.Body, tt.field)
			}
		})
	}
	// Ids as strings read as well (one client sends them so).
	body := sportsBody(afl, h2h, 1, "strings")
	for _, k := range []string{"event_id", "sports_market", "sports_selection"} {
		body[k] = fmt.Sprint(body[k])
	}
	e.create(body)
	if e.svc.NotificationCount() != 1 {
		t.Fatalf("%d notifications, want only the valid one", e.svc.NotificationCount())
	}
}

// TestSportsBetAfterTheStart: bots do not take a sports bet up once the
// event has started.
func TestSportsBetAfterTheStart(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	ev := e.event("Tennis")
	e.clock.Advance(ev.Start.Sub(e.clock.Now()) + time.Minute)
	n := e.create(sportsBody(ev, market(ev, "Head To Head"), 0, "late"))
	e.clock.Advance(time.Minute)
	if recs := e.bets(n.ID); len(recs) != 0 {
		t.Fatalf("taken up after the start: %+v", recs)
	}
}

// TestSportsDrawIsVoid: an AFL game can be drawn; head to head bets on it
// are void, every stake returned.
func TestSportsDrawIsVoid(t *testing.T) {
	e := setup(t, sim.Options{Seed: 5})
	var draw *sim.SportsEventInfo
	for day := 0; day < 200 && draw == nil; day++ {
		for _, ev := range e.svc.SportsEvents() {
			if ev.Sport == "AFL" && ev.HomeScore == ev.AwayScore && ev.Start.After(e.clock.Now()) {
				draw = &ev
				break
			}
		}
		if draw == nil {
			e.clock.Advance(24 * time.Hour)
		}
	}
	if draw == nil {
		t.Fatal("no drawn AFL game in 200 days")
	}
	for _, ev := range e.svc.SportsEvents() {
		if ev.Sport != "AFL" && ev.HomeScore == ev.AwayScore {
			t.Errorf("%s %s was drawn: only AFL draws", ev.Sport, ev.Name)
		}
	}
	n := e.create(sportsBody(*draw, market(*draw, "Head To Head"), 0, "draw"))
	e.clock.Advance(draw.End.Sub(e.clock.Now()) + 5*time.Minute)
	got := e.notification(n.ID)
	recs := e.bets(n.ID)
	if got.Tip.ResultTime == nil || got.Profit != 0 || got.TotalAccepted == 0 || recs[0].Status != "VOID" || recs[0].Profit != 0 {
		t.Fatalf("a drawn head to head: %+v %+v", got, recs)
	}
}
