package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

// benchService is a service holding n notifications (labels bench-0 …),
// spread over the first upcoming race of each venue and taken up by the
// bots, with the clock still before the races.
type benchService struct {
	svc   *sim.Service
	token string
	ids   []int
}

func newBenchService(b *testing.B, n int) *benchService {
	b.Helper()
	clock := sim.NewManualClock(start)
	svc := sim.New(sim.Options{Seed: 1, Clock: clock})
	bs := &benchService{svc: svc, token: svc.Token()}
	var races []sim.RaceInfo
	seen := map[string]bool{}
	for _, r := range svc.Races() {
		if !seen[r.Venue] && r.Start.After(start.Add(time.Minute)) {
			seen[r.Venue] = true
			races = append(races, r)
		}
	}
	for i := range n {
		r := races[i%len(races)]
		body := map[string]any{
			"type": "Fixed Wager", "sports": "RACING", "competition": r.Venue, "code": r.Code,
			"event_number": r.EventNumber, "market": "Fixed Win", "selection": r.Runners[i%len(r.Runners)],
			"stake": 1, "label": fmt.Sprintf("bench-%d", i),
		}
		res := bs.do(b, "POST", "/notification/create/", body)
		var m struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal(res, &m); err != nil || m.ID == 0 {
			b.Fatalf("create: %s", res)
		}
		bs.ids = append(bs.ids, m.ID)
	}
	clock.Advance(5 * time.Second)
	bs.do(b, "GET", "/notification/types/", nil) // let the bots take everything up
	return bs
}

func (bs *benchService) do(b *testing.B, method, path string, body any) []byte {
	req := serverRequest(method, path, bs.token, body)
	w := &sink{header: http.Header{}, keep: body != nil}
	bs.svc.ServeHTTP(w, req)
	if w.code != 200 {
		b.Fatalf("%s %s: %d %s", method, path, w.code, w.body.Bytes())
	}
	return w.body.Bytes()
}

// sink is a ResponseWriter that counts what the service writes, and keeps
// it only when asked: like a server's reused buffer, it allocates nothing
// per response, so the benchmarks measure the service alone.
type sink struct {
	header http.Header
	code   int
	n      int
	keep   bool
	body   bytes.Buffer
}

func (s *sink) Header() http.Header { return s.header }
func (s *sink) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}
func (s *sink) Write(p []byte) (int, error) {
	if s.code == 0 {
		s.code = 200
	}
	s.n += len(p)
	if s.keep || s.code != 200 {
		s.body.Write(p)
	}
	return len(p), nil
}

var benchSizes = []int{1000, 10000}

var benchServices = map[int]*benchService{}

func benchFor(b *testing.B, n int) *benchService {
	if bs := benchServices[n]; bs != nil {
		return bs
	}
	bs := newBenchService(b, n)
	benchServices[n] = bs
	runtime.GC() // no garbage of the setup left for the measurement
	return bs
}

// BenchmarkListNotificationsPage reads one page of 100 notifications
// (the first, and one in the middle) with n stored.
func BenchmarkListNotificationsPage(b *testing.B) {
	for _, n := range benchSizes {
		for _, pg := range []int{1, n / 200} {
			b.Run(fmt.Sprintf("stored=%d/page=%d", n, pg), func(b *testing.B) {
				bs := benchFor(b, n)
				path := fmt.Sprintf("/notification/?page_size=100&page=%d", pg)
				b.ReportAllocs()
				for b.Loop() {
					bs.do(b, "GET", path, nil)
				}
			})
		}
	}
}

// BenchmarkLabelLookup finds one notification by label with n stored.
func BenchmarkLabelLookup(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			bs := benchFor(b, n)
			path := fmt.Sprintf("/notification/?label=bench-%d", n/2)
			b.ReportAllocs()
			for b.Loop() {
				bs.do(b, "GET", path, nil)
			}
		})
	}
}

// BenchmarkBetsOfNotification reads one notification's bets with n stored.
func BenchmarkBetsOfNotification(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			bs := benchFor(b, n)
			path := fmt.Sprintf("/bet/notification/%d/", bs.ids[n/2])
			b.ReportAllocs()
			for b.Loop() {
				bs.do(b, "GET", path, nil)
			}
		})
	}
}

// BenchmarkWorldStep is a request that does nothing but the lazy world
// step (and auth) with n stored notifications, none of them due.
func BenchmarkWorldStep(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("stored=%d", n), func(b *testing.B) {
			bs := benchFor(b, n)
			b.ReportAllocs()
			for b.Loop() {
				bs.do(b, "GET", "/notification/types/", nil)
			}
		})
	}
}
