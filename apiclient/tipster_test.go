package apiclient_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

const packageKey = "PKGKEY0123456789"

// TestPrealertFallsBackOn404 posts the pre-alert to the spec's path, then
// to the docs' path when the first answers 404, and keeps to the one that
// answered.
func TestPrealertFallsBackOn404(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case apiclient.PrealertMessagePath:
			writeJSON(w, 404, `{"detail":"Not found."}`)
		case apiclient.PrealertDocPath:
			w.WriteHeader(200)
			w.Write([]byte("pre-alert was sent to 12 subscribers"))
		}
	})
	c := f.client(t)
	for range 2 {
		a, err := c.SendPrealert(context.Background(), packageKey)
		must(t, err)
		eq(t, "path", a.Path, apiclient.PrealertDocPath)
		eq(t, "message", a.Message, "pre-alert was sent to 12 subscribers")
		eq(t, "refused", a.Refused(), false)
		eq(t, "message/ posts", f.count("POST", apiclient.PrealertMessagePath), 1)
	}
	eq(t, "prealert/ posts", f.count("POST", apiclient.PrealertDocPath), 2)
	for _, h := range f.hits {
		eq(t, "body", h.body, `{"apikey":"`+packageKey+`"}`)
	}
}

// TestPrealertBadKey: both paths answer 404; the error says what it may
// mean and never holds the key.
func TestPrealertBadKey(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 404, `{"error":"API key `+packageKey+` not valid"}`)
	})
	_, err := f.client(t).SendPrealert(context.Background(), packageKey)
	eq(t, "IsNotFound", apiclient.IsNotFound(err), true)
	contains(t, "error", err.Error(), "the package API key is not valid")
	eq(t, "the key is redacted", strings.Contains(err.Error(), packageKey), false)
}

// TestPublishAnswers reads every answer shape the docs show, and sends the
// flat body with the optional fields only when set.
func TestPublishAnswers(t *testing.T) {
	for _, tt := range []struct {
		body            string
		status, message string
		refused         bool
	}{
		{`{"status": "Success"}`, "Success", "", false},
		{`{"status": "failed", "message": "no subscribers"}`, "failed", "no subscribers", true},
		{`"published"`, "", "published", false},
		{``, "", "", false},
		{`OK`, "", "OK", false},
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, tt.body) })
		a, err := f.client(t).PublishTips(context.Background(), packageKey, []apiclient.PublishTip{
			{Competition: "FLEMINGTON", Code: "Galloping", Market: "Fixed Win", EventNumber: 4, Selection: "3", AmountUnits: 2, Odds: 3.5, MaxOdds: 5, Bookies: "41&42"},
			{Competition: "FLEMINGTON", Code: "Galloping", Market: "Fixed Win", EventNumber: 5, Selection: "1", AmountUnits: 1, Odds: 2.4, MaxOdds: 3, Bookies: "41", UseBonus: true, Confidence: "High", Analysis: "Fast."},
		})
		must(t, err)
		eq(t, tt.body+": status", a.Status, tt.status)
		eq(t, tt.body+": message", a.Message, tt.message)
		eq(t, tt.body+": refused", a.Refused(), tt.refused)
		eq(t, "one call", f.count("POST", "/pick/tipster/publish/"), 1)
		eq(t, "body", f.hits[0].body, `{"apikey":"`+packageKey+`","tips":[`+
			`{"competition":"FLEMINGTON","code":"Galloping","market":"Fixed Win","event_number":4,"selection":"3","amount_units":2,"odds":3.5,"max_odds":5,"bookies":"41\u002642","use_bonus":false},`+
			`{"competition":"FLEMINGTON","code":"Galloping","market":"Fixed Win","event_number":5,"selection":"1","amount_units":1,"odds":2.4,"max_odds":3,"bookies":"41","use_bonus":true,"confidence":"High","analysis":"Fast."}]}`)
	}
}

// TestPublishIsNotRepeated: a publish that may have reached the service is
// never sent again by the client, whatever the answer.
func TestPublishIsNotRepeated(t *testing.T) {
	for name, fail := range map[string]func(w http.ResponseWriter){
		"500":  func(w http.ResponseWriter) { writeJSON(w, 500, `{"error":"boom"}`) },
		"502":  func(w http.ResponseWriter) { writeJSON(w, 502, `bad gateway`) },
		"drop": drop,
		"403":  func(w http.ResponseWriter) { writeJSON(w, 403, `{"error":"Invalid package API key."}`) },
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { fail(w) })
		_, err := f.client(t).PublishTips(context.Background(), packageKey, []apiclient.PublishTip{{Competition: "X"}})
		if err == nil {
			t.Fatalf("%s: want an error", name)
		}
		eq(t, name+": publish calls", f.count("POST", "/pick/tipster/publish/"), 1)
		eq(t, name+": the key is redacted", strings.Contains(err.Error(), packageKey), false)
	}
}
