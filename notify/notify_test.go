package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/internal/smtptest"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
)

// hook is a webhook receiver on loopback answering with the statuses
// given, then 200.
type hook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	statuses []int
	bodies   []notify.Message
	requests int
}

func newHook(t *testing.T, statuses ...int) *hook {
	h := &hook{statuses: statuses}
	h.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.requests++
		if len(h.statuses) > 0 {
			st := h.statuses[0]
			h.statuses = h.statuses[1:]
			if st != http.StatusOK {
				rw.WriteHeader(st)
				return
			}
		}
		var m notify.Message
		if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &m) != nil {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		h.bodies = append(h.bodies, m)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) taken() []notify.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]notify.Message(nil), h.bodies...)
}

const secret = "/T0KEN-s3cr3t"

func target(url string) notify.Target {
	return notify.Target{URL: url + secret, On: plan.AlertEvents()}
}

// attempts records what a sender was told, as the engine's journal is.
type attempts struct {
	mu       sync.Mutex
	started  []int
	outcomes []notify.Outcome
	errs     []string
}

func (a *attempts) sender() *notify.Sender {
	return &notify.Sender{
		Backoff: func(int) time.Duration { return 10 * time.Millisecond },
		Attempting: func(_ *notify.Delivery, n int) error {
			a.mu.Lock()
			a.started = append(a.started, n)
			a.mu.Unlock()
			return nil
		},
		Finished: func(_ *notify.Delivery, _ int, o notify.Outcome, err error, _ bool) {
			a.mu.Lock()
			a.outcomes = append(a.outcomes, o)
			if err != nil {
				a.errs = append(a.errs, err.Error())
			}
			a.mu.Unlock()
		},
	}
}

func TestSenderRetriesA500(t *testing.T) {
	h := newHook(t, http.StatusInternalServerError, http.StatusOK)
	var a attempts
	s := a.sender()
	s.Start(&notify.Delivery{Key: "k", Target: target(h.srv.URL), Message: &notify.Message{ID: "a1", Event: "settled", Message: "won"}})
	require.Eventually(t, func() bool { return len(h.taken()) == 1 }, 5*time.Second, 5*time.Millisecond, "retried while the run goes on")
	left := s.Close(5 * time.Second)
	assert.Empty(t, left)
	require.Len(t, h.taken(), 1)
	assert.Equal(t, "a1", h.taken()[0].ID)
	assert.Equal(t, []int{1, 2}, a.started)
	assert.Equal(t, []notify.Outcome{notify.NotDelivered, notify.Delivered}, a.outcomes)
	assert.Equal(t, []string{"answered 500 Internal Server Error"}, a.errs)
}

func TestSenderKeepsATargetsOrder(t *testing.T) {
	h := newHook(t, http.StatusBadGateway)
	var a attempts
	s := a.sender()
	for _, id := range []string{"1", "2", "3"} {
		s.Start(&notify.Delivery{Key: id, Target: target(h.srv.URL), Message: &notify.Message{ID: id}})
	}
	// The run goes on while the sender works.
	require.Eventually(t, func() bool { return len(h.taken()) == 3 }, 5*time.Second, 5*time.Millisecond)
	assert.Empty(t, s.Close(5*time.Second))
	var ids []string
	for _, m := range h.taken() {
		ids = append(ids, m.ID)
	}
	assert.Equal(t, []string{"1", "2", "3"}, ids, "the first was retried before the others went")
}

func TestSenderTargetDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + l.Addr().String()
	l.Close()
	var a attempts
	s := a.sender()
	s.Backoff = func(int) time.Duration { return time.Hour } // only Close ends the wait
	d := &notify.Delivery{Key: "k", Target: target(down), Message: &notify.Message{ID: "x"}, Attempts: 2}
	s.Start(d)
	// The run goes on: the first attempt fails and its backoff begins.
	require.Eventually(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return len(a.outcomes) == 1 }, 5*time.Second, 5*time.Millisecond)
	start := time.Now()
	left := s.Close(5 * time.Second)
	assert.Less(t, time.Since(start), 3*time.Second, "the end of a run does not wait out a backoff")
	require.Len(t, left, 1)
	assert.Equal(t, notify.NotDelivered, left[0].Outcome, "certainly not delivered: the next run tries again")
	assert.Equal(t, 4, left[0].Attempts, "one attempt, and one more as the sender closed, after two of earlier runs")
	assert.Contains(t, left[0].Err, "unreachable")
	assert.NotContains(t, left[0].Err, "s3cr3t")
	assert.NotContains(t, left[0].Err, l.Addr().String(), "the error does not name the target: its caller does")
}

func TestSenderGivesUp(t *testing.T) {
	h := newHook(t, 500, 500, 500)
	var a attempts
	s := a.sender()
	s.MaxAttempts = 3
	s.Start(&notify.Delivery{Key: "k", Target: target(h.srv.URL), Message: &notify.Message{ID: "x"}, Attempts: 1})
	require.Eventually(t, func() bool { a.mu.Lock(); defer a.mu.Unlock(); return len(a.outcomes) == 3 }, 5*time.Second, 5*time.Millisecond,
		"two failed attempts, then given up")
	left := s.Close(5 * time.Second)
	require.Len(t, left, 1)
	assert.True(t, left[0].GaveUp)
	assert.Equal(t, 2, h.requests, "two attempts after one of an earlier run")
}

// An attempt with no answer may have arrived: it is never made again.
func TestSenderNeverRepeatsAnUnknownOutcome(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		<-release
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	var a attempts
	s := a.sender()
	s.Start(&notify.Delivery{Key: "k", Target: target(srv.URL), Message: &notify.Message{ID: "x"}})
	left := s.Close(300 * time.Millisecond)
	require.Len(t, left, 1)
	assert.Equal(t, notify.Unknown, left[0].Outcome)
	mu.Lock()
	assert.Equal(t, 1, requests)
	mu.Unlock()
}

func TestTargetsExpandTheEnvironment(t *testing.T) {
	env := map[string]string{"HOOK": "https://hooks.example.com/T0KEN-s3cr3t"}
	ts, err := notify.Targets("p.yaml", []plan.NotifyTarget{{URL: "${HOOK}", On: []string{"summary"}, Line: 7}}, func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Len(t, ts, 1)
	assert.Equal(t, env["HOOK"], ts[0].URL)
	assert.Equal(t, "https://hooks.example.com/…", ts[0].Where())
	assert.NotContains(t, ts[0].ID(), "s3cr3t")

	_, err = notify.Targets("p.yaml", []plan.NotifyTarget{{URL: "${NOPE}", Line: 7}}, func(string) string { return "" })
	assert.EqualError(t, err, "p.yaml:7: notify url: environment variable NOPE is not set")

	env["HOOK"] = "http://hooks.example.com/T0KEN-s3cr3t"
	_, err = notify.Targets("p.yaml", []plan.NotifyTarget{{URL: "${HOOK}", Line: 7}}, func(k string) string { return env[k] })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "https is required")
	assert.NotContains(t, err.Error(), "s3cr3t")
}

func TestServiceURLsAreNeverShown(t *testing.T) {
	for _, u := range []string{"slack://xoxb-s3cr3t@C0123", "telegram://123:s3cr3t@telegram?chats=1", "https://user:s3cr3t@hooks.example.com/s3cr3t?k=s3cr3t"} {
		w := plan.RedactURL(u)
		assert.NotContains(t, w, "s3cr3t", u)
		assert.True(t, strings.HasSuffix(w, "…"), w)
	}
}

// A generic:// target posts the message's text to the receiver, the way
// the notification library reads its URL, through betplan's own client.
func TestSendThroughTheLibrary(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+" "+string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	tg := notify.Target{URL: "generic://" + host + "/gen" + secret + "?disabletls=yes", On: plan.AlertEvents()}
	require.NoError(t, plan.CheckNotifyURL(tg.URL))
	assert.Equal(t, "generic://…", tg.Where())
	o, err := notify.Send(t.Context(), nil, tg, &notify.Message{Plan: "card", Simulated: true, Message: "won flem1-no2: +$12.00"})
	require.NoError(t, err)
	assert.Equal(t, notify.Delivered, o)
	mu.Lock()
	assert.Equal(t, []string{"/gen" + secret + " betplan card (rehearsal): won flem1-no2: +$12.00"}, got)
	mu.Unlock()

	srv.Close()
	o, err = notify.Send(t.Context(), nil, tg, &notify.Message{Message: "x"})
	assert.Equal(t, notify.NotDelivered, o)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t", "the library's error quotes the URL: it is never passed on")
	assert.NotContains(t, err.Error(), host)
}

// A service sent through the library that answers an error may have
// posted (the library cannot say which): the outcome is unknown, so it is
// never sent again.
func TestLibraryServiceFailureIsUnknown(t *testing.T) {
	h := newHook(t, http.StatusInternalServerError)
	tg := notify.Target{URL: signalURL(h.srv.URL), On: plan.AlertEvents()}
	o, err := notify.Send(t.Context(), nil, tg, &notify.Message{Event: "summary", Message: "x"})
	require.Error(t, err)
	assert.Equal(t, notify.Unknown, o, "%v", err)
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Equal(t, 1, h.requests)
}

// dials records where a client would connect, and never connects.
type dials struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dials) dial(_ context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.addrs = append(d.addrs, addr)
	return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("not connecting in a test")}
}

func (d *dials) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// Plain http off this machine is refused before anything is dialled,
// whatever the scheme and however TLS is turned off; the same target over
// TLS is dialled (the hook shows it, without connecting).
func TestPlainTransportOnlyOnLoopback(t *testing.T) {
	for _, tt := range []struct {
		url      string
		outcome  notify.Outcome
		dialled  []string
		contains string
	}{
		{"generic://10.255.255.1/h?disabletls=yes", notify.Refused, nil, "plain http is only sent to loopback"},
		{"generic://10.255.255.1/h?DisableTLS=YES", notify.Refused, nil, "plain http is only sent to loopback"},
		{"generic://10.255.255.1/h?disableTLS=True", notify.Refused, nil, "plain http is only sent to loopback"},
		{"http://10.255.255.1/h", notify.Refused, nil, "plain http is only sent to loopback"},
		{"generic://10.255.255.1/h", notify.NotDelivered, []string{"10.255.255.1:443"}, "unreachable"},
		{"generic://127.0.0.1:9/h?disabletls=yes", notify.NotDelivered, []string{"127.0.0.1:9"}, "unreachable"},
	} {
		t.Run(tt.url, func(t *testing.T) {
			d := &dials{}
			o, err := notify.Send(t.Context(), notify.NewClient(d.dial), notify.Target{URL: tt.url}, &notify.Message{Event: "summary", Message: "x"})
			require.Error(t, err)
			assert.Equal(t, tt.outcome, o, "%v", err)
			assert.Contains(t, err.Error(), tt.contains)
			assert.Equal(t, tt.dialled, d.seen())
		})
	}
}

// A service sent through the library is held to the same rules through
// the process's default transport: a redirect answer is final and is not
// followed to the port it names.
func TestLibraryServiceFollowsNoRedirect(t *testing.T) {
	other := newHook(t)
	h := newHook(t)
	h.srv.Config.Handler = http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		h.mu.Lock()
		h.requests++
		h.mu.Unlock()
		http.Redirect(rw, r, other.srv.URL+"/elsewhere", http.StatusTemporaryRedirect)
	})
	tg := notify.Target{URL: signalURL(h.srv.URL)}
	o, err := notify.Send(t.Context(), nil, tg, &notify.Message{Event: "summary", Message: "x"})
	require.Error(t, err)
	assert.Equal(t, notify.Refused, o, "%v", err)
	assert.Contains(t, err.Error(), "the target redirects (signal://…)")
	h.mu.Lock()
	assert.Equal(t, 1, h.requests)
	h.mu.Unlock()
	other.mu.Lock()
	assert.Zero(t, other.requests, "nothing reaches the port the redirect names")
	other.mu.Unlock()
}

// signalURL is a signal:// target whose REST API is the loopback server at
// srvURL, over plain http: a service the library sends through the
// process's default transport.
func signalURL(srvURL string) string {
	return "signal://" + strings.TrimPrefix(srvURL, "http://") + "/+15551234567/+15557654321?disabletls=yes"
}

// smtpURL is an smtp:// target on the loopback mail server at addr, in
// plain SMTP (which validate allows on loopback only), with query added.
func smtpURL(addr, query string) string {
	return "smtp://" + addr + "/?from=betplan@example.com&to=punter@example.com&auth=None&encryption=None&usestarttls=No" + query
}

// An e-mail names whose alert it is and whether it is a rehearsal's in its
// subject as well as its body: a subject the URL sets is kept, followed by
// " (rehearsal)" on a rehearsal; without one, betplan's own, never the
// library's empty subject. A real mail server on loopback takes them.
func TestMailSubjectSaysARehearsal(t *testing.T) {
	srv, err := smtptest.NewServer()
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	for _, tt := range []struct {
		query     string
		simulated bool
		subject   string
	}{
		{"", false, "betplan card"},
		{"", true, "betplan card (rehearsal)"},
		{"&subject=Race+day", false, "Race day"},
		{"&subject=Race+day", true, "Race day (rehearsal)"},
	} {
		tg := notify.Target{URL: smtpURL(srv.Addr, tt.query)}
		require.NoError(t, plan.CheckNotifyURL(tg.URL))
		o, err := notify.Send(t.Context(), nil, tg, &notify.Message{Plan: "card", Simulated: tt.simulated, Message: "won flem1-no2: +$12.00"})
		require.NoError(t, err, tt.query)
		require.Equal(t, notify.Delivered, o)
		mails := srv.Mails()
		m := mails[len(mails)-1]
		assert.Equal(t, tt.subject, m.Header.Get("Subject"), "%q simulated=%v", tt.query, tt.simulated)
		body := "betplan card: won flem1-no2: +$12.00"
		if tt.simulated {
			body = "betplan card (rehearsal): won flem1-no2: +$12.00"
		}
		assert.Equal(t, body, strings.TrimSpace(m.Body))
	}
}

// The title each service that shows one is handed (where no server of it
// can be reached on loopback): the URL's own title, marked on a rehearsal
// and left alone on a real run; the library's stock title replaced by
// betplan's; no title where the service shows none unless told (its
// message says the rehearsal). A Zulip topic is its title, under the key
// the library reads for it.
func TestServiceTitleParams(t *testing.T) {
	for _, tt := range []struct {
		url       string
		real, sim map[string]string
		note      string
	}{
		{url: "pushover://shoutrrr:apptoken@userkey/?title=Phone", sim: map[string]string{"title": "Phone (rehearsal)"}},
		{url: "pushover://shoutrrr:apptoken@userkey/", note: "the app's name is the title"},
		{url: "pushbullet://tokentokentokentokentokentokentoke/", real: map[string]string{"title": "betplan card"}, sim: map[string]string{"title": "betplan card (rehearsal)"}},
		{url: "telegram://12345:token@telegram?chats=1&title=TG", sim: map[string]string{"title": "TG (rehearsal)"}},
		{url: "telegram://12345:token@telegram?chats=1", note: "no title line above the message"},
		{url: "slack://hook:WNA3PBYV6-F20DUQND3RQ-Webc4MAvoacrpPakR8phF0zi@webhook?title=Sl", sim: map[string]string{"title": "Sl (rehearsal)"}},
		{url: "zulip://bot@example.com:key@example.zulipchat.com/?stream=bets&topic=alerts", sim: map[string]string{"topic": "alerts (rehearsal)"}},
		{url: "teams://11111111-4444-4444-8444-cccccccccccc@22222222-4444-4444-8444-cccccccccccc/33333301222222222233333333333344/44444444-4444-4444-8444-cccccccccccc/V2ESyij_gAljSoUQHvZoZYzlpAoAXExyOl26dlf1xHEx05?host=test.webhook.office.com&title=Tm", sim: map[string]string{"title": "Tm (rehearsal)"}},
		{url: "join://shoutrrr:api-key@join/?devices=a&title=J", sim: map[string]string{"title": "J (rehearsal)"}},
		{url: "lark://open.larksuite.com/token?title=L", sim: map[string]string{"title": "L (rehearsal)"}},
		{url: "opsgenie://api.opsgenie.com/apikey?title=Pager", sim: map[string]string{"title": "Pager (rehearsal)"}},
		{url: "rocketchat://host/token/token2", note: "no title"},
		{url: "googlechat://chat.googleapis.com/v1/spaces/FOO/messages?key=bar&token=baz", note: "no title"},
	} {
		t.Run(tt.url, func(t *testing.T) {
			require.NoError(t, plan.CheckNotifyURL(tt.url))
			for _, sim := range []bool{false, true} {
				got, err := notify.TitleParams(tt.url, &notify.Message{Plan: "card", Simulated: sim})
				require.NoError(t, err)
				want := tt.real
				if sim {
					want = tt.sim
				}
				if want == nil {
					want = map[string]string{}
				}
				assert.Equal(t, want, got, "simulated=%v %s", sim, tt.note)
			}
		})
	}
}
