package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state"
)

// Config is a serving process: its folder and how its plans load and run,
// its account's leadership, and how it speaks.
type Config struct {
	Dir    string
	Load   Loader
	Rescan time.Duration // the folder's re-read as a back-up (default 10s)

	Leaders  state.Leaders
	Account  string // the leadership's key: the service and the account on it
	Owner    state.LockOwner
	Instance string
	Takeover time.Duration

	// Run runs one version of a plan, served: the engine's run with its
	// options, and the reports written at its end.
	Run func(ctx context.Context, v *Version, mode *engine.ServeMode) (*engine.Result, error)
	// Unlock takes a plan's lock off the serving process holding it: one
	// that no longer leads (this one does), stopped or cut off. Its
	// writes are fenced off first.
	Unlock func(ctx context.Context, v *Version) error
	// Credentials are the service's, kept fresh while leading; nil: none
	// to watch.
	Credentials Credentials
	// Retry is the wait before a plan whose run could not start is tried
	// again (another run holds its lock, the state is out of reach):
	// default 30s.
	Retry time.Duration
	// Stop bounds how long SIGTERM waits for the runs to let go before
	// it cuts them off (default 6s: the process exits within 10).
	Stop time.Duration

	Logf func(format string, args ...any)
}

// Server serves a folder's plans under the account's leadership.
type Server struct {
	cfg     Config
	lead    *Leadership
	gate    *Gate
	metrics *Metrics
	creds   credentialWatch

	mu       sync.Mutex
	slots    map[string]*slot    // by plan name
	problems map[string]*Problem // by file
	term     *state.Term         // the term led, nil while standing by
	termCtx  context.Context     // the term's runs' context
	cancel   context.CancelFunc  // cuts the term's runs off
	runs     sync.WaitGroup      // the term's runners

	reload chan struct{}
	ticked atomic.Int64 // the main loop's last tick, unix nanoseconds
}

// slot is one plan of the folder, by name: the version its next run
// uses, the run under way, and what it last showed.
type slot struct {
	name string

	mu      sync.Mutex
	version *Version       // the latest valid version
	running *Version       // the version of the run under way, nil when none
	yield   chan struct{}  // closed to let the run under way go
	retired bool           // its file left the folder
	result  *engine.Result // the run's last result, as published or ended
	since   time.Time      // when the run under way began
	queue   []engine.Announcement
	runner  bool // a runner goroutine owns the slot
	note    string
}

// New makes the server; NewGate and the metrics come with it.
func New(cfg Config) *Server {
	if cfg.Rescan <= 0 {
		cfg.Rescan = 10 * time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = 30 * time.Second
	}
	if cfg.Stop <= 0 {
		cfg.Stop = 6 * time.Second
	}
	s := &Server{cfg: cfg, slots: map[string]*slot{}, problems: map[string]*Problem{}, reload: make(chan struct{}, 1)}
	s.lead = &Leadership{Leaders: cfg.Leaders, Account: cfg.Account, Owner: cfg.Owner, Instance: cfg.Instance,
		Timing: Timing{Takeover: cfg.Takeover}, Logf: cfg.Logf, Changed: s.leadershipChanged}
	s.metrics = NewMetrics(s.lead.Status, s.summary, s.invalidCount)
	s.gate = &Gate{Lead: s.lead, Metrics: s.metrics}
	s.creds = credentialWatch{s: s, c: cfg.Credentials}
	s.ticked.Store(time.Now().UnixNano())
	return s
}

// SetCredentials gives the server the credentials to keep fresh, once
// the service's client exists.
func (s *Server) SetCredentials(c Credentials) {
	s.creds.mu.Lock()
	defer s.creds.mu.Unlock()
	s.creds.c = c
}

// Gate is the server's gate, to wrap the service's transport with.
func (s *Server) Gate() *Gate { return s.gate }

// Metrics are the server's metrics.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Reload asks for the folder to be read again now (SIGHUP).
func (s *Server) Reload() {
	select {
	case s.reload <- struct{}{}:
	default:
	}
}

// Load reads the folder once: what Serve starts from. An error is a
// folder that cannot be read at all.
func (s *Server) Load() error {
	scan, err := s.cfg.Load()
	if err != nil {
		return err
	}
	s.apply(scan)
	return nil
}

// Serve runs until ctx ends: the leadership, the folder's watch, the
// runs while leading. As ctx ends (SIGTERM) no new create is sent, the
// runs let go within cfg.Stop, the leadership is resigned, and Serve
// returns.
func (s *Server) Serve(ctx context.Context) {
	lctx, stopLead := context.WithCancel(context.Background())
	defer stopLead()
	leadDone := make(chan struct{})
	go func() {
		defer close(leadDone)
		s.lead.Run(lctx, s.letGo)
	}()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go watch(wctx, s.cfg.Dir, s.cfg.Rescan, s.reload, s.cfg.Logf)

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			stopLead()
			<-leadDone
			return
		case <-s.reload:
			if scan, err := s.cfg.Load(); err != nil {
				s.cfg.Logf("reading %s: %v; the plans as last read keep running", s.cfg.Dir, err)
			} else {
				s.apply(scan)
			}
		case <-tick.C:
			s.ticked.Store(time.Now().UnixNano())
			s.creds.check(ctx)
		}
	}
}

// leadershipChanged starts the plans' runs when this process gains the
// account, and lets them go when it loses it.
func (s *Server) leadershipChanged(term, before state.Term) {
	if !term.Leading {
		s.letGo()
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	why := "start"
	if before.Instance != "" && before.Instance != s.cfg.Instance {
		why = fmt.Sprintf("take-over from %s (term %d)", before.Owner, before.Fence)
	}
	t := term
	s.term = &t
	s.termCtx, s.cancel = context.WithCancel(context.Background())
	for _, sl := range s.sortedSlots() {
		s.startRunner(sl, why)
	}
}

// letGo ends the term's runs: each lets go at its next step (no new
// create); those still under way after cfg.Stop are cut off.
func (s *Server) letGo() {
	s.mu.Lock()
	if s.term == nil {
		s.mu.Unlock()
		return
	}
	s.term = nil
	cancel := s.cancel
	for _, sl := range s.slots {
		sl.letGo()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.cfg.Stop):
		s.cfg.Logf("the plans' runs did not let go within %s: cut off (a create under way is journalled in doubt)", s.cfg.Stop)
		cancel()
		select {
		case <-done:
		case <-time.After(time.Second):
		}
	}
	cancel()
}

// leading is the term led now, nil while standing by.
func (s *Server) leading() *state.Term {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term
}

func (s *Server) sortedSlots() []*slot {
	out := make([]*slot, 0, len(s.slots))
	for _, sl := range s.slots {
		out = append(out, sl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// startRunner starts sl's runner under the term; s.mu is held.
func (s *Server) startRunner(sl *slot, why string) {
	sl.mu.Lock()
	if sl.runner || sl.version == nil {
		sl.mu.Unlock()
		return
	}
	sl.runner = true
	sl.mu.Unlock()
	term, ctx := *s.term, s.termCtx
	s.runs.Add(1)
	go func() {
		defer s.runs.Done()
		s.runner(ctx, sl, term, why)
	}()
}

// runner runs sl's plan, one run after the other, for as long as the
// term lasts: a reload lets the run go and starts the new version at
// once; a plan whose run cannot start is tried again after cfg.Retry.
func (s *Server) runner(ctx context.Context, sl *slot, term state.Term, why string) {
	defer func() {
		sl.mu.Lock()
		sl.runner, sl.running, sl.yield = false, nil, nil
		sl.mu.Unlock()
	}()
	fence := &state.LeaderFence{Account: s.cfg.Account, Fence: term.Fence}
	by := fmt.Sprintf("%s (instance %s)", s.cfg.Owner, s.cfg.Instance)
	for ctx.Err() == nil && s.leading() != nil {
		sl.mu.Lock()
		v, yield := sl.version, make(chan struct{})
		sl.running, sl.yield, sl.since = v, yield, time.Now()
		sl.mu.Unlock()
		mode := &engine.ServeMode{Fence: fence, Why: why, By: by, Yield: yield, Retired: sl.isRetired,
			Published: func(r *engine.Result) {
				sl.publish(r)
				s.metrics.observeSettled(r)
			},
			Announcements: sl.drain}
		res, err := s.cfg.Run(ctx, v, mode)
		if res != nil {
			sl.publish(res)
			s.metrics.observeSettled(res)
		}
		sl.mu.Lock()
		sl.running = nil
		retired, reloaded := sl.retired, sl.version != v
		sl.mu.Unlock()
		letGo := isClosed(yield)
		switch {
		case ctx.Err() != nil || s.leading() == nil:
			return
		case retired && err == nil && !letGo:
			// Removed, and what it created is final: nothing more to do.
			s.cfg.Logf("[%s] removed from the folder: every bet it created is final", sl.name)
			s.drop(sl)
			return
		case reloaded:
			why = "reload"
			continue
		case retired && letGo:
			continue
		}
		why = "restart"
		wait := time.Duration(0)
		var locked *state.LockedError
		switch {
		case errors.As(err, &locked) && locked.Owner.Command == s.cfg.Owner.Command && !sameProcess(locked.Owner, s.cfg.Owner) && s.cfg.Unlock != nil:
			// Only a leader runs plans: a serving process that holds a
			// plan's lock while this one leads was stopped or cut off.
			// Its writes are fenced off by the account's fence already.
			if uerr := s.cfg.Unlock(ctx, v); uerr != nil {
				sl.say(fmt.Sprintf("could not take the plan's lock over from %s: %v; tried again in %s", locked.Owner, uerr, s.cfg.Retry))
				wait = s.cfg.Retry
			} else {
				s.cfg.Logf("[%s] took the plan's lock over from %s, a serving process that no longer leads", sl.name, locked.Owner)
				why = "take-over of the plan's lock from " + locked.Owner.String()
				continue
			}
		case errors.As(err, &locked):
			// A run from cron, a stop or a cancel: it lets go in seconds,
			// and asking again costs one try of the lock.
			sl.say(fmt.Sprintf("another run holds the plan's lock (%s): tried again every %s", locked.Owner, lockRetry))
			wait = lockRetry
		case err != nil && !errors.Is(err, context.Canceled):
			sl.say(fmt.Sprintf("its run ended: %v; started again in %s", err, s.cfg.Retry))
			wait = s.cfg.Retry
		case res != nil && res.EndReason == engine.EndStopped:
			// betplan stop: nothing is created until it is resumed; the
			// mark is read again, as a cron run would.
			wait = s.cfg.Retry
		}
		if wait > 0 && !sleepOr(ctx, sl, wait) {
			continue
		}
	}
}

// lockRetry is how soon a plan whose lock another run holds is tried
// again.
const lockRetry = 5 * time.Second

// sleepOr waits d, or until the term ends or sl's version changes: true
// when the wait ran its course.
func sleepOr(ctx context.Context, sl *slot, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	sl.mu.Lock()
	v := sl.version
	sl.mu.Unlock()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-time.After(time.Second):
			sl.mu.Lock()
			changed := sl.version != v
			sl.mu.Unlock()
			if changed {
				return false
			}
		}
	}
}

// sameProcess reports whether two lock owners are one process.
func sameProcess(a, b state.LockOwner) bool { return a.PID == b.PID && a.Host == b.Host }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// drop forgets a removed plan whose bets are all final.
func (s *Server) drop(sl *slot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slots[sl.name] == sl {
		delete(s.slots, sl.name)
	}
}

func (sl *slot) isRetired() bool {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.retired
}

func (sl *slot) publish(r *engine.Result) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.result = r
}

// say keeps why the plan is not running, logged once per reason.
func (sl *slot) say(note string) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.note = note
}

func (sl *slot) drain() []engine.Announcement {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	q := sl.queue
	sl.queue = nil
	return q
}

func (sl *slot) announce(a engine.Announcement) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.queue = append(sl.queue, a)
}

// letGo lets the run under way go.
func (sl *slot) letGo() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.yield != nil && !isClosed(sl.yield) {
		close(sl.yield)
	}
}

// apply brings the folder's plans to scan: a new or changed plan runs its
// new version (its run let go and started again), an invalid one keeps
// running its last valid version, is reported and alerted once, and a
// removed one creates nothing more while what it created is followed.
func (s *Server) apply(scan Scan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byName := map[string]*Version{}
	files := map[string]bool{}
	for _, v := range scan.Versions {
		byName[v.Name] = v
		files[v.File] = true
	}
	bad := map[string]*Problem{}
	for _, p := range scan.Problems {
		bad[p.File] = p
		files[p.File] = true
	}
	leading := s.term != nil
	for _, v := range scan.Versions {
		sl, ok := s.slots[v.Name]
		if !ok {
			sl = &slot{name: v.Name, version: v}
			s.slots[v.Name] = sl
			s.cfg.Logf("[%s] serving %s (%s)", v.Name, v.File, v.Hash)
			s.metrics.reloaded(false)
			if leading {
				s.startRunner(sl, "new plan")
			}
			continue
		}
		sl.mu.Lock()
		changed, back := sl.version.Key != v.Key, sl.retired
		sl.version, sl.retired = v, false
		if (changed || back) && sl.yield != nil && !isClosed(sl.yield) {
			close(sl.yield) // the runner starts the new version
		}
		sl.mu.Unlock()
		if changed || back {
			s.cfg.Logf("[%s] reloaded %s (%s)", v.Name, v.File, v.Hash)
			s.metrics.reloaded(false)
		}
		if leading {
			s.startRunner(sl, "reload")
		}
	}
	for file, p := range bad {
		if old, ok := s.problems[file]; ok && old.Key == p.Key {
			continue
		}
		s.problems[file] = p
		s.metrics.reloaded(true)
		sl := s.slotOfFile(file)
		if sl == nil {
			s.cfg.Logf("%s is not a valid plan, and no valid version of it ran: nothing of it runs\n%s", file, p.Text)
			continue
		}
		s.cfg.Logf("[%s] %s is not a valid plan any more: its last valid version (%s) keeps running\n%s", sl.name, file, sl.version.Hash, p.Text)
		sl.announce(engine.Announcement{Key: "plan_invalid|" + p.Key, Event: plan.EventPlanInvalid, Message: notify.Message{
			Event: plan.EventPlanInvalid, Plan: sl.name, Status: "invalid", Time: time.Now().UTC().Format(time.RFC3339),
			Message: fmt.Sprintf("%s is not a valid plan: %s; its last valid version (%s) keeps running until the file is fixed", file, firstLine(p.Text), sl.version.Hash)}})
	}
	for file := range s.problems {
		if bad[file] == nil {
			delete(s.problems, file) // fixed, or gone
			if sl := s.slotOfFile(file); sl != nil {
				s.cfg.Logf("[%s] %s is valid again", sl.name, file)
			}
		}
	}
	for name, sl := range s.slots {
		sl.mu.Lock()
		gone := byName[name] == nil && bad[sl.version.File] == nil && !sl.retired
		if gone {
			sl.retired = true
		}
		sl.mu.Unlock()
		if gone {
			// Kept, standing by too: whoever leads follows what it
			// created to the end, then forgets it.
			s.cfg.Logf("[%s] %s left the folder: nothing more is created; what it created is followed to the end", name, sl.version.File)
			s.metrics.reloaded(false)
		}
	}
}

// slotOfFile is the plan whose last valid version is file's; s.mu is held.
func (s *Server) slotOfFile(file string) *slot {
	for _, sl := range s.sortedSlots() {
		if sl.version != nil && sl.version.File == file {
			return sl
		}
	}
	return nil
}

func (s *Server) invalidCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.problems)
}

// summary is the plans as /status shows them (status --format json's
// summary of a folder), with their results as they stand: nil while
// standing by.
func (s *Server) summary() (*reporters.Summary, []*engine.Result) {
	s.mu.Lock()
	term := s.term
	slots := s.sortedSlots()
	s.mu.Unlock()
	if term == nil {
		return nil, nil
	}
	var results []*engine.Result
	for _, sl := range slots {
		sl.mu.Lock()
		r, running, file, since := sl.result, sl.running != nil, "", sl.since
		if sl.version != nil {
			file = sl.version.File
		}
		sl.mu.Unlock()
		if r == nil {
			continue
		}
		c := *r
		c.Kind = engine.KindStatus
		if running {
			o := s.cfg.Owner
			o.PlanFile, o.Since = file, since.UTC()
			c.Running = &o
		}
		results = append(results, &c)
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].PlanFile < results[j].PlanFile })
	return reporters.NewSummary(results), results
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// digest names a value in an alert's key without showing it.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
