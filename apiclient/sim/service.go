package sim

import (
	"bytes"
	"container/heap"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CreateResponseShape chooses the body of POST /notification/create/.
type CreateResponseShape int

const (
	// CreateNotificationObject answers with the created notification, `id` a
	// number (the spec's shape).
	CreateNotificationObject CreateResponseShape = iota
	// CreateIDMessage answers {"id": "<id as a string>", "message": "Notification created"}.
	CreateIDMessage
)

// Options configure a simulated service. The zero value is a usable world.
type Options struct {
	Seed  int64 // world seed (races, runners, odds, results, refusals)
	Clock Clock // default RealClock()

	// Credentials accepted by /account/login/; defaults
	// "punter@example.com" / "sim-password". A second user,
	// "lapsed@example.com" with the same password, has an inactive
	// subscription.
	Email, Password string

	Venues []Venue // default DefaultVenues

	CreateResponse CreateResponseShape
	// BareBetArrays makes GET /bet/notification/{id}/ answer the old doc's
	// bare array of records instead of the new doc's object.
	BareBetArrays bool
	// TipsterAPIKey is the package key /pick/tipster/* accept; default
	// "SIMPACKAGEKEY001".
	TipsterAPIKey string
	// TakeUpDelay is how long after creation (or trigger) the bots act;
	// default 3s of sim time.
	TakeUpDelay time.Duration
}

// Service is the simulated service; it implements http.Handler.
type Service struct {
	opts  Options
	clock Clock

	mu            sync.Mutex
	world         *world
	users         []*user
	tokens        map[string]*token
	sessions      []*session
	notifications []*notification
	botLogs       []botLog
	faults        []*activeFault
	requests      []*Request
	loginTimes    []time.Time
	limited       map[string][]time.Time // signup, password reset
	nextID        int

	// Indexes over notifications, and the bet records by user, so a
	// request costs the same however many are stored (see index.go).
	byID       map[int]*notification
	byUser     map[int][]*notification      // creation order
	byLabel    map[labelKey][]*notification // creation order
	labelCount map[string]int
	recsByUser map[int][]*betRecord // every record, creation order
	due        eventQueue           // pending take-ups and resultings
}

type user struct {
	ID       int
	Email    string
	Password string
	Nickname string
	Active   bool
}

type token struct {
	User     *user
	IssuedAt time.Time
	OrigIat  time.Time // the original login, kept across refreshes
	Expired  bool
}

const (
	tokenLifetime = 60 * 24 * time.Hour
	refreshWindow = 7 * 24 * time.Hour
	loginLimit    = 30
	otherLimit    = 5
)

// New builds a service from opts.
func New(opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = RealClock()
	}
	if opts.Email == "" {
		opts.Email = "punter@example.com"
	}
	if opts.Password == "" {
		opts.Password = "sim-password"
	}
	var venues []Venue
	for _, v := range opts.Venues {
		if len(v.Names) == 0 {
			continue // a venue needs a name to be found by
		}
		if v.Code == "" {
			v.Code = "Galloping"
		}
		venues = append(venues, v)
	}
	if len(venues) == 0 {
		venues = append(venues, DefaultVenues...)
	}
	opts.Venues = venues
	if opts.TipsterAPIKey == "" {
		opts.TipsterAPIKey = "SIMPACKAGEKEY001"
	}
	if opts.TakeUpDelay <= 0 {
		opts.TakeUpDelay = 3 * time.Second
	}
	now := opts.Clock.Now()
	s := &Service{
		opts:    opts,
		clock:   opts.Clock,
		tokens:  map[string]*token{},
		limited: map[string][]time.Time{},
		nextID:  1000,

		byID:       map[int]*notification{},
		byUser:     map[int][]*notification{},
		byLabel:    map[labelKey][]*notification{},
		labelCount: map[string]int{},
		recsByUser: map[int][]*betRecord{},
	}
	s.world = newWorld(opts.Seed, now, opts.Venues)
	s.users = []*user{
		{ID: 612, Email: opts.Email, Password: opts.Password, Nickname: "punter", Active: true},
		{ID: 613, Email: "lapsed@example.com", Password: opts.Password, Nickname: "lapsed", Active: false},
	}
	s.sessions = defaultSessions(612, now)
	return s
}

// Clock returns the service's clock.
func (s *Service) Clock() Clock { return s.clock }

// Token returns a fresh valid token for the default user, issued at the
// clock's now.
func (s *Service) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issueToken(s.users[0], s.clock.Now(), time.Time{})
}

// ExpireTokens expires every token issued so far.
func (s *Service) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireTokensLocked()
}

func (s *Service) expireTokensLocked() {
	for _, t := range s.tokens {
		t.Expired = true
	}
}

func (s *Service) issueToken(u *user, now, origIat time.Time) string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	if origIat.IsZero() {
		origIat = now
	}
	s.tokens[tok] = &token{User: u, IssuedAt: now, OrigIat: origIat}
	return tok
}

func (s *Service) newID() int {
	s.nextID++
	return s.nextID
}

// Request is one entry of the request log. Authorization headers and
// bodies (passwords) are never kept.
type Request struct {
	Time    time.Time // real wall time, for rate measurements
	SimTime time.Time
	Method  string
	Path    string
	Query   string // raw query
	Status  int    // 0 when the connection was dropped without a response, or still in flight
	Fault   string // the fault kind applied, if any
}

// Requests returns the request log, in order.
func (s *Service) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// ResetRequests empties the request log.
func (s *Service) ResetRequests() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
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

// ServeHTTP serves one request: faults first, then the world catches up
// with the clock, then the endpoint.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The entry is logged on arrival, so the log is in arrival order even
	// when a hanging request finishes last; its status is filled in at the end.
	entry := &Request{Time: time.Now(), SimTime: s.clock.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	f := s.takeFault(r, entry)
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
		if sleepCtx(r.Context(), f.Latency) != nil {
			return
		}
		s.serve(sw, r, body)
	case StatusFault:
		writeError(sw, f.status(), http.StatusText(f.status()))
	case RateLimit:
		secs := int((f.RetryAfter + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		sw.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(sw, http.StatusTooManyRequests, "Request was throttled. Expected available in "+strconv.Itoa(secs)+" seconds.")
	case Drop:
		drop(w)
	case CommitThenStatus:
		s.serve(&bufferWriter{header: http.Header{}}, r, body)
		writeError(sw, f.status(), http.StatusText(f.status()))
	case CommitThenTimeout:
		s.serve(&bufferWriter{header: http.Header{}}, r, body)
		if f.Latency > 0 {
			_ = sleepCtx(r.Context(), f.Latency)
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

func (s *Service) authenticate(r *http.Request, now time.Time) (*user, int, string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, http.StatusUnauthorized, "Authentication credentials were not provided."
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || scheme != "Token" {
		return nil, http.StatusUnauthorized, "Invalid token header. Use: Token <token>."
	}
	t := s.tokens[strings.TrimSpace(tok)]
	if t == nil {
		return nil, http.StatusUnauthorized, "Invalid token."
	}
	if t.Expired || !now.Before(t.IssuedAt.Add(tokenLifetime)) {
		return nil, http.StatusUnauthorized, "Token has expired."
	}
	return t.User, 0, ""
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeErr(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error": "internal server error"}`)
	}
	writeRaw(w, status, b)
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// encodeErr encodes v as the service does: compact, HTML characters as
// they are (runner names are joined by "#&#"), no trailing newline.
func encodeErr(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encode is encodeErr for values that always encode (our own structs).
func encode(v any) []byte {
	b, err := encodeErr(v)
	if err != nil {
		panic(fmt.Sprintf("sim: encode %T: %v", v, err))
	}
	return b
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// fieldErrors is the field-level error body: {"field": ["message", ...]}.
type fieldErrors map[string][]string

func (f fieldErrors) add(field, msg string) { f[field] = append(f[field], msg) }

// decodeBody reads a JSON object body; a malformed one gets a 400 and false.
func decodeBody(c *call) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(c.body)) == 0 {
		return m, true
	}
	if err := json.Unmarshal(c.body, &m); err != nil {
		writeError(c.w, http.StatusBadRequest, "JSON parse error - "+err.Error())
		return nil, false
	}
	return m, true
}

// str reads a string field, taking a number as its text too.
func str(m map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		return sv, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// num reads a number field, taking a numeric string too. present reports
// whether the key was there; ok whether it was a number.
func num(m map[string]json.RawMessage, key string) (v float64, present, ok bool) {
	raw, has := m[key]
	if !has || string(raw) == "null" {
		return 0, false, false
	}
	if json.Unmarshal(raw, &v) == nil {
		return v, true, true
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(sv), 64); err == nil {
			return f, true, true
		}
	}
	return 0, true, false
}

func boolean(m map[string]json.RawMessage, key string) bool {
	raw, ok := m[key]
	if !ok {
		return false
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		return n != 0
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		b, _ := strconv.ParseBool(sv)
		return b
	}
	return false
}

// span is one page of a paginated list, with the service's quirks: count
// never below 1, an out-of-range page gives page 1. Items lo..hi-1 (in
// list order) are on the page.
type span struct {
	count, pages   int
	lo, hi         int
	next, previous *string
}

func paginate(c *call, total int) span {
	q := c.r.URL.Query()
	size, err := strconv.Atoi(q.Get("page_size"))
	if err != nil || size <= 0 {
		size = 10
	}
	if size > 100 {
		size = 100
	}
	pages := (total + size - 1) / size
	if pages < 1 {
		pages = 1
	}
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 || n > pages {
		n = 1
	}
	lo, hi := (n-1)*size, n*size
	if hi > total {
		hi = total
	}
	p := span{count: max(total, 1), pages: pages, lo: lo, hi: hi}
	link := func(k int) *string {
		scheme := "http"
		if c.r.TLS != nil {
			scheme = "https"
		}
		qq := c.r.URL.Query()
		qq.Set("page", strconv.Itoa(k))
		u := scheme + "://" + c.r.Host + c.r.URL.Path + "?" + qq.Encode()
		return &u
	}
	if n < pages {
		p.next = link(n + 1)
	}
	if n > 1 {
		p.previous = link(n - 1)
	}
	return p
}

// writePage writes the pagination envelope {"count", "next", "previous",
// "total_pages", "results"} around the page's items, item(i) giving the
// encoded JSON of item i of the list.
func writePage(w http.ResponseWriter, p span, item func(i int) []byte) {
	head := make([]byte, 0, 512)
	head = append(head, `{"count":`...)
	head = strconv.AppendInt(head, int64(p.count), 10)
	head = append(head, `,"next":`...)
	head = appendLink(head, p.next)
	head = append(head, `,"previous":`...)
	head = appendLink(head, p.previous)
	head = append(head, `,"total_pages":`...)
	head = strconv.AppendInt(head, int64(p.pages), 10)
	head = append(head, `,"results":[`...)
	// Streamed: the items are cached, a page of them is not copied again.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(head)
	for i := p.lo; i < p.hi; i++ {
		if i > p.lo {
			_, _ = w.Write(comma)
		}
		_, _ = w.Write(item(i))
	}
	_, _ = w.Write(pageEnd)
}

var comma, pageEnd = []byte(","), []byte("]}")

func appendLink(buf []byte, s *string) []byte {
	if s == nil {
		return append(buf, "null"...)
	}
	return append(buf, encode(*s)...)
}

// advance lets the world catch up with now: bots take up due
// notifications and races get resulted, in time order (take-ups before
// resultings at the same instant, then by notification id). Only the
// events due are touched, popped from the queue in that order.
func (s *Service) advance(now time.Time) {
	s.world.ensure(now)
	for len(s.due) > 0 && !s.due[0].at.After(now) {
		e := heap.Pop(&s.due).(event)
		switch {
		case e.settle:
			if !e.n.settled {
				s.settle(e.n, e.at)
			}
		case e.n.pendingTakeUp && e.n.takeUpAt.Equal(e.at):
			s.takeUp(e.n, e.at)
		}
	}
}
