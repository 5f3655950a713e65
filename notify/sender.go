package notify

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Delivery is one alert for one target.
type Delivery struct {
	Key     string // the alert's key: one event of one bet, or one run's end
	Target  Target
	Message *Message
	// Attempts counts the attempts earlier runs made.
	Attempts int
}

// Undelivered is a delivery that did not reach its target (yet).
type Undelivered struct {
	Delivery *Delivery
	Outcome  Outcome // NotDelivered (tried again by the next run), Unknown or Refused
	Err      string
	Attempts int
	GaveUp   bool // MaxAttempts were made: not tried again
}

// Sender delivers alerts in the background, each on its own, retrying
// what was certainly not delivered with backoff until it is closed. It
// never sends an alert again after an attempt whose outcome is unknown.
type Sender struct {
	Client *http.Client
	// MaxAttempts bounds the attempts of one delivery across runs
	// (default 8).
	MaxAttempts int
	// Backoff is the wait after failed attempt n (default 1s doubling,
	// up to a minute).
	Backoff func(n int) time.Duration
	// Attempting is called before every attempt and makes it durable:
	// after a crash, an attempt without an outcome is not made again. An
	// error stops the delivery.
	Attempting func(d *Delivery, attempt int) error
	// Finished is told the outcome of every attempt, and of a delivery
	// given up.
	Finished func(d *Delivery, attempt int, o Outcome, err error, gaveUp bool)

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	lanes  map[string]*lane
	// draining is closed by Close: from then on each delivery gets one
	// more attempt, without waiting out its backoff.
	draining chan struct{}
	mu       sync.Mutex
	open     map[*Delivery]*Undelivered
	order    []*Delivery
	closed   bool
}

func (s *Sender) init() {
	s.once.Do(func() {
		s.ctx, s.cancel = context.WithCancel(context.Background())
		s.lanes = map[string]*lane{}
		s.draining = make(chan struct{})
		s.open = map[*Delivery]*Undelivered{}
		if s.MaxAttempts <= 0 {
			s.MaxAttempts = 8
		}
		if s.Backoff == nil {
			s.Backoff = func(n int) time.Duration {
				d := time.Second << min(n-1, 6)
				return min(d, time.Minute)
			}
		}
	})
}

// Start delivers d in the background, after what was started before it
// for the same target: a target hears a bet's events in order.
func (s *Sender) Start(d *Delivery) {
	s.init()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open[d] = &Undelivered{Delivery: d, Outcome: NotDelivered, Err: "not sent before the run ended", Attempts: d.Attempts}
	s.order = append(s.order, d)
	if s.closed {
		return
	}
	id := d.Target.ID()
	l := s.lanes[id]
	if l == nil {
		l = &lane{}
		s.lanes[id] = l
	}
	l.queue = append(l.queue, d)
	if !l.running {
		l.running = true
		s.wg.Add(1)
		go s.run(l)
	}
}

// lane is one target's deliveries, made one at a time in order.
type lane struct {
	queue   []*Delivery
	running bool
}

func (s *Sender) run(l *lane) {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		if len(l.queue) == 0 || s.ctx.Err() != nil {
			l.running = false
			s.mu.Unlock()
			return
		}
		d := l.queue[0]
		l.queue = l.queue[1:]
		s.mu.Unlock()
		s.deliver(d)
	}
}

func (s *Sender) deliver(d *Delivery) {
	last := false
	for attempt := d.Attempts + 1; ; attempt++ {
		select {
		case <-s.draining:
			last = true
		default:
		}
		if attempt > s.MaxAttempts {
			s.settle(d, attempt-1, NotDelivered, nil, true)
			return
		}
		if s.ctx.Err() != nil {
			return
		}
		if s.Attempting != nil {
			if err := s.Attempting(d, attempt); err != nil {
				s.note(d, attempt-1, NotDelivered, err)
				return
			}
		}
		o, err := Send(s.ctx, s.Client, d.Target, d.Message)
		if o == Delivered {
			s.mu.Lock()
			delete(s.open, d)
			s.mu.Unlock()
			if s.Finished != nil {
				s.Finished(d, attempt, o, nil, false)
			}
			return
		}
		s.note(d, attempt, o, err)
		if s.Finished != nil {
			s.Finished(d, attempt, o, err, false)
		}
		if o == Unknown || o == Refused || last {
			return
		}
		select {
		case <-time.After(s.Backoff(attempt)):
		case <-s.draining:
		case <-s.ctx.Done():
			return
		}
	}
}

func (s *Sender) note(d *Delivery, attempts int, o Outcome, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.open[d]
	u.Outcome, u.Attempts = o, attempts
	if err != nil {
		u.Err = err.Error()
	}
}

func (s *Sender) settle(d *Delivery, attempts int, o Outcome, err error, gaveUp bool) {
	s.note(d, attempts, o, err)
	s.mu.Lock()
	s.open[d].GaveUp = gaveUp
	s.mu.Unlock()
	if s.Finished != nil {
		s.Finished(d, attempts, o, err, gaveUp)
	}
}

// Close gives every delivery not made yet one more attempt at once (no
// more backoff), waits up to within for them, then stops the rest (an
// attempt cut short has an unknown outcome), and returns what was not
// delivered, in the order it was started. The next run tries again what
// was certainly not delivered.
func (s *Sender) Close(within time.Duration) []Undelivered {
	s.init()
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.draining)
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.cancel()
		<-done
	}
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Undelivered
	for _, d := range s.order {
		if u, ok := s.open[d]; ok {
			out = append(out, *u)
		}
	}
	return out
}
