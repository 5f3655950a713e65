package sim

import (
	"net/http"
	"strings"
	"time"
)

// GET /competition/namecodes/: a bare array of the races not yet started.
func (s *Service) namecodes(c *call) {
	out := []any{}
	for _, r := range s.world.races {
		if !r.Start.After(c.now) {
			continue
		}
		out = append(out, map[string]any{
			"code":         r.Venue.Code,
			"name":         r.Venue.Names,
			"event_number": r.EventNumber,
			"starttime":    r.local(r.Start).Format(layoutSecond),
			"runners":      r.runnersCSV(),
			"runner_names": r.runnerNames(","),
			"country":      "AUS",
			"scrape_date":  r.local(r.ScrapeDate).Format(layoutMicro),
		})
	}
	writeJSON(c.w, http.StatusOK, out)
}

type bookmaker struct {
	ID    int
	Title string
}

// A part of the client's bookmaker table (facts §8).
var bookmakers = []bookmaker{
	{1, "BetDeluxe"}, {2, "RobWaterhouse"}, {7, "ZBet"}, {8, "WishBet"}, {23, "Neds"}, {25, "Ladbrokes"},
	{27, "PlayUp"}, {31, "TopSport"}, {32, "Tabtouch"}, {39, "BetRight"}, {41, "TAB"}, {42, "Sportsbet"},
	{43, "PointsBet"}, {45, "Palmerbet"}, {46, "Unibet"}, {49, "Betfair"}, {77, "Betr"}, {152, "Dabble"},
}

func (b bookmaker) json() map[string]any {
	unavailable := ""
	if b.ID == 49 {
		unavailable = "Fixed Place,Top Fluc"
	}
	return map[string]any{
		"id": b.ID, "title": b.Title, "markets_unavailable": unavailable,
		"icon_uri":             "https://betmatic-bucket.s3.ap-southeast-2.amazonaws.com/bookie_icon/" + strings.ToLower(b.Title) + ".png",
		"enabled":              true,
		"bonus_enabled":        b.ID != 49,
		"sports":               b.ID != 32,
		"sports_bonus_enabled": false,
		"maintain":             false,
		"support_manual_login": true,
		"note":                 "",
	}
}

// GET /bookie/names/: a bare array of bookmakers.
func (s *Service) bookieNames(c *call) {
	out := []any{}
	for _, b := range bookmakers {
		out = append(out, b.json())
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bookie/{id}/
func (s *Service) bookieDetail(c *call) {
	for _, b := range bookmakers {
		if b.ID == c.id {
			writeJSON(c.w, http.StatusOK, b.json())
			return
		}
	}
	writeError(c.w, http.StatusNotFound, "Not found.")
}

var sportsMarkets = map[string][]string{
	"AFL": {"Head To Head", "Line", "Total Points"},
	"NBA": {"Head To Head", "Line", "Total Points"},
	"NRL": {"Head To Head", "Line"},
}

// GET /bookie/markets/: sports → market names.
func (s *Service) bookieMarkets(c *call) { writeJSON(c.w, http.StatusOK, sportsMarkets) }

type sportsEvent struct {
	ID           int
	Sports, Name string
	Competition  string
	Home, Away   string
}

var sportsEvents = []sportsEvent{
	{9001, "AFL", "Collingwood v Carlton", "AFL Premiership", "Collingwood", "Carlton"},
	{9002, "NBA", "Lakers v Celtics", "NBA Regular Season", "Lakers", "Celtics"},
	{9003, "NRL", "Storm v Panthers", "NRL Telstra Premiership", "Storm", "Panthers"},
}

func (s *Service) eventJSON(c *call, e sportsEvent, detail bool) map[string]any {
	start := s.world.start.Add(26*time.Hour + time.Duration(e.ID-9000)*time.Hour)
	m := map[string]any{
		"id": e.ID, "sports": e.Sports, "name": e.Name, "competition": e.Competition,
		"start_time": localTime(start, "VIC").Format(layoutSecond),
	}
	if detail {
		markets := []any{}
		for i, mk := range sportsMarkets[e.Sports] {
			mid := e.ID*10 + i
			markets = append(markets, map[string]any{
				"id": mid, "name": mk,
				"selections": []any{
					map[string]any{"id": mid*10 + 1, "name": e.Home, "odds": 1.85},
					map[string]any{"id": mid*10 + 2, "name": e.Away, "odds": 1.95},
				},
			})
		}
		m["markets"] = markets
	}
	return m
}

// GET /event/list/: a bare array of sports events.
func (s *Service) eventList(c *call) {
	out := []any{}
	for _, e := range sportsEvents {
		out = append(out, s.eventJSON(c, e, false))
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /event/{id}/: the event with its markets and selections.
func (s *Service) eventDetail(c *call) {
	for _, e := range sportsEvents {
		if e.ID == c.id {
			writeJSON(c.w, http.StatusOK, s.eventJSON(c, e, true))
			return
		}
	}
	writeError(c.w, http.StatusNotFound, "Not found.")
}
