package sim

import (
	"net/http"
	"strings"
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

// GET /bookie/markets/: sports → market names.
func (s *Service) bookieMarkets(c *call) { writeJSON(c.w, http.StatusOK, sportsMarkets) }

// GET /event/list/: a bare array of the sports events not started yet
// (events.go).
func (s *Service) eventList(c *call) { writeJSON(c.w, http.StatusOK, s.world.eventList(c.now)) }

// GET /event/{id}/: the event with its markets and selections, and its
// score once resulted; any event of the world, started or not.
func (s *Service) eventDetail(c *call) {
	if e := s.world.event(c.id); e != nil {
		writeJSON(c.w, http.StatusOK, e.detailJSON(c.now))
		return
	}
	writeError(c.w, http.StatusNotFound, "Not found.")
}
