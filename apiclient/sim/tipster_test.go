package sim_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func tipBody(r sim.RaceInfo, selection string) map[string]any {
	return map[string]any{
		"competition": r.Venue, "code": r.Code, "event_number": r.EventNumber, "market": "Fixed Win",
		"selection": selection, "amount_units": 2, "odds": 3.5, "max_odds": 50.0, "bookies": "41&42", "use_bonus": false,
	}
}

func publishBody(key string, tips ...map[string]any) map[string]any {
	return map[string]any{"apikey": key, "tips": tips}
}

// TestPublishFansOut: a published tip reaches the package's subscribers
// (the tipster's own account and subscriber@example.com) as notifications
// their bots take up, resulted with the race.
func TestPublishFansOut(t *testing.T) {
	e := setup(t, sim.Options{Seed: 7})
	r := e.firstRace("Flemington")
	tip := tipBody(r, r.Runners[0])
	tip["analysis"] = "Drawn to lead."
	res := e.do("POST", "/pick/tipster/publish/", publishBody(sim.DefaultTipsterAPIKey, tip))
	if res.Status != 200 || string(res.Body) != `{"status":"Success"}` {
		t.Fatalf("publish: %d %s", res.Status, res.Body)
	}
	pubs := e.svc.Publishes()
	if len(pubs) != 1 || len(pubs[0]) != 1 {
		t.Fatalf("publishes = %+v, want one call with one tip", pubs)
	}
	got := pubs[0][0]
	if got.Selection != r.Runners[0] || got.AmountUnits != 2 || got.Odds != 3.5 || got.Analysis != "Drawn to lead." || len(got.Notifications) != 2 {
		t.Errorf("published tip = %+v", got)
	}

	// The tipster's own account holds the subscriber's copy: a Serial
	// notification showing the tip's units, odds and tipster.
	var page struct {
		Results []struct {
			ID    int    `json:"id"`
			Type  string `json:"type"`
			Stake float64
			Tip   struct {
				AmountUnits float64 `json:"amount_units"`
				Odds        float64 `json:"odds"`
				Creator     struct {
					Nickname string `json:"nickname"`
				} `json:"creator"`
			} `json:"tip"`
		} `json:"results"`
	}
	e.do("GET", "/notification/", nil).decode(t, &page)
	if len(page.Results) != 1 || page.Results[0].Type != "Serial" || page.Results[0].Tip.AmountUnits != 2 || page.Results[0].Tip.Odds != 3.5 || page.Results[0].Tip.Creator.Nickname != "punter" {
		t.Fatalf("the tipster's list = %+v", page.Results)
	}

	// The other subscriber sees it too, from its own login.
	var login struct{ Token string }
	e.doToken("", "POST", "/account/login/", map[string]string{"email": "subscriber@example.com", "password": "sim-password"}).decode(t, &login)
	var theirs struct {
		Results []struct {
			ID   int    `json:"id"`
			Type string `json:"type"`
		} `json:"results"`
	}
	e.doToken(login.Token, "GET", "/notification/", nil).decode(t, &theirs)
	if len(theirs.Results) != 1 || theirs.Results[0].ID != got.Notifications[1] {
		t.Fatalf("the subscriber's list = %+v, want notification %d", theirs.Results, got.Notifications[1])
	}

	// The tipster's bots take it up, and the race results it.
	e.clock.Set(r.Start.Add(10 * time.Minute))
	var n notification
	e.do("GET", fmt.Sprintf("/notification/%d/", page.Results[0].ID), nil).decode(t, &n)
	if n.Tip.Competition.Result == "" || n.TotalAccepted == 0 {
		t.Errorf("after the race: result %q, accepted %v", n.Tip.Competition.Result, n.TotalAccepted)
	}
}

// TestPublishRefusals: what the docs list for the publish call.
func TestPublishRefusals(t *testing.T) {
	e := setup(t, sim.Options{Seed: 7})
	r := e.firstRace("Flemington")
	noUnits := tipBody(r, "1")
	delete(noUnits, "amount_units")
	srm := tipBody(r, "1,2")
	for _, tt := range []struct {
		name string
		body any
		want int
		text string
	}{
		{"a wrong key", publishBody("WRONG", tipBody(r, "1")), 403, "Invalid package API key."},
		{"no key", map[string]any{"tips": []any{tipBody(r, "1")}}, 400, "apikey"},
		{"no tips", publishBody(sim.DefaultTipsterAPIKey), 400, "tips"},
		{"a missing field", publishBody(sim.DefaultTipsterAPIKey, tipBody(r, "1"), noUnits), 400, "tips[1].amount_units"},
		{"an unknown race", publishBody(sim.DefaultTipsterAPIKey, map[string]any{
			"competition": "Nowhere", "code": "Galloping", "event_number": 1, "market": "Fixed Win", "selection": "1",
			"amount_units": 1, "odds": 2, "max_odds": 3, "bookies": "41", "use_bonus": false}), 404, "Competition or market unavailable."},
		{"a selection bots cannot read", publishBody(sim.DefaultTipsterAPIKey, srm), 406, "Invalid data syntax"},
	} {
		res := e.do("POST", "/pick/tipster/publish/", tt.body)
		if res.Status != tt.want || !strings.Contains(string(res.Body), tt.text) {
			t.Errorf("%s: %d %s, want %d with %q", tt.name, res.Status, res.Body, tt.want, tt.text)
		}
	}
	if n := len(e.svc.Publishes()); n != 0 {
		t.Errorf("%d refused publishes were recorded", n)
	}
	if n := e.svc.NotificationCount(); n != 0 {
		t.Errorf("refused publishes made %d notifications (a call is all or nothing)", n)
	}

	// A race that has started can no longer be tipped.
	e.clock.Set(r.Start.Add(time.Second))
	if res := e.do("POST", "/pick/tipster/publish/", publishBody(sim.DefaultTipsterAPIKey, tipBody(r, "1"))); res.Status != 404 {
		t.Errorf("a started race: %d %s, want 404", res.Status, res.Body)
	}
}

// TestPublishFaults: an injected fault after commit keeps the publish, as
// a real service that fails after acting would.
func TestPublishFaults(t *testing.T) {
	e := setup(t, sim.Options{Seed: 7})
	r := e.firstRace("Flemington")
	e.svc.InjectFault(sim.Fault{Method: "POST", Path: "/pick/tipster/publish/", Kind: sim.CommitThenStatus, Times: 1})
	e.svc.InjectFault(sim.Fault{Method: "POST", Path: "/pick/tipster/publish/", Kind: sim.StatusFault, Status: 503, Times: 1})
	if res := e.do("POST", "/pick/tipster/publish/", publishBody(sim.DefaultTipsterAPIKey, tipBody(r, "1"))); res.Status != 500 {
		t.Fatalf("commit+500: %d", res.Status)
	}
	if res := e.do("POST", "/pick/tipster/publish/", publishBody(sim.DefaultTipsterAPIKey, tipBody(r, "2"))); res.Status != 503 {
		t.Fatalf("503: %d", res.Status)
	}
	tips := e.svc.PublishedTips()
	if len(tips) != 1 || tips[0].Selection != "1" {
		t.Errorf("published = %+v, want only the committed one", tips)
	}
}

// TestPrealert: the spec's path, the docs' path, a wrong key (404, as the
// docs say), and a service with only the docs' path.
func TestPrealert(t *testing.T) {
	e := setup(t, sim.Options{Seed: 7})
	for _, tt := range []struct {
		path, key string
		want      int
	}{
		{"/pick/tipster/message/", sim.DefaultTipsterAPIKey, 200},
		{"/pick/tipster/prealert/", sim.DefaultTipsterAPIKey, 200},
		{"/pick/tipster/message/", "WRONG", 404},
	} {
		if res := e.do("POST", tt.path, map[string]string{"apikey": tt.key}); res.Status != tt.want {
			t.Errorf("%s with %s: %d %s, want %d", tt.path, tt.key, res.Status, res.Body, tt.want)
		}
	}
	if got := e.svc.Prealerts(); len(got) != 2 || got[0].Path != "/pick/tipster/message/" || got[1].Path != "/pick/tipster/prealert/" {
		t.Errorf("pre-alerts = %+v", got)
	}

	docs := setup(t, sim.Options{Seed: 7, PrealertDocsOnly: true, TipsterAPIKey: "OTHERKEY00000001"})
	if res := docs.do("POST", "/pick/tipster/message/", map[string]string{"apikey": "OTHERKEY00000001"}); res.Status != http.StatusNotFound {
		t.Errorf("message/ on a docs-only service: %d", res.Status)
	}
	if res := docs.do("POST", "/pick/tipster/prealert/", map[string]string{"apikey": "OTHERKEY00000001"}); res.Status != 200 {
		t.Errorf("prealert/ with the service's own key: %d %s", res.Status, res.Body)
	}
	if res := docs.do("POST", "/pick/tipster/prealert/", map[string]string{"apikey": sim.DefaultTipsterAPIKey}); res.Status != 404 {
		t.Errorf("prealert/ with another service's key: %d", res.Status)
	}
}
