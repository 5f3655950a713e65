package sim_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestFaults(t *testing.T) {
	tests := []struct {
		name       string
		fault      sim.Fault
		wantStatus int  // 0: the connection fails
		wantStored bool // the create landed anyway
		timeout    time.Duration
	}{
		{"latency", sim.Fault{Kind: sim.Latency, Latency: 20 * time.Millisecond}, 200, true, 0},
		{"status before anything", sim.Fault{Kind: sim.StatusFault, Status: 502}, 502, false, 0},
		{"status defaults to 500", sim.Fault{Kind: sim.StatusFault}, 500, false, 0},
		{"rate limit", sim.Fault{Kind: sim.RateLimit, RetryAfter: 1500 * time.Millisecond}, 429, false, 0},
		{"drop", sim.Fault{Kind: sim.Drop}, 0, false, 0},
		{"commit then 503", sim.Fault{Kind: sim.CommitThenStatus, Status: 503}, 503, true, 0},
		{"commit then drop", sim.Fault{Kind: sim.CommitThenDrop}, 0, true, 0},
		{"commit then hang until the client gives up", sim.Fault{Kind: sim.CommitThenTimeout}, 0, true, 100 * time.Millisecond},
		{"commit then hang, then close", sim.Fault{Kind: sim.CommitThenTimeout, Latency: 30 * time.Millisecond}, 0, true, 0},
		{"expire tokens", sim.Fault{Kind: sim.ExpireTokens}, 401, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, sim.Options{})
			tt.fault.Method, tt.fault.Path, tt.fault.Times = "POST", "/notification/create/", 1
			e.svc.InjectFault(tt.fault)
			label := "fault-" + tt.name
			body := createBody(e.firstRace("Flemington"), "1", label)

			client := e.srv.Client()
			client.Timeout = tt.timeout
			req, _ := http.NewRequest("POST", e.srv.URL+"/notification/create/", strings.NewReader(mustJSON(body)))
			req.Header.Set("Authorization", "Token "+e.token)
			res, err := client.Do(req)
			status := 0
			if err == nil {
				status = res.StatusCode
				if tt.fault.Kind == sim.RateLimit && res.Header.Get("Retry-After") != "2" {
					t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
				}
				res.Body.Close()
			}
			if status != tt.wantStatus {
				t.Fatalf("status %d (err %v), want %d", status, err, tt.wantStatus)
			}
			if got := e.svc.NotificationsWithLabel(label); got != boolToInt(tt.wantStored) {
				t.Fatalf("stored %d times", got)
			}
			// Times: 1 means the next request is served normally (with a
			// fresh token after ExpireTokens).
			e.token = e.svc.Token()
			if res := e.do("POST", "/notification/create/", body); res.Status != 200 {
				t.Fatalf("second request: %d", res.Status)
			}
			log := e.svc.Requests()
			if log[0].Fault != tt.fault.Kind.String() || log[1].Fault != "" {
				t.Errorf("request log faults %q, %q", log[0].Fault, log[1].Fault)
			}
		})
	}
}

func TestFaultMatching(t *testing.T) {
	e := setup(t, sim.Options{})
	e.svc.InjectFault(sim.Fault{Path: "/bet/notification/*", Kind: sim.StatusFault, Status: 503, Times: 2})
	e.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bet/notification/*", Kind: sim.StatusFault, Status: 502})
	got := []int{}
	for i := 0; i < 4; i++ {
		got = append(got, e.do("GET", "/bet/notification/1/", nil).Status)
	}
	if want := []int{503, 503, 502, 502}; !equalInts(got, want) {
		t.Fatalf("statuses %v, want %v", got, want)
	}
	if s := e.do("GET", "/bet/", nil).Status; s != 200 {
		t.Errorf("unmatched path: %d", s)
	}
	e.svc.ClearFaults()
	if s := e.do("GET", "/bet/notification/1/", nil).Status; s != 404 {
		t.Errorf("after ClearFaults: %d", s)
	}
}

func TestLatencyHonoursContext(t *testing.T) {
	e := setup(t, sim.Options{})
	e.svc.InjectFault(sim.Fault{Kind: sim.Latency, Latency: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/bookieaccount/", nil)
	began := time.Now()
	_, err := e.srv.Client().Do(req)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(began))
	}
}

func TestRequestLogKeepsNoSecrets(t *testing.T) {
	e := setup(t, sim.Options{})
	e.doToken("", "POST", "/account/login/", map[string]string{"email": "punter@example.com", "password": "sim-password"})
	e.do("GET", "/notification/?label=x&page=2", nil)
	log := e.svc.Requests()
	if len(log) != 2 || log[1].Query != "label=x&page=2" || log[1].Status != 200 || log[0].Path != "/account/login/" {
		t.Fatalf("log %+v", log)
	}
	for _, r := range log {
		if strings.Contains(r.Query+r.Path, "sim-password") || strings.Contains(r.Query+r.Path, e.token) {
			t.Errorf("secret in log: %+v", r)
		}
	}
	e.svc.ResetRequests()
	if len(e.svc.Requests()) != 0 {
		t.Error("ResetRequests kept entries")
	}
}
