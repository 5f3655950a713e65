package reporters

import (
	"time"

	"github.com/betplan/betplan/engine"
)

// Event is the sports event a bet is on, and what of it the bet backs.
type Event struct {
	ID          string   `json:"id" jsonschema_description:"The event's id as the service lists it; may be empty while unresolved when the plan names it by sport and name."`
	Sport       string   `json:"sport" jsonschema_description:"The sport as the service names it, e.g. AFL, NBA, Tennis."`
	Name        string   `json:"name" jsonschema_description:"The event's name, e.g. Collingwood v Carlton."`
	Competition string   `json:"competition" jsonschema_description:"The competition, when the service gives it; empty otherwise."`
	Start       *string  `json:"start" jsonschema:"nullable,format=date-time" jsonschema_description:"Advertised start, RFC 3339 in the offset the service gave; null when unresolved."`
	Market      string   `json:"market" jsonschema_description:"The event's market backed, e.g. Head To Head, Line."`
	MarketID    string   `json:"market_id" jsonschema_description:"The market's id, sent as sports_market; empty when unresolved."`
	Selection   string   `json:"selection" jsonschema_description:"The selection backed, e.g. Collingwood, Over."`
	SelectionID string   `json:"selection_id" jsonschema_description:"The selection's id, sent as sports_selection; empty when unresolved."`
	Handicap    *float64 `json:"handicap" jsonschema:"nullable" jsonschema_description:"The line sent with the bet (the plan's, else the one the event listed); null on markets without lines."`
}

func newEvent(e *engine.EventInfo, start time.Time) *Event {
	out := &Event{ID: e.ID, Sport: e.Sport, Name: e.Name, Competition: e.Competition, Start: raceTimePtr(start), Market: e.Market,
		MarketID: e.MarketID, Selection: e.Selection, SelectionID: e.SelectionID}
	if e.Handicap != nil {
		h := *e.Handicap
		out.Handicap = &h
	}
	return out
}

// eventName names an event as the tables show it: its name, or its id
// when the plan names it by id and it was never found.
func eventName(e *engine.EventInfo) string {
	switch {
	case e.Name != "":
		return e.Name
	case e.ID != "":
		return "event " + e.ID
	}
	return "-"
}
