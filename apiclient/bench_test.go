package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

// BenchmarkClientOverhead measures the client's own cost per call (request
// building, auth, limiter, retry bookkeeping, decoding) against a trivial
// in-memory handler over loopback, and against the simulated service.
func BenchmarkClientOverhead(b *testing.B) {
	var races strings.Builder
	races.WriteString("[")
	for i := range 20 {
		if i > 0 {
			races.WriteString(",")
		}
		fmt.Fprintf(&races, `{"code":"Harness","name":["VENUE %d"],"event_number":%d,"starttime":"2025-03-01T14:02:10+11:00","runners":"1,2,3,4,5,6,7,8","runner_names":"A,B,C,D,E,F,G,H","country":"AUS","scrape_date":"2025-03-01T09:00:00.000000+11:00"}`, i, i%10+1)
	}
	races.WriteString("]")
	racesBody := races.String()
	const notifBody = `{"count":1,"total_pages":1,"next":null,"previous":null,"results":[{"id":501,"type":"Fixed Wager","label":"L","stake":10,"total_accepted":20,"average_odds":2.5,"profit":30,"created_at":"2025-03-01T14:02:10.123456+11:00","tip":{"market":"Fixed Win","selection":"3","competition":{"code":"Harness","name":"SAMPLEVILLE","event_number":2}}}]}`
	trivial := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/competition/namecodes/" {
			w.Write([]byte(racesBody))
			return
		}
		w.Write([]byte(notifBody))
	}))
	defer trivial.Close()

	svc := sim.New(sim.Options{Seed: 1, Clock: sim.NewManualClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))})
	simSrv := httptest.NewServer(svc)
	defer simSrv.Close()

	for _, target := range []struct {
		name, url, token string
	}{
		{"trivial", trivial.URL, "T"},
		{"sim", simSrv.URL, svc.Token()},
	} {
		c, err := apiclient.New(target.url, apiclient.WithToken(target.token), apiclient.WithRateLimit(0, 1),
			apiclient.WithTokenCache(""))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.Run(target.name+"/ListRaces", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ListRaces(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(target.name+"/NotificationsByLabel", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.NotificationsByLabel(ctx, "L"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
