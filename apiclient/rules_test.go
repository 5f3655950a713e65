package apiclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// hit is one request a test server saw.
type hit struct {
	at     time.Time
	method string
	path   string
	query  string
	auth   string
	body   string
}

// fakeService is an httptest server that records every request and
// answers with handle (n counts the requests to the same method and path,
// from 1).
type fakeService struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []hit
	per  map[string]int
}

func newFake(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeService {
	t.Helper()
	f := &fakeService{per: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.hits = append(f.hits, hit{time.Now(), r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), string(body)})
		key := r.Method + " " + r.URL.Path
		f.per[key]++
		n := f.per[key]
		f.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeService) count(method, path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.per[method+" "+path]
}

func (f *fakeService) times(method, path string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Time
	for _, h := range f.hits {
		if h.method == method && h.path == path {
			out = append(out, h.at)
		}
	}
	return out
}

func (f *fakeService) client(t testing.TB, opts ...apiclient.Option) *apiclient.Client {
	t.Helper()
	base := []apiclient.Option{
		apiclient.WithToken("T1"),
		apiclient.WithRateLimit(0, 1),
		apiclient.WithTimeout(2 * time.Second),
		apiclient.WithTokenCache(""),
	}
	c, err := apiclient.New(f.srv.URL, append(base, opts...)...)
	must(t, err)
	return c
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

const racesBody = `[{"code":"Harness","name":["SAMPLEVILLE"],"event_number":2,"starttime":"2025-03-01T14:02:10+11:00","runners":"1,2","runner_names":"A,B"}]`

func TestSafeCallsAreRetried(t *testing.T) {
	for _, tt := range []struct {
		name  string
		fail  func(w http.ResponseWriter)
		calls int
	}{
		{"500", func(w http.ResponseWriter) { writeJSON(w, 500, `{"error":"boom"}`) }, 2},
		{"502", func(w http.ResponseWriter) { writeJSON(w, 502, `bad gateway`) }, 2},
		{"503", func(w http.ResponseWriter) { writeJSON(w, 503, `{}`) }, 2},
		{"429", func(w http.ResponseWriter) { writeJSON(w, 429, `{"detail":"slow down"}`) }, 2},
		{"drop", drop, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					tt.fail(w)
					return
				}
				writeJSON(w, 200, racesBody)
			})
			c := f.client(t)
			races, err := c.ListRaces(context.Background())
			must(t, err)
			eq(t, "races", len(races), 1)
			eq(t, "requests seen", f.count("GET", "/competition/namecodes/"), tt.calls)
			eq(t, "Requests()", c.Requests(), int64(tt.calls))
		})
	}
}

func TestSafeCallGivesUpAfterMaxRetries(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		writeJSON(w, 503, `{"error":"down"}`)
	})
	c := f.client(t, apiclient.WithMaxRetries(2))
	_, err := c.ListRaces(context.Background())
	eq(t, "IsServerError", apiclient.IsServerError(err), true)
	eq(t, "IsAmbiguous (a GET has no effect)", apiclient.IsAmbiguous(err), false)
	eq(t, "requests", f.count("GET", "/competition/namecodes/"), 3)
}

func createReq() *apiclient.CreateNotificationRequest {
	return &apiclient.CreateNotificationRequest{Type: "Fixed Wager", Sports: "RACING", Competition: "SAMPLE PARK",
		Code: "Greyhounds", EventNumber: 4, Market: "Fixed Win", Selection: "3", Stake: 2, Label: "betplan-0001"}
}

func TestCreateIsNeverRetried(t *testing.T) {
	for _, tt := range []struct {
		name      string
		answer    func(w http.ResponseWriter, r *http.Request)
		ambiguous bool
		check     func(error) bool
	}{
		{"500", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 500, `{"error":"boom"}`) }, true, apiclient.IsServerError},
		{"503", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 503, ``) }, true, apiclient.IsServerError},
		{"drop", func(w http.ResponseWriter, r *http.Request) { drop(w) }, true, nil},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, true, nil},
		{"429", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"detail":"Request was throttled."}`)
		}, false, apiclient.IsRateLimited},
		{"400", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 400, `{"stake":["must be positive"]}`) }, false, apiclient.IsBadRequest},
		{"401", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 401, `{"detail":"Invalid token."}`) }, false, apiclient.IsUnauthorized},
		{"403", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 403, `{"error":"Subscription is not active"}`)
		}, false, apiclient.IsForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer(w, r) })
			c := f.client(t, apiclient.WithTimeout(150*time.Millisecond))
			res, err := c.CreateNotification(context.Background(), createReq())
			if err == nil {
				t.Fatalf("no error, result %+v", res)
			}
			eq(t, "create requests", f.count("POST", "/notification/create/"), 1)
			eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), tt.ambiguous)
			if tt.check != nil {
				eq(t, "status helper", tt.check(err), true)
			}
			contains(t, "error", err.Error(), "POST /notification/create/")
		})
	}
}

func TestCreateDialRefusedIsNotAmbiguous(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := apiclient.New("http://"+addr, apiclient.WithToken("T1"), apiclient.WithRateLimit(0, 1), apiclient.WithTokenCache(""))
	must(t, err)
	_, err = c.CreateNotification(context.Background(), createReq())
	if err == nil {
		t.Fatal("no error")
	}
	eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), false)
	eq(t, "one attempt", c.Requests(), int64(1))
}

func TestOtherPostsRetryOnlyWhenRefused(t *testing.T) {
	t.Run("500 is not repeated", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 500, `{}`) })
		err := f.client(t).CancelNotification(context.Background(), 7)
		eq(t, "IsServerError", apiclient.IsServerError(err), true)
		eq(t, "requests", f.count("POST", "/notification/7/cancel/"), 1)
	})
	t.Run("429 is repeated", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				writeJSON(w, 429, `{}`)
				return
			}
			writeJSON(w, 200, `{"status":"success"}`)
		})
		must(t, f.client(t).CancelNotification(context.Background(), 7))
		eq(t, "requests", f.count("POST", "/notification/7/cancel/"), 2)
	})
	t.Run("drop is ambiguous, not repeated", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { drop(w) })
		err := f.client(t).TriggerNotification(context.Background(), 7)
		eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), true)
		eq(t, "requests", f.count("POST", "/notification/7/trigger/"), 1)
	})
	t.Run("search is safe", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				writeJSON(w, 502, ``)
				return
			}
			writeJSON(w, 200, `[{"id": 5}]`)
		})
		recs, err := f.client(t).SearchBets(context.Background(), []int64{5})
		must(t, err)
		eq(t, "records", len(recs), 1)
		eq(t, "requests", f.count("POST", "/bet/search/"), 2)
	})
}

// authFake accepts "Token T2" only; login hands out T2.
func authFake(t *testing.T, createStatus int) *fakeService {
	return newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.URL.Path == "/account/login/":
			time.Sleep(20 * time.Millisecond) // let concurrent 401s pile up
			writeJSON(w, 200, `{"token":"T2"}`)
		case r.Header.Get("Authorization") != "Token T2":
			writeJSON(w, 401, `{"detail":"Invalid token."}`)
		case r.URL.Path == "/notification/create/":
			writeJSON(w, createStatus, `{"id": 9}`)
		default:
			writeJSON(w, 200, racesBody)
		}
	})
}

func TestUnauthorizedLogsInOnceAndRepeatsGET(t *testing.T) {
	f := authFake(t, 200)
	c := f.client(t, apiclient.WithCredentials("punter@example.com", "pw"))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.ListRaces(context.Background())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	eq(t, "logins", f.count("POST", "/account/login/"), 1)
}

func TestUnauthorizedWithoutCredentials(t *testing.T) {
	f := authFake(t, 200)
	_, err := f.client(t).ListRaces(context.Background())
	eq(t, "IsUnauthorized", apiclient.IsUnauthorized(err), true)
	eq(t, "requests", f.count("GET", "/competition/namecodes/"), 1)
}

func TestUnauthorizedCreateIsNotRepeated(t *testing.T) {
	f := authFake(t, 200)
	c := f.client(t, apiclient.WithCredentials("punter@example.com", "pw"))
	_, err := c.CreateNotification(context.Background(), createReq())
	eq(t, "IsUnauthorized", apiclient.IsUnauthorized(err), true)
	eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), false)
	eq(t, "creates", f.count("POST", "/notification/create/"), 1)
	eq(t, "logins", f.count("POST", "/account/login/"), 1)
	// The engine's next attempt goes out with the new token.
	res, err := c.CreateNotification(context.Background(), createReq())
	must(t, err)
	eq(t, "id", res.ID, int64(9))
}

func TestRetryAfterIsHonoured(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{}`)
			return
		}
		writeJSON(w, 200, racesBody)
	})
	_, err := f.client(t).ListRaces(context.Background())
	must(t, err)
	ts := f.times("GET", "/competition/namecodes/")
	if len(ts) != 2 {
		t.Fatalf("%d requests", len(ts))
	}
	if gap := ts[1].Sub(ts[0]); gap < 950*time.Millisecond || gap > 3*time.Second {
		t.Errorf("gap between attempts %v, want about 1s", gap)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0", 0},
		{"-5", 0},
		{"86400", 2 * time.Minute},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-30 * time.Second).Format(http.TimeFormat), 0},
		{now.Add(time.Hour).Format(http.TimeFormat), 2 * time.Minute},
		{"soon", 0},
	} {
		eq(t, "Retry-After "+tt.in, apiclient.ParseRetryAfter(tt.in, now), tt.want)
	}
}

func TestRateLimitIsRespected(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, racesBody) })
	c := f.client(t, apiclient.WithRateLimit(20, 1))
	const n = 11
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { _, _ = c.ListRaces(context.Background()) })
	}
	wg.Wait()
	ts := f.times("GET", "/competition/namecodes/")
	if len(ts) != n {
		t.Fatalf("%d requests", len(ts))
	}
	first, last := ts[0], ts[0]
	for _, x := range ts {
		if x.Before(first) {
			first = x
		}
		if x.After(last) {
			last = x
		}
	}
	if span, want := last.Sub(first), (n-1)*time.Second/20; span < want-10*time.Millisecond {
		t.Errorf("%d requests took %v, want at least %v", n, span, want)
	}
}

func TestPaginationStopsWhenServiceWrapsToPageOne(t *testing.T) {
	page1 := `{"count":1,"total_pages":1,"next":"http://x/?page=2","previous":null,"results":[{"id":1,"label":"L"},{"id":2,"label":"other"}]}`
	for _, tt := range []struct {
		name string
		body func(page string) string
	}{
		// Out-of-range pages answer page 1 again, with a non-null next.
		{"page 1 again", func(string) string { return page1 }},
		// A service that also fakes `previous`: the repeated first id stops it.
		{"page 1 again with previous", func(p string) string {
			if p == "1" {
				return page1
			}
			return strings.Replace(page1, `"previous":null`, `"previous":"http://x/?page=1"`, 1)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if r.URL.Query().Get("page_size") != "100" {
					t.Errorf("page_size = %q", r.URL.Query().Get("page_size"))
				}
				writeJSON(w, 200, tt.body(r.URL.Query().Get("page")))
			})
			got, err := f.client(t).NotificationsByLabel(context.Background(), "L")
			must(t, err)
			eq(t, "kept (label verified)", len(got), 1)
			eq(t, "requests", f.count("GET", "/notification/"), 2)
		})
	}
}

func TestPaginationWalksEveryPage(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		p := r.URL.Query().Get("page")
		switch p {
		case "1":
			// count lies (never below 1): it must not matter.
			writeJSON(w, 200, `{"count":1,"next":"n","previous":null,"results":[{"id":4,"label":"L"},{"id":3,"label":"L"}]}`)
		case "2":
			writeJSON(w, 200, `{"count":"1","next":"n","previous":"p","results":[{"id":3,"label":"L"},{"id":2,"label":"L"}]}`)
		case "3":
			writeJSON(w, 200, `{"count":1,"next":null,"previous":"p","results":[{"id":1,"label":"L"}]}`)
		default:
			t.Errorf("page %q requested", p)
		}
	})
	got, err := f.client(t).NotificationsByLabel(context.Background(), "L")
	must(t, err)
	eq(t, "notifications (the shifted duplicate dropped)", len(got), 4)
	eq(t, "label sent", f.hits[0].query, "label=L&page=1&page_size=100")
}

func TestBaseURLRules(t *testing.T) {
	for _, tt := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"https://betmatic.app/api", false, true},
		{"https://betmatic.app/api/", false, true},
		{"http://betmatic.app/api", false, false},
		{"http://betmatic.app/api", true, true},
		{"http://127.0.0.1:8080", false, true},
		{"http://127.9.9.9:8080", false, true},
		{"http://[::1]:8080", false, true},
		{"http://localhost:8080", false, true},
		{"http://LOCALHOST:8080", false, true},
		{"http://app.localhost:8080", false, true},
		{"http://0.0.0.0:8080", false, false},
		{"http://10.0.0.1", false, false},
		{"ftp://betmatic.app", true, false},
		{"betmatic.app/api", false, false},
		{"https://user:SECRET-PASS@betmatic.app/api", false, false},
		{"https://", false, false},
	} {
		var opts []apiclient.Option
		if tt.insecure {
			opts = append(opts, apiclient.WithInsecure())
		}
		c, err := apiclient.New(tt.url, opts...)
		if (err == nil) != tt.ok {
			t.Errorf("New(%q, insecure=%v): err = %v, want ok=%v", tt.url, tt.insecure, err, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), "SECRET-PASS") {
			t.Errorf("New(%q): error shows the password: %v", tt.url, err)
		}
		if c != nil && strings.HasSuffix(c.BaseURL(), "/") {
			t.Errorf("BaseURL() = %q has a trailing slash", c.BaseURL())
		}
	}
}

// tokenFake serves login (a new token each time) and refresh (which fails
// when refreshFails), and accepts any token it issued.
type tokenFake struct {
	*fakeService
	refreshFails atomic.Bool
}

func newTokenFake(t *testing.T) *tokenFake {
	tf := &tokenFake{}
	var issued sync.Map
	var next atomic.Int64
	tf.fakeService = newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/account/login/":
			tok := fmt.Sprintf("LOGIN-%d", next.Add(1))
			issued.Store(tok, true)
			writeJSON(w, 200, `{"token":"`+tok+`"}`)
		case "/account/refresh_token/":
			if tf.refreshFails.Load() {
				writeJSON(w, 401, `{"error":"refresh window expired: log in again"}`)
				return
			}
			tok := fmt.Sprintf("REFRESHED-%d", next.Add(1))
			issued.Store(tok, true)
			writeJSON(w, 200, `{"token":"`+tok+`"}`)
		default:
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Token ")
			if _, ok := issued.Load(tok); !ok && !strings.HasPrefix(tok, "CACHED") {
				writeJSON(w, 401, `{"detail":"Invalid token."}`)
				return
			}
			writeJSON(w, 200, `[]`)
		}
	})
	return tf
}

func TestTokenCache(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "betplan", "tokens.json")
	login := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tf := newTokenFake(t)
	newClient := func(now time.Time) *apiclient.Client {
		c, err := apiclient.New(tf.srv.URL,
			apiclient.WithCredentials("punter@example.com", "pw"), apiclient.WithRateLimit(0, 1),
			apiclient.WithTokenCache(cache), apiclient.WithNow(func() time.Time { return now }))
		must(t, err)
		return c
	}
	call := func(c *apiclient.Client) {
		t.Helper()
		_, err := c.ListSessions(context.Background())
		must(t, err)
	}

	call(newClient(login))
	eq(t, "first run logs in", tf.count("POST", "/account/login/"), 1)
	st, err := os.Stat(cache)
	must(t, err)
	eq(t, "file mode", st.Mode().Perm(), os.FileMode(0o600))
	st, err = os.Stat(filepath.Dir(cache))
	must(t, err)
	eq(t, "dir mode", st.Mode().Perm(), os.FileMode(0o700))

	call(newClient(login.Add(time.Hour)))
	eq(t, "young cached token: no login", tf.count("POST", "/account/login/"), 1)
	eq(t, "young cached token: no refresh", tf.count("POST", "/account/refresh_token/"), 0)

	call(newClient(login.Add(2 * 24 * time.Hour)))
	eq(t, "2 days: refreshed", tf.count("POST", "/account/refresh_token/"), 1)
	eq(t, "2 days: no login", tf.count("POST", "/account/login/"), 1)
	b, _ := os.ReadFile(cache)
	contains(t, "cache keeps the original login time", string(b), login.Format(time.RFC3339))
	contains(t, "cache holds the refreshed token", string(b), "REFRESHED-")

	call(newClient(login.Add(8 * 24 * time.Hour)))
	eq(t, "8 days: no refresh (window closed)", tf.count("POST", "/account/refresh_token/"), 1)
	eq(t, "8 days: token used as is", tf.count("POST", "/account/login/"), 1)

	call(newClient(login.Add(61 * 24 * time.Hour)))
	eq(t, "61 days: new login", tf.count("POST", "/account/login/"), 2)

	// A refresh that fails falls back to a login.
	tf.refreshFails.Store(true)
	relogin := login.Add(61 * 24 * time.Hour)
	call(newClient(relogin.Add(3 * 24 * time.Hour)))
	eq(t, "refresh tried", tf.count("POST", "/account/refresh_token/"), 2)
	eq(t, "failed refresh: login", tf.count("POST", "/account/login/"), 3)
}

func TestSecretsNeverLeak(t *testing.T) {
	const token, password = "SECRET-TOKEN-123", "SECRET-PASS-456"
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		// A careless service that echoes what it was sent.
		echo, _ := json.Marshal(r.Header.Get("Authorization") + " " + r.URL.Path)
		switch r.URL.Path {
		case "/account/login/":
			writeJSON(w, 401, `{"error":`+string(mustJSON(t, "bad login "+password))+`}`)
		case "/competition/namecodes/":
			writeJSON(w, 400, `{"detail":`+string(echo)+`}`)
		case "/bookieaccount/":
			writeJSON(w, 500, `raw text `+r.Header.Get("Authorization"))
		case "/bet/summary/":
			writeJSON(w, 400, `{"token":[`+string(echo)+`]}`)
		default:
			drop(w)
		}
	})
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := f.client(t, apiclient.WithToken(token), apiclient.WithCredentials("punter@example.com", password),
		apiclient.WithLogger(logger), apiclient.WithMaxRetries(1))
	ctx := context.Background()
	var errs []error
	_, err := c.ListRaces(ctx)
	errs = append(errs, err)
	_, err = c.ListSessions(ctx)
	errs = append(errs, err)
	_, err = c.BetSummary(ctx)
	errs = append(errs, err)
	_, err = c.CreateNotification(ctx, createReq())
	errs = append(errs, err)
	errs = append(errs, c.Login(ctx))
	for _, err := range errs {
		if err == nil {
			t.Fatal("expected an error")
		}
		for _, s := range []string{token, password} {
			if strings.Contains(err.Error(), s) || strings.Contains(fmt.Sprintf("%+v", err), s) {
				t.Errorf("error shows a secret: %v", err)
			}
		}
	}
	if logs.Len() == 0 {
		t.Fatal("no debug lines logged")
	}
	for _, s := range []string{token, password, "Authorization"} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("log shows %q:\n%s", s, logs.String())
		}
	}
	contains(t, "log", logs.String(), "path=/competition/namecodes/")
	contains(t, "log", logs.String(), "status=400")
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

func TestContextDoneReturnsCtxErr(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/bookieaccount/" {
			writeJSON(w, 503, `{}`) // retried: the cancel lands in the backoff wait
			return
		}
		<-r.Context().Done()
	})
	c := f.client(t)
	for _, call := range []func(ctx context.Context) error{
		func(ctx context.Context) error { _, err := c.ListRaces(ctx); return err },
		func(ctx context.Context) error { _, err := c.ListSessions(ctx); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := call(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
	}
	// An interrupted create may have landed: it is both ctx's error and
	// ambiguous.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CreateNotification(ctx, createReq())
	eq(t, "errors.Is deadline", errors.Is(err, context.DeadlineExceeded), true)
	eq(t, "IsAmbiguous", apiclient.IsAmbiguous(err), true)
}

func TestCreateRequestMergesOptions(t *testing.T) {
	req := createReq()
	req.Options = map[string]any{"check_odds": true, "odds": 1.8, "max_odds": 5}
	b, err := json.Marshal(req)
	must(t, err)
	eq(t, "body", string(b), `{"type":"Fixed Wager","sports":"RACING","competition":"SAMPLE PARK","code":"Greyhounds","event_number":4,"market":"Fixed Win","selection":"3","stake":2,"label":"betplan-0001","check_odds":true,"max_odds":5,"odds":1.8}`)

	for _, key := range []string{"stake", "label", "target_session"} {
		req.Options = map[string]any{key: "x"}
		_, err = json.Marshal(req)
		if err == nil {
			t.Errorf("option %q overriding a named field: no error", key)
		} else {
			contains(t, "error", err.Error(), key)
		}
	}
	// And CreateNotification refuses it before sending anything.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, 200, `{"id":1}`) })
	c := f.client(t)
	_, err = c.CreateNotification(context.Background(), req)
	if err == nil {
		t.Fatal("no error")
	}
	eq(t, "requests", c.Requests(), int64(0))
}

func TestErrorText(t *testing.T) {
	bigHTML := "<!DOCTYPE html><html><head><style>p{}</style><script>x()</script></head><body><h1>Bad   gateway</h1>\n<p>" + strings.Repeat("filler ", 300000) + "</p></body></html>"
	for _, tt := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"stake": ["must be positive"]}`, "POST /notification/create/: 400 Bad Request: stake: must be positive"},
		{400, `{"stake": "must be positive", "type": ["unknown", "bad"]}`, "POST /notification/create/: 400 Bad Request: stake: must be positive; type: unknown, bad"},
		{403, `{"error": "Subscription is not active"}`, "POST /notification/create/: 403 Forbidden: Subscription is not active"},
		{402, `{"detail": "Subscription is not active"}`, "POST /notification/create/: 402 Payment Required: Subscription is not active"},
		{404, `<html>nope</html>`, "POST /notification/create/: 404 Not Found: nope"},
		{404, bigHTML, "POST /notification/create/: 404 Not Found: " + ("Bad gateway " + strings.Repeat("filler ", 40))[:200] + "…(" + strconv.Itoa(len(bigHTML)) + " bytes)"},
		{400, "{\"error\": \"bad \\u001b]0;pwned\\u0007stake\\u001b[2J\\nnow\", \"stake\": [\"\\u009b31mred\"]}", "POST /notification/create/: 400 Bad Request: bad stake now; stake: red"},
		{400, "bad \x1b]0;pwned\x07text\x1b[2J", "POST /notification/create/: 400 Bad Request: bad text"},
		{406, ``, "POST /notification/create/: 406 Not Acceptable"},
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { writeJSON(w, tt.status, tt.body) })
		_, err := f.client(t).CreateNotification(context.Background(), createReq())
		var e *apiclient.Error
		if !errors.As(err, &e) {
			t.Fatalf("%T %v is not an *apiclient.Error", err, err)
		}
		eq(t, "Error()", err.Error(), tt.want)
		eq(t, "StatusCode", e.StatusCode, tt.status)
	}
}
