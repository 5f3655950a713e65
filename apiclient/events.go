package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// No source shows the bodies of GET /event/list/ or GET /event/{id}/
// (service-facts.md §14): the spec names the endpoints ("sports events",
// "event detail with markets and selections") and the create call's
// sports fields (§2.1: sports, event_id, sports_market, sports_selection
// as foreign keys, handicap). So events are read tolerantly: each field
// is taken from the first of the spellings below that is present, a
// number may come as a string, a name as a string or an object with a
// name, the list bare or wrapped, and every object keeps its raw JSON.
// What is assumed is listed in EventAssumptions.
var (
	eventIDKeys          = []string{"id", "event_id", "eventId", "pk"}
	eventSportKeys       = []string{"sports", "sport", "sport_name", "sport_type", "category"}
	eventNameKeys        = []string{"name", "event_name", "eventName", "title", "description"}
	eventHomeKeys        = []string{"home", "home_team", "homeTeam", "team1", "player1"}
	eventAwayKeys        = []string{"away", "away_team", "awayTeam", "team2", "player2"}
	eventCompetitionKeys = []string{"competition", "league", "tournament", "competition_name"}
	eventStartKeys       = []string{"start_time", "starttime", "startTime", "start", "advertised_start", "commence_time", "date"}
	eventStatusKeys      = []string{"status", "state"}
	eventResultKeys      = []string{"result", "score", "final_score"}
	eventMarketsKeys     = []string{"markets", "sports_markets", "market_list"}
	marketIDKeys         = []string{"id", "market_id", "marketId", "pk"}
	marketNameKeys       = []string{"name", "market_name", "marketName", "title", "type"}
	marketSelectionKeys  = []string{"selections", "sports_selections", "runners", "outcomes", "options"}
	selectionIDKeys      = []string{"id", "selection_id", "selectionId", "pk"}
	selectionNameKeys    = []string{"name", "selection_name", "selectionName", "title", "team", "label"}
	selectionOddsKeys    = []string{"odds", "price", "win_odds", "decimal_odds"}
	selectionLineKeys    = []string{"handicap", "line", "points", "hcp"}
)

// EventAssumptions says, in words for a report, what betplan assumes of
// the service's sports endpoints, whose answers no source shows.
var EventAssumptions = []string{
	"GET /event/list/ answers a JSON array of events, bare or under results, events or data (paged like the notification list when it has next)",
	"an event carries id, sport (sports), name (or home and away sides), competition and start_time, under one of several spellings",
	"GET /event/{id}/ answers the event (bare, or under event or data) with markets, each with id, name and selections (id, name, odds, handicap)",
	"the create call's event_id, sports_market and sports_selection are the ids those endpoints list, sent as JSON numbers when they are numeric (integer foreign keys, as the docs type them), else as strings",
	"a sports notification is resulted like a racing one: tip.result_time is set and profit is final",
}

// Event is a sports event (GET /event/list/, GET /event/{id}/). Markets is
// empty in the list and filled in the detail.
type Event struct {
	ID          String
	Sport       string
	Name        string // "Home v Away" when the service gives only the sides
	Home, Away  string
	Competition string
	StartTime   Time
	Status      string
	Result      string
	Markets     []EventMarket

	// Raw is the whole object as received.
	Raw json.RawMessage
}

// EventMarket is one market of a sports event.
type EventMarket struct {
	ID         String
	Name       string
	Selections []EventSelection
	Raw        json.RawMessage
}

// EventSelection is one selection of a market: a side, a player, Over or
// Under, with its price and, on line markets, its handicap.
type EventSelection struct {
	ID          String
	Name        string
	Odds        Float
	Handicap    Float
	HasHandicap bool // a line of 0 is a line
	Raw         json.RawMessage
}

// MarshalJSON writes the decoded fields (for goldens and reports).
func (e Event) MarshalJSON() ([]byte, error) {
	type view struct {
		ID          String        `json:"id"`
		Sport       string        `json:"sport"`
		Name        string        `json:"name"`
		Home        string        `json:"home,omitempty"`
		Away        string        `json:"away,omitempty"`
		Competition string        `json:"competition,omitempty"`
		StartTime   Time          `json:"start_time"`
		Status      string        `json:"status,omitempty"`
		Result      string        `json:"result,omitempty"`
		Markets     []EventMarket `json:"markets"`
	}
	return json.Marshal(view{e.ID, e.Sport, e.Name, e.Home, e.Away, e.Competition, e.StartTime, e.Status, e.Result, e.Markets})
}

// MarshalJSON writes the decoded fields.
func (m EventMarket) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		ID         String           `json:"id"`
		Name       string           `json:"name"`
		Selections []EventSelection `json:"selections"`
	}{m.ID, m.Name, m.Selections})
}

// MarshalJSON writes the decoded fields; no handicap when it has none.
func (s EventSelection) MarshalJSON() ([]byte, error) {
	v := struct {
		ID       String   `json:"id"`
		Name     string   `json:"name"`
		Odds     Float    `json:"odds"`
		Handicap *float64 `json:"handicap,omitempty"`
	}{ID: s.ID, Name: s.Name, Odds: s.Odds}
	if s.HasHandicap {
		h := float64(s.Handicap)
		v.Handicap = &h
	}
	return json.Marshal(v)
}

// fields is a JSON object by key, read one field at a time.
type fields map[string]json.RawMessage

// raw is the first of keys present and not null.
func (f fields) raw(keys []string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			if t := bytes.TrimSpace(v); len(t) > 0 && string(t) != "null" {
				return t, true
			}
		}
	}
	return nil, false
}

// text reads a name: a string or number, or an object's name (or title).
func (f fields) text(keys []string) string {
	v, ok := f.raw(keys)
	if !ok {
		return ""
	}
	if v[0] == '{' {
		var obj fields
		if json.Unmarshal(v, &obj) != nil {
			return ""
		}
		return obj.text([]string{"name", "title", "code", "display_name"})
	}
	var s String
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return strings.TrimSpace(string(s))
}

func (f fields) decode(keys []string, dst json.Unmarshaler) (bool, error) {
	v, ok := f.raw(keys)
	if !ok {
		return false, nil
	}
	return true, dst.UnmarshalJSON(v)
}

// list reads an array of objects, or an object of objects keyed by name
// (the key is the name when the object has none).
func (f fields) list(keys []string) ([]json.RawMessage, []string, error) {
	v, ok := f.raw(keys)
	if !ok {
		return nil, nil, nil
	}
	switch v[0] {
	case '[':
		var out []json.RawMessage
		err := json.Unmarshal(v, &out)
		return out, make([]string, len(out)), err
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			return nil, nil, err
		}
		var out []json.RawMessage
		var names []string
		for _, k := range sortedKeys(obj) {
			out, names = append(out, obj[k]), append(names, k)
		}
		return out, names, nil
	}
	return nil, nil, fmt.Errorf("want a list, got %s", truncate(v))
}

// namedList decodes the list under keys (see list) into Ts; an item
// without a name takes its key's. Errors begin with owner and say which
// item failed, counting from 1.
func namedList[T any](f fields, keys []string, owner, item string, name func(*T) *string) ([]T, error) {
	items, names, err := f.list(keys)
	if err != nil {
		return nil, fmt.Errorf("%s %ss: %w", owner, item, err)
	}
	var out []T
	for i, it := range items {
		var x T
		if err := json.Unmarshal(it, &x); err != nil {
			return nil, fmt.Errorf("%s %s %d: %w", owner, item, i+1, err)
		}
		if n := name(&x); *n == "" {
			*n = names[i]
		}
		out = append(out, x)
	}
	return out, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func objectOf(b []byte, what string) (fields, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("apiclient: want %s as a JSON object, got %s", what, truncate(b))
	}
	var f fields
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return f, nil
}

// UnmarshalJSON reads an event under any of the spellings above.
func (e *Event) UnmarshalJSON(b []byte) error {
	return decodeObject(e, b, "an event", eventIDKeys, func(out *Event, f fields) (err error) {
		out.Sport = f.text(eventSportKeys)
		out.Name = f.text(eventNameKeys)
		out.Home, out.Away = f.text(eventHomeKeys), f.text(eventAwayKeys)
		if out.Name == "" && out.Home != "" && out.Away != "" {
			out.Name = out.Home + " v " + out.Away
		}
		out.Competition = f.text(eventCompetitionKeys)
		if _, err := f.decode(eventStartKeys, &out.StartTime); err != nil {
			return fmt.Errorf("event %s start: %w", out.ID, err)
		}
		out.Status = f.text(eventStatusKeys)
		out.Result = f.text(eventResultKeys)
		out.Markets, err = namedList(f, eventMarketsKeys, fmt.Sprintf("event %s", out.ID), "market",
			func(m *EventMarket) *string { return &m.Name })
		return err
	})
}

// UnmarshalJSON reads a market under any of the spellings above.
func (m *EventMarket) UnmarshalJSON(b []byte) error {
	return decodeObject(m, b, "a market", marketIDKeys, func(out *EventMarket, f fields) (err error) {
		out.Name = f.text(marketNameKeys)
		out.Selections, err = namedList(f, marketSelectionKeys, "market "+out.Name, "selection",
			func(s *EventSelection) *string { return &s.Name })
		return err
	})
}

// UnmarshalJSON reads a selection under any of the spellings above.
func (s *EventSelection) UnmarshalJSON(b []byte) error {
	return decodeObject(s, b, "a selection", selectionIDKeys, func(out *EventSelection, f fields) error {
		out.Name = f.text(selectionNameKeys)
		if _, err := f.decode(selectionOddsKeys, &out.Odds); err != nil {
			return fmt.Errorf("selection %s odds: %w", out.Name, err)
		}
		if v, ok := f.raw(selectionLineKeys); ok {
			if s, _ := unquoteScalar(v); s != "" {
				if err := out.Handicap.UnmarshalJSON(v); err != nil {
					return fmt.Errorf("selection %s handicap: %w", out.Name, err)
				}
				out.HasHandicap = true
			}
		}
		return nil
	})
}

// decodeObject reads b, the JSON object of what ("an event", "a
// market"), into *dst: its id under idKeys, then the rest with read; its
// Raw keeps b as the service sent it. Errors name what failed, and leave
// *dst as it was.
func decodeObject[T any, P interface {
	*T
	idAndRaw() (json.Unmarshaler, *json.RawMessage)
}](dst P, b []byte, what string, idKeys []string, read func(P, fields) error) error {
	f, err := objectOf(b, what)
	if err != nil {
		return err
	}
	var v T
	out := P(&v)
	id, raw := out.idAndRaw()
	if _, err := f.decode(idKeys, id); err != nil {
		_, kind, _ := strings.Cut(what, " ")
		return fmt.Errorf("%s id: %w", kind, err)
	}
	if err := read(out, f); err != nil {
		return err
	}
	*raw = append(json.RawMessage(nil), bytes.TrimSpace(b)...)
	*dst = v
	return nil
}

func (e *Event) idAndRaw() (json.Unmarshaler, *json.RawMessage)          { return &e.ID, &e.Raw }
func (m *EventMarket) idAndRaw() (json.Unmarshaler, *json.RawMessage)    { return &m.ID, &m.Raw }
func (s *EventSelection) idAndRaw() (json.Unmarshaler, *json.RawMessage) { return &s.ID, &s.Raw }

// events reads GET /event/list/. The list may come bare, or inside
// {"results"|"events"|"data": [...]}; a paged answer (results with a next
// page) is read to the end.
func (c *Client) events(ctx context.Context) ([]Event, error) {
	const path = "/event/list/"
	b, req, err := c.call(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Next    *string         `json:"next"`
		Results json.RawMessage `json:"results"`
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &probe) == nil &&
		probe.Results != nil && probe.Next != nil && strings.TrimSpace(*probe.Next) != "" {
		var out []Event
		for e, err := range walk(ctx, c, path, 1, maxPageSize, nil, func(e *Event) int64 {
			id, _ := strconv.ParseInt(string(e.ID), 10, 64)
			return id
		}) {
			if err != nil {
				return nil, fmt.Errorf("events: %w", err)
			}
			out = append(out, *e)
		}
		return out, nil
	}
	var out []Event
	err = c.list(req, b, func(b []byte) (err error) {
		out, err = decodeList[Event](b, "results", "events", "data")
		return err
	})
	return out, err
}

// event reads GET /event/{id}/. The event may come bare or inside
// {"event"|"data": {...}}.
func (c *Client) event(ctx context.Context, id string) (*Event, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("get event: empty id")
	}
	b, req, err := c.call(ctx, http.MethodGet, "/event/"+url.PathEscape(id)+"/", nil)
	if err != nil {
		return nil, err
	}
	var e Event
	err = c.list(req, b, func(b []byte) error {
		f, err := objectOf(b, "an event")
		if err != nil {
			return err
		}
		if _, hasID := f.raw(eventIDKeys); !hasID {
			if inner, ok := f.raw([]string{"event", "data", "result"}); ok && inner[0] == '{' {
				b = inner
			}
		}
		return json.Unmarshal(b, &e)
	})
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// SportsID is an id of the sports endpoints as the create call sends it:
// the docs type event_id, sports_market and sports_selection as integer
// foreign keys, one client sends strings; a numeric id goes as a JSON
// number, any other as a string.
type SportsID string

// MarshalJSON implements json.Marshaler.
func (id SportsID) MarshalJSON() ([]byte, error) {
	s := string(id)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 && strconv.FormatInt(n, 10) == s {
		return []byte(s), nil
	}
	return json.Marshal(s)
}
