package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// TestDecodeEvents reads the event list and detail in the shapes the
// simulator serves and in the other spellings a service could use (no
// source shows these endpoints' bodies), into one model.
func TestDecodeEvents(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"events_list_bare.json", "events_list_wrapped.json"} {
		t.Run(file, func(t *testing.T) {
			events, err := serveFixture(t, file, 200).ListEvents(ctx)
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), events)
		})
	}
	for _, file := range []string{"event_detail.json", "event_detail_variant.json"} {
		t.Run(file, func(t *testing.T) {
			e, err := serveFixture(t, file, 200).GetEvent(ctx, "9001")
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), e)
		})
	}
	t.Run("variants", func(t *testing.T) {
		events, err := serveFixture(t, "events_list_wrapped.json", 200).ListEvents(ctx)
		must(t, err)
		e := events[0]
		eq(t, "id from event_id", string(e.ID), "E-77")
		eq(t, "sport from an object", e.Sport, "NBA")
		eq(t, "name from the sides", e.Name, "Bulls v Knicks")
		eq(t, "competition from league", e.Competition, "NBA Regular Season")
		eq(t, "start from commence_time", e.StartTime.UTC().Format("15:04"), "00:30")
		contains(t, "Raw keeps unknown fields", string(e.Raw), `"brand_new_field": [1, 2]`)

		d, err := serveFixture(t, "event_detail_variant.json", 200).GetEvent(ctx, "E-77")
		must(t, err)
		eq(t, "unwrapped from event", string(d.ID), "E-77")
		eq(t, "markets keyed by name", len(d.Markets), 2)
		line := d.Markets[0] // sorted by name: Games Handicap, Head To Head
		eq(t, "market name from its key", line.Name, "Games Handicap")
		eq(t, "handicap from a string", float64(line.Selections[0].Handicap), -3.5)
		eq(t, "a line of 0 is a line", line.Selections[1].HasHandicap, true)
		eq(t, "odds from a string", float64(d.Markets[1].Selections[1].Odds), 2.4)

		d, err = serveFixture(t, "event_detail.json", 200).GetEvent(ctx, "9001")
		must(t, err)
		eq(t, "id from a number", string(d.ID), "9001")
		eq(t, "a null handicap is none", d.Markets[2].Selections[1].HasHandicap, false)
		eq(t, "result kept", d.Result, "Collingwood 92 - 78 Carlton")
	})
	t.Run("not an event", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, `[1, 2]`) })
		_, err := f.client(t).GetEvent(ctx, "9001")
		var de *apiclient.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want a DecodeError", err)
		}
		f = newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, `[{"id": 1, "markets": [{"id": 2, "selections": [{"id": 3, "odds": {"x": 1}}]}]}]`)
		})
		_, err = f.client(t).ListEvents(ctx)
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want a DecodeError", err)
		}
		contains(t, "error", err.Error(), "odds")
	})
}

// TestListEventsPages reads a paged event list to its end.
func TestListEventsPages(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Query().Get("page") {
		case "", "1":
			writeJSON(w, 200, `{"count": 3, "next": "http://x/event/list/?page=2", "previous": null, "results": [{"id": 1, "name": "A v B"}, {"id": 2, "name": "C v D"}]}`)
		default:
			writeJSON(w, 200, `{"count": 3, "next": null, "previous": "http://x/event/list/?page=1", "results": [{"id": 3, "name": "E v F"}]}`)
		}
	})
	events, err := f.client(t).ListEvents(context.Background())
	must(t, err)
	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	eq(t, "events", strings.Join(names, ","), "A v B,C v D,E v F")
}

// TestGetEventPath escapes the id into the path.
func TestGetEventPath(t *testing.T) {
	var path string
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		path = r.URL.EscapedPath()
		writeJSON(w, 200, `{"id": "a/b"}`)
	})
	_, err := f.client(t).GetEvent(context.Background(), "a/b")
	must(t, err)
	eq(t, "path", path, "/event/a%2Fb/")
	_, err = f.client(t).GetEvent(context.Background(), " ")
	eq(t, "empty id refused", err != nil, true)
}

// TestCreateRequestSportsFields: a sports create carries the event,
// market and selection ids as JSON numbers when they are numeric (the
// docs' integer foreign keys), else as strings, and a line of 0.
func TestCreateRequestSportsFields(t *testing.T) {
	h := -12.5
	req := &apiclient.CreateNotificationRequest{
		Type: "Fixed Wager", Sports: "AFL", EventID: "9001", SportsMarket: "90011", SportsSelection: "900111",
		Handicap: &h, Stake: 10, Label: "bp:footy:pies:0123456789ab", TargetSession: "4417",
		Options: map[string]any{"accept_better_line": true},
	}
	b, err := json.Marshal(req)
	must(t, err)
	eq(t, "body", string(b), `{"type":"Fixed Wager","sports":"AFL","stake":10,"label":"bp:footy:pies:0123456789ab","target_session":"4417","event_id":9001,"sports_market":90011,"sports_selection":900111,"handicap":-12.5,"accept_better_line":true}`)

	zero := 0.0
	req = &apiclient.CreateNotificationRequest{Type: "Fixed Wager", Sports: "Tennis", EventID: "E-77", SportsMarket: "007", SportsSelection: "S3", Handicap: &zero, Stake: 2}
	b, err = json.Marshal(req)
	must(t, err)
	eq(t, "body", string(b), `{"type":"Fixed Wager","sports":"Tennis","stake":2,"event_id":"E-77","sports_market":"007","sports_selection":"S3","handicap":0}`)

	req.Options = map[string]any{"handicap": 3}
	_, err = json.Marshal(req)
	eq(t, "an option cannot set the handicap", err != nil, true)
}

// TestEventDecodeErrorsNameTheItem: a market or selection that cannot be
// read is named by its event or market and its place in the list.
func TestEventDecodeErrorsNameTheItem(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"markets not a list", `{"id":"e1","markets":7}`, "event e1 markets: want a list, got 7"},
		{"second market bad", `{"id":"e1","markets":[{"id":"m1"},"x"]}`, "event e1 market 2: "},
		{"selections not a list", `{"id":"e1","markets":{"Win":{"id":"m1","name":"Win","selections":true}}}`, "event e1 market 1: market Win selections: want a list, got true"},
		{"first selection bad", `{"id":"e1","markets":[{"id":"m1","name":"H2H","selections":[1]}]}`, "event e1 market 1: market H2H selection 1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e apiclient.Event
			err := json.Unmarshal([]byte(tt.body), &e)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to start %q", err, tt.want)
			}
		})
	}
}
