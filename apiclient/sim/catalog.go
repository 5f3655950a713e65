package sim

import (
	"bytes"
	"net/http"
	"strings"
)

// GET /competition/namecodes/: a bare array of the races not yet started.
// Each race's entry is encoded once and kept until the race changes
// (changeRace): a run reads the list every few sim-minutes, and encoding
// a day's card of maps each time was most of the simulated service's work.
func (s *Service) namecodes(c *call) {
	var b bytes.Buffer
	b.WriteByte('[')
	first := true
	for _, r := range s.world.races {
		if !r.Start.After(c.now) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(r.namecode())
	}
	b.WriteByte(']')
	writeRaw(c.w, http.StatusOK, b.Bytes())
}

// namecodeEntry is a race as namecodes lists it, its fields in the order
// the service's (sorted) keys come.
type namecodeEntry struct {
	Code        string   `json:"code"`
	Country     string   `json:"country"`
	EventNumber int      `json:"event_number"`
	Name        []string `json:"name"`
	RunnerNames string   `json:"runner_names"`
	Runners     string   `json:"runners"`
	ScrapeDate  string   `json:"scrape_date"`
	StartTime   string   `json:"starttime"`
}

// namecode is the race's encoded namecodes entry, made on first use.
func (r *race) namecode() []byte {
	if r.wire == nil {
		r.wire = encode(namecodeEntry{
			Code:        r.Venue.Code,
			Country:     "AUS",
			EventNumber: r.EventNumber,
			Name:        r.Venue.Names,
			RunnerNames: r.runnerNames(","),
			Runners:     r.runnersCSV(),
			ScrapeDate:  r.local(r.ScrapeDate).Format(layoutMicro),
			StartTime:   r.local(r.Start).Format(layoutSecond),
		})
	}
	return r.wire
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
