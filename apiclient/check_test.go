package apiclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

// CheckService tells the service from whatever else answers success at a
// base URL by the shape of its first page of notifications, read with the
// token.
func TestCheckServiceKnowsTheServiceByItsShape(t *testing.T) {
	tests := []struct {
		name, kind, body string
		want             string // the error, "" for the service
	}{
		{name: "envelope", body: `{"count": 1, "next": null, "previous": null, "total_pages": 1, "results": [{"id": 501, "label": "x"}]}`},
		{name: "empty envelope", body: `{"count": 1, "next": null, "previous": null, "total_pages": 1, "results": []}`},
		{name: "bare array", body: `[{"id": 501}]`},
		{name: "health page", kind: "text/plain", body: "ok",
			want: `GET /notification/ answered "ok", not the service's list of notifications`},
		{name: "JSON health page", body: `{"status": "ok"}`,
			want: `GET /notification/ answered "{\"status\": \"ok\"}", not the service's list of notifications`},
		{name: "empty body", body: "",
			want: `GET /notification/ answered with an empty body, not the service's list of notifications`},
		{name: "HTML page", kind: "text/html", body: "<html><body><h1>It works!</h1></body></html>",
			want: `GET /notification/ answered "It works!", not the service's list of notifications`},
		{name: "list of names", body: `["a", "b"]`,
			want: `GET /notification/ answered "[\"a\", \"b\"]", not the service's list of notifications`},
		{name: "results not a list", body: `{"results": "none"}`,
			want: `GET /notification/ answered "{\"results\": \"none\"}", not the service's list of notifications`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if r.Header.Get("Authorization") != "Token T1" {
					writeJSON(w, 401, `{"detail": "Invalid token."}`)
					return
				}
				if tt.kind != "" {
					w.Header().Set("Content-Type", tt.kind)
					io.WriteString(w, tt.body)
					return
				}
				writeJSON(w, 200, tt.body)
			})
			c := f.client(t)
			err := c.CheckService(context.Background())
			eq(t, "reads", f.count("GET", "/notification/"), 1)
			if tt.want == "" {
				must(t, err)
				return
			}
			var notService *apiclient.NotServiceError
			if !errors.As(err, &notService) {
				t.Fatalf("err = %v, want a NotServiceError", err)
			}
			eq(t, "error", err.Error(), tt.want)
		})
	}
}

// A login answered success without a token is not the service's either;
// a token the service refuses is its error, as any call's.
func TestCheckServiceLoginAndToken(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok")
	})
	c, err := apiclient.New(f.srv.URL, apiclient.WithCredentials("punter@example.com", "pw"), apiclient.WithTokenCache(""), apiclient.WithRateLimit(0, 1))
	must(t, err)
	err = c.CheckService(context.Background())
	var notService *apiclient.NotServiceError
	if !errors.As(err, &notService) {
		t.Fatalf("err = %v, want a NotServiceError", err)
	}
	eq(t, "error", err.Error(), `POST /account/login/ answered "ok", not a token`)

	svc := sim.New(sim.Options{Seed: 1})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	c, err = apiclient.New(srv.URL, apiclient.WithToken("wrong"), apiclient.WithTokenCache(""), apiclient.WithRateLimit(0, 1))
	must(t, err)
	err = c.CheckService(context.Background())
	eq(t, "401", apiclient.IsUnauthorized(err), true)

	c, err = apiclient.New(srv.URL, apiclient.WithToken(svc.Token()), apiclient.WithTokenCache(""), apiclient.WithRateLimit(0, 1))
	must(t, err)
	must(t, c.CheckService(context.Background()))
	eq(t, "answered", c.Answered(), true)
}
