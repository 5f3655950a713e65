package sim

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// ServeHTTP serves one request: faults first, then the world catches up
// with the clock, then the endpoint.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The entry is logged on arrival, so the log is in arrival order even
	// when a hanging request finishes last; its status is filled in at the end.
	entry := &Request{Time: time.Now(), SimTime: s.clock.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	f := s.takeFault(r, entry)
	// The service's clock, as a client would compare its own against.
	w.Header().Set("Date", entry.SimTime.Add(time.Duration(s.dateSkew.Load())).UTC().Format(http.TimeFormat))
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		s.mu.Lock()
		entry.Status = sw.status
		s.mu.Unlock()
	}()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(sw, http.StatusBadRequest, "could not read request body")
		return
	}
	if f == nil {
		s.serve(sw, r, body)
		return
	}
	switch f.Kind {
	case Latency:
		if apiclient.Sleep(r.Context(), f.Latency) != nil {
			return
		}
		s.serve(sw, r, body)
	case StatusFault:
		writeError(sw, f.status(), http.StatusText(f.status()))
	case RateLimit:
		writeThrottled(sw, f.RetryAfter)
	case Drop:
		drop(w)
	case CommitThenStatus:
		s.serve(&bufferWriter{header: http.Header{}}, r, body)
		writeError(sw, f.status(), http.StatusText(f.status()))
	case CommitThenTimeout:
		s.serve(&bufferWriter{header: http.Header{}}, r, body)
		if f.Latency > 0 {
			_ = apiclient.Sleep(r.Context(), f.Latency)
		} else {
			<-r.Context().Done()
		}
		drop(w)
	case CommitThenDrop:
		s.serve(&bufferWriter{header: http.Header{}}, r, body)
		drop(w)
	case ExpireTokens:
		s.ExpireTokens()
		s.serve(sw, r, body)
	default:
		s.serve(sw, r, body)
	}
}

// statusWriter remembers the status written, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// bufferWriter collects a response that a CommitThen* fault throws away.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }

func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// drop closes the connection without writing a response.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// call is one request being served, with the lock held.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	body []byte
	now  time.Time
	user *user
	id   int // the {id} of the path, if any
}

type route struct {
	method  string
	pattern string // segments; "{id}" matches a number
	auth    bool
	gated   bool // needs an active subscription
	fn      func(s *Service, c *call)
}

var (
	routes    []route
	routeSegs [][]string // each route's pattern split at "/", made once
)

func init() {
	routes = []route{
		{"POST", "/account/login/", false, false, (*Service).login},
		{"POST", "/account/refresh_token/", false, false, (*Service).refreshToken},
		{"POST", "/account/signup/", false, false, (*Service).signup},
		{"POST", "/account/forgot_password/", false, false, (*Service).forgotPassword},
		{"POST", "/account/reset_password/", false, false, (*Service).resetPassword},
		{"POST", "/account/logout/", true, false, (*Service).logout},
		{"GET", "/account/readiness/", true, false, (*Service).readiness},
		{"GET", "/account/connect_activity/", true, false, (*Service).connectActivity},

		{"GET", "/competition/namecodes/", true, false, (*Service).namecodes},

		{"GET", "/notification/", true, true, (*Service).listNotifications},
		{"POST", "/notification/create/", true, true, (*Service).createNotification},
		{"GET", "/notification/types/", true, false, (*Service).notificationTypes},
		{"GET", "/notification/scheduled/", true, true, (*Service).listScheduled},
		{"GET", "/notification/{id}/", true, true, (*Service).getNotification},
		{"POST", "/notification/{id}/trigger/", true, true, (*Service).triggerNotification},
		{"POST", "/notification/{id}/cancel/", true, true, (*Service).cancelNotification},
		{"GET", "/notification/{id}/race/detail/", true, true, (*Service).raceDetail},

		{"GET", "/bet/", true, true, (*Service).listBets},
		{"GET", "/bet/notification/{id}/", true, true, (*Service).betsOfNotification},
		{"POST", "/bet/search/", true, true, (*Service).searchBets},
		{"GET", "/bet/summary/", true, true, (*Service).betSummary},
		{"GET", "/bet/codes/", true, false, (*Service).betCodes},
		{"GET", "/bet/markets/", true, false, (*Service).betMarkets},

		{"GET", "/bookieaccount/", true, false, (*Service).listSessions},
		{"GET", "/bookieaccount/{id}/", true, false, (*Service).getSession},
		{"POST", "/bookieaccount/control/{id}/", true, false, (*Service).controlSession},
		{"POST", "/bookieaccount/control/", true, false, (*Service).controlAll},

		{"GET", "/bookie/names/", true, false, (*Service).bookieNames},
		{"GET", "/bookie/markets/", true, false, (*Service).bookieMarkets},
		{"GET", "/bookie/{id}/", true, false, (*Service).bookieDetail},
		{"GET", "/event/list/", true, false, (*Service).eventList},
		{"GET", "/event/{id}/", true, false, (*Service).eventDetail},

		{"GET", "/bot/logs/", true, false, (*Service).botLogList},
		{"GET", "/bot/logs/{id}/", true, false, (*Service).botLogsOfNotification},

		{"POST", "/pick/tipster/publish/", true, false, (*Service).publishTips},
		{"POST", "/pick/tipster/message/", true, false, (*Service).preAlert},
		{"POST", "/pick/tipster/prealert/", true, false, (*Service).preAlert},
	}
	for _, rt := range routes {
		routeSegs = append(routeSegs, strings.Split(strings.Trim(rt.pattern, "/"), "/"))
	}
}

// match reports whether the path's segments xs fit the pattern's ps, and
// the {id} they carry.
func match(ps, xs []string) (int, bool) {
	if len(ps) != len(xs) {
		return 0, false
	}
	id := 0
	for i, p := range ps {
		if p == "{id}" {
			n, err := strconv.Atoi(xs[i])
			if err != nil || n < 0 {
				return 0, false
			}
			id = n
			continue
		}
		if p != xs[i] {
			return 0, false
		}
	}
	return id, true
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	path := r.URL.Path
	if !strings.HasSuffix(path, "/") {
		path += "/" // the old doc writes some paths without the slash
	}
	var allowed []string
	xs := strings.Split(strings.Trim(path, "/"), "/")
	for i, rt := range routes {
		id, ok := match(routeSegs[i], xs)
		if !ok {
			continue
		}
		if rt.method != r.Method {
			allowed = append(allowed, rt.method)
			continue
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		now := s.clock.Now()
		s.advance(now)
		c := &call{w: w, r: r, body: body, now: now, id: id}
		if rt.auth {
			u, status, msg := s.authenticate(r, now)
			if u == nil {
				writeError(w, status, msg)
				return
			}
			if rt.gated && !u.Active {
				writeError(w, http.StatusForbidden, "Subscription is not active")
				return
			}
			c.user = u
		}
		rt.fn(s, c)
		return
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("Method %q not allowed.", r.Method))
		return
	}
	writeError(w, http.StatusNotFound, "Not found.")
}
