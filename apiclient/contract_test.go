package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

// simWorld is the simulated service over loopback and a client for it.
type simWorld struct {
	svc   *sim.Service
	clock *sim.ManualClock
	srv   *httptest.Server
	c     *apiclient.Client
}

var simStart = time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("AEDT", 11*3600))

func newSimWorld(t testing.TB, simOpts sim.Options, opts ...apiclient.Option) *simWorld {
	t.Helper()
	clock := sim.NewManualClock(simStart)
	simOpts.Clock = clock
	if simOpts.Seed == 0 {
		simOpts.Seed = 1
	}
	svc := sim.New(simOpts)
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	base := []apiclient.Option{
		apiclient.WithToken(svc.Token()),
		apiclient.WithRateLimit(0, 1),
		apiclient.WithTimeout(2 * time.Second),
		apiclient.WithTokenCache(""),
		apiclient.WithNow(clock.Now),
	}
	c, err := apiclient.New(srv.URL, append(base, opts...)...)
	must(t, err)
	return &simWorld{svc: svc, clock: clock, srv: srv, c: c}
}

// createOne creates a bet on the first race well ahead, with label and
// extra options.
func (w *simWorld) createOne(t *testing.T, label string, opts map[string]any) *apiclient.CreateResult {
	t.Helper()
	res, err := w.c.CreateNotification(context.Background(), w.request(t, label, opts))
	must(t, err)
	return res
}

func (w *simWorld) request(t *testing.T, label string, opts map[string]any) *apiclient.CreateNotificationRequest {
	t.Helper()
	races, err := w.c.ListRaces(context.Background())
	must(t, err)
	for i := range races {
		rc := &races[i]
		if rc.StartTime.After(w.clock.Now().Add(30*time.Minute)) && len(rc.RunnerNumbers()) > 0 {
			return &apiclient.CreateNotificationRequest{
				Type: "Fixed Wager", Sports: "RACING", Competition: rc.Venue(), Code: rc.Code,
				EventNumber: int(rc.EventNumber), Market: "Fixed Win", Selection: rc.RunnerNumbers()[0],
				Stake: 2, Label: label, Options: opts,
			}
		}
	}
	t.Fatal("no race far enough ahead")
	return nil
}

// TestContractEveryEndpoint calls every endpoint method once against the
// simulated service and checks what it decoded.
func TestContractEveryEndpoint(t *testing.T) {
	w := newSimWorld(t, sim.Options{}, apiclient.WithCredentials("punter@example.com", "sim-password"))
	ctx := context.Background()

	t.Run("account", func(t *testing.T) {
		raw, err := w.c.Readiness(ctx)
		must(t, err)
		contains(t, "readiness", string(raw), "running_sessions")
		raw, err = w.c.ConnectActivity(ctx)
		must(t, err)
		eq(t, "connect activity is JSON", json.Valid(raw), true)
		must(t, w.c.Login(ctx))
		must(t, w.c.RefreshToken(ctx))
	})

	t.Run("sessions", func(t *testing.T) {
		ss, err := w.c.ListSessions(ctx)
		must(t, err)
		if len(ss) == 0 {
			t.Fatal("no sessions")
		}
		if len(ss) != len(w.svc.Sessions()) {
			t.Errorf("%d sessions, the sim has %d", len(ss), len(w.svc.Sessions()))
		}
		one, err := w.c.GetSession(ctx, int64(ss[0].ID))
		must(t, err)
		eq(t, "session id", one.ID, ss[0].ID)
		eq(t, "display name", one.DisplayName, ss[0].DisplayName)
		cr, err := w.c.ControlSession(ctx, int64(ss[0].ID), false)
		must(t, err)
		eq(t, "control status", cr.Status, "success")
		eq(t, "bot status", cr.BotStatus, "STOPPED")
		eq(t, "account id", string(cr.AccountID), strconv.Itoa(int(ss[0].ID)))
		all, err := w.c.ControlAllSessions(ctx, true)
		must(t, err)
		eq(t, "affected", int(all.AffectedAccounts), len(ss))
		eq(t, "results", len(all.Results), len(ss))
		_, err = w.c.GetSession(ctx, 999999)
		eq(t, "IsNotFound", apiclient.IsNotFound(err), true)
	})

	t.Run("data", func(t *testing.T) {
		races, err := w.c.ListRaces(ctx)
		must(t, err)
		eq(t, "races", len(races) > 0, true)
		eq(t, "race venue", races[0].Venue() != "", true)
		eq(t, "runner names match runners", len(races[0].RunnerNameList()), len(races[0].RunnerNumbers()))
		books, err := w.c.BookieNames(ctx)
		must(t, err)
		eq(t, "bookies", len(books) > 0, true)
		b, err := w.c.Bookie(ctx, int64(books[0].ID))
		must(t, err)
		eq(t, "bookie title", b.Title, books[0].Title)
		raw, err := w.c.BookieMarkets(ctx)
		must(t, err)
		contains(t, "bookie markets", string(raw), "Head To Head")
		codes, err := w.c.BetCodes(ctx)
		must(t, err)
		contains(t, "codes", strings.Join(codes, ","), "Greyhounds")
		markets, err := w.c.BetMarkets(ctx)
		must(t, err)
		contains(t, "markets", strings.Join(markets, ","), "Fixed Win")
		events, err := w.c.ListEvents(ctx)
		must(t, err)
		eq(t, "events", len(events) > 0, true)
		ev, err := w.c.GetEvent(ctx, string(events[0].ID))
		must(t, err)
		eq(t, "event name", ev.Name, events[0].Name)
		eq(t, "event markets", len(ev.Markets) > 0 && len(ev.Markets[0].Selections) > 0, true)
	})

	t.Run("notifications", func(t *testing.T) {
		types, err := w.c.NotificationTypes(ctx)
		must(t, err)
		contains(t, "types", strings.Join(types, ","), "Fixed Wager")

		res := w.createOne(t, "contract a", map[string]any{"check_odds": true, "odds": 1.01})
		if res.ID == 0 {
			t.Fatalf("create: no id in %s", res.Raw)
		}
		eq(t, "sim count", w.svc.NotificationsWithLabel("contract a"), 1)
		got, err := w.c.NotificationsByLabel(ctx, "contract a")
		must(t, err)
		if len(got) != 1 {
			t.Fatalf("by label: %d notifications", len(got))
		}
		eq(t, "id", int64(got[0].ID), res.ID)
		eq(t, "check_odds sent", bool(got[0].CheckOdds), true)

		page, err := w.c.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: 1, PageSize: 10})
		must(t, err)
		eq(t, "page results", len(page.Results) >= 1, true)
		n := 0
		for _, err := range w.c.Notifications(ctx, apiclient.ListNotificationsOptions{}) {
			must(t, err)
			n++
		}
		eq(t, "walked", n >= 1, true)

		raw, err := w.c.NotificationRaceDetail(ctx, res.ID)
		must(t, err)
		eq(t, "race detail is JSON", json.Valid(raw), true)

		sched := w.createOne(t, "contract scheduled", map[string]any{"is_scheduled": true})
		list, err := w.c.ScheduledNotifications(ctx)
		must(t, err)
		found := false
		for _, n := range list {
			found = found || int64(n.ID) == sched.ID
		}
		eq(t, "scheduled listed", found, true)
		must(t, w.c.TriggerNotification(ctx, sched.ID))

		must(t, w.c.CancelNotification(ctx, res.ID))
		err = w.c.CancelNotification(ctx, res.ID)
		eq(t, "second cancel IsBadRequest", apiclient.IsBadRequest(err), true)
	})

	t.Run("bets", func(t *testing.T) {
		res := w.createOne(t, "contract bets", nil)
		w.clock.Advance(time.Minute)
		recs, err := w.c.BetsByNotification(ctx, res.ID)
		must(t, err)
		if len(recs) == 0 {
			t.Fatal("no bet records after the take-up delay")
		}
		page, err := w.c.ListBets(ctx, apiclient.ListBetsOptions{Page: 1, PageSize: 100})
		must(t, err)
		eq(t, "bet page", len(page.Results) >= len(recs), true)
		n := 0
		for _, err := range w.c.Bets(ctx, apiclient.ListBetsOptions{}) {
			must(t, err)
			n++
		}
		eq(t, "bets walked", n, len(page.Results))
		found, err := w.c.SearchBets(ctx, []int64{int64(recs[0].ID)})
		must(t, err)
		if len(found) != 1 || found[0].ID != recs[0].ID {
			t.Errorf("search: %+v", found)
		}
		raw, err := w.c.BetSummary(ctx)
		must(t, err)
		eq(t, "summary is JSON", json.Valid(raw), true)
		raw, err = w.c.BotLogs(ctx)
		must(t, err)
		eq(t, "bot logs is JSON", json.Valid(raw), true)
		raw, err = w.c.NotificationBotLogs(ctx, res.ID)
		must(t, err)
		eq(t, "notification logs is JSON", json.Valid(raw), true)
	})

	t.Run("tipster", func(t *testing.T) {
		_, err := w.c.PublishTips(ctx, "SIMPACKAGEKEY001", []apiclient.PublishTip{{
			Competition: "SAMPLE PARK", Code: "Greyhounds", Market: "Fixed Win", EventNumber: 1,
			Selection: "1", AmountUnits: 1, Odds: 2, MaxOdds: 3, Bookies: "1&8",
		}})
		eq(t, "unknown race IsNotFound", apiclient.IsNotFound(err), true) // 404 = competition unavailable
		_, err = w.c.PublishTips(ctx, "WRONG", nil)
		eq(t, "bad apikey IsForbidden", apiclient.IsForbidden(err), true)
		eq(t, "the key is redacted", strings.Contains(err.Error(), "WRONG"), false)
		a, err := w.c.SendPrealert(ctx, "SIMPACKAGEKEY001")
		must(t, err)
		eq(t, "pre-alert path", a.Path, apiclient.PrealertMessagePath)
		eq(t, "pre-alert status", a.Status, "Success")
		_, err = w.c.SendPrealert(ctx, "WRONGKEY")
		eq(t, "bad apikey IsNotFound", apiclient.IsNotFound(err), true)
	})

	t.Run("logout", func(t *testing.T) {
		must(t, w.c.Logout(ctx))
		// Credentials are set: the next call logs in again.
		_, err := w.c.ListSessions(ctx)
		must(t, err)
	})
}

// TestContractBareBetArrays reads the old doc's bare array of bet records
// and the {"id": "...", "message"} create answer.
func TestContractBareBetArrays(t *testing.T) {
	w := newSimWorld(t, sim.Options{BareBetArrays: true, CreateResponse: sim.CreateIDMessage})
	res := w.createOne(t, "contract bare", nil)
	if res.ID == 0 || res.Message == "" || res.Notification != nil {
		t.Fatalf("create result: %+v", res)
	}
	w.clock.Advance(time.Minute)
	recs, err := w.c.BetsByNotification(context.Background(), res.ID)
	must(t, err)
	eq(t, "records", len(recs) > 0, true)
}

// countCreates counts create requests in the sim's log.
func (w *simWorld) requestsTo(method, path string) []sim.Request {
	var out []sim.Request
	for _, r := range w.svc.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// TestContractCreateFaults: whatever goes wrong after the sim stored the
// notification, the client sends the create exactly once and says the
// outcome is unknown; the label look-up then finds exactly one.
func TestContractCreateFaults(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault sim.Fault
	}{
		{"commit then 500", sim.Fault{Kind: sim.CommitThenStatus, Status: 500}},
		{"commit then 502", sim.Fault{Kind: sim.CommitThenStatus, Status: 502}},
		{"commit then timeout", sim.Fault{Kind: sim.CommitThenTimeout}},
		{"commit then drop", sim.Fault{Kind: sim.CommitThenDrop}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newSimWorld(t, sim.Options{}, apiclient.WithTimeout(300*time.Millisecond))
			req := w.request(t, "fault "+tt.name, nil)
			tt.fault.Method, tt.fault.Path, tt.fault.Times = "POST", "/notification/create/", 1
			w.svc.InjectFault(tt.fault)
			_, err := w.c.CreateNotification(context.Background(), req)
			if err == nil {
				t.Fatal("no error")
			}
			eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), true)
			eq(t, "creates sent", len(w.requestsTo("POST", "/notification/create/")), 1)
			got, err := w.c.NotificationsByLabel(context.Background(), req.Label)
			must(t, err)
			eq(t, "found by label", len(got), 1)
		})
	}
	t.Run("refused before commit", func(t *testing.T) {
		w := newSimWorld(t, sim.Options{})
		req := w.request(t, "fault refused", nil)
		w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.RateLimit, Times: 1, RetryAfter: time.Second})
		_, err := w.c.CreateNotification(context.Background(), req)
		eq(t, "IsRateLimited", apiclient.IsRateLimited(err), true)
		eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), false)
		var e *apiclient.Error
		if errors.As(err, &e) {
			eq(t, "RetryAfter", e.RetryAfter, time.Second)
		}
		eq(t, "stored", w.svc.NotificationsWithLabel(req.Label), 0)
	})
	t.Run("invalid stake", func(t *testing.T) {
		w := newSimWorld(t, sim.Options{})
		req := w.request(t, "fault invalid", nil)
		req.Stake = -1
		_, err := w.c.CreateNotification(context.Background(), req)
		eq(t, "IsBadRequest", apiclient.IsBadRequest(err), true)
		var e *apiclient.Error
		if errors.As(err, &e) && len(e.Fields)+len(e.Message) == 0 {
			t.Errorf("no message read from the 400: %+v", e)
		}
	})
}

// TestContractSafeCallFaults: reads survive drops, 5xx, 429 and expired
// tokens.
func TestContractSafeCallFaults(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fault sim.Fault
		sent  int
	}{
		{"drop", sim.Fault{Kind: sim.Drop}, 2},
		{"500", sim.Fault{Kind: sim.StatusFault, Status: 500}, 2},
		{"503", sim.Fault{Kind: sim.StatusFault, Status: 503}, 2},
		{"429", sim.Fault{Kind: sim.RateLimit, RetryAfter: time.Second}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newSimWorld(t, sim.Options{})
			tt.fault.Method, tt.fault.Path, tt.fault.Times = "GET", "/competition/namecodes/", 1
			w.svc.InjectFault(tt.fault)
			races, err := w.c.ListRaces(context.Background())
			must(t, err)
			eq(t, "races", len(races) > 0, true)
			reqs := w.requestsTo("GET", "/competition/namecodes/")
			eq(t, "requests", len(reqs), tt.sent)
			if tt.fault.Kind == sim.RateLimit && len(reqs) == 2 {
				if gap := reqs[1].Time.Sub(reqs[0].Time); gap < 950*time.Millisecond {
					t.Errorf("retried after %v, before Retry-After", gap)
				}
			}
		})
	}
	t.Run("expired token", func(t *testing.T) {
		w := newSimWorld(t, sim.Options{}, apiclient.WithCredentials("punter@example.com", "sim-password"))
		w.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bookieaccount/", Kind: sim.ExpireTokens, Times: 1})
		_, err := w.c.ListSessions(context.Background())
		must(t, err)
		eq(t, "logins", len(w.requestsTo("POST", "/account/login/")), 1)
		eq(t, "sessions requests", len(w.requestsTo("GET", "/bookieaccount/")), 2)
	})
	t.Run("expired token on create", func(t *testing.T) {
		w := newSimWorld(t, sim.Options{}, apiclient.WithCredentials("punter@example.com", "sim-password"))
		req := w.request(t, "expired create", nil)
		w.svc.InjectFault(sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.ExpireTokens, Times: 1})
		_, err := w.c.CreateNotification(context.Background(), req)
		eq(t, "IsUnauthorized", apiclient.IsUnauthorized(err), true)
		eq(t, "creates", len(w.requestsTo("POST", "/notification/create/")), 1)
		eq(t, "logins", len(w.requestsTo("POST", "/account/login/")), 1)
		eq(t, "stored", w.svc.NotificationsWithLabel(req.Label), 0)
		_, err = w.c.CreateNotification(context.Background(), req)
		must(t, err)
	})
	t.Run("lapsed subscription", func(t *testing.T) {
		w := newSimWorld(t, sim.Options{}, apiclient.WithToken(""), apiclient.WithCredentials("lapsed@example.com", "sim-password"))
		_, err := w.c.NotificationsByLabel(context.Background(), "x")
		eq(t, "IsForbidden", apiclient.IsForbidden(err), true)
	})
}

// TestContractPaginationAndRate walks more than one page of the sim's
// notifications, and checks the client's pace in the sim's log.
func TestContractPaginationAndRate(t *testing.T) {
	w := newSimWorld(t, sim.Options{})
	for i := range 120 {
		w.createOne(t, "many", map[string]any{"note": strconv.Itoa(i)})
	}
	got, err := w.c.NotificationsByLabel(context.Background(), "many")
	must(t, err)
	eq(t, "all pages", len(got), 120)
	n := 0
	for _, err := range w.c.Notifications(context.Background(), apiclient.ListNotificationsOptions{Page: 9}) {
		must(t, err) // page 9 is out of range: the sim answers page 1
		n++
	}
	eq(t, "items from an out-of-range start", n, 0)

	c, err := apiclient.New(w.srv.URL, apiclient.WithToken(w.svc.Token()), apiclient.WithRateLimit(20, 1), apiclient.WithTokenCache(""))
	must(t, err)
	w.svc.ResetRequests()
	for range 6 {
		_, err := c.ListSessions(context.Background())
		must(t, err)
	}
	reqs := w.requestsTo("GET", "/bookieaccount/")
	if span := reqs[len(reqs)-1].Time.Sub(reqs[0].Time); span < 240*time.Millisecond {
		t.Errorf("6 requests at 20/s took %v", span)
	}
}
