package apiclient

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Recovery is the service answering again after attempts the client was
// about to repeat had failed (see OnRecovered): the end of an outage, as
// the client saw it.
type Recovery struct {
	Method, Path string // the call the service answered
	// Failed counts the failed attempts since the first of them, over
	// every call; Since is when that first one began.
	Failed int
	Since  time.Time
}

// outage is the failed attempts the client repeated (or would have) since
// the service last answered: one stretch, whichever calls met it.
type outage struct {
	open     atomic.Bool // a fast look for every answer
	mu       sync.Mutex
	attempts int
	since    time.Time
	told     atomic.Pointer[func(Recovery)]
}

// OnRecovered sets f to be told, once per outage, when the service
// answers again (any answer but a 429 or a 5xx) after attempts the
// client was about to repeat had failed, so a caller that said an outage
// began can say it ended. f may be called from several goroutines; nil
// stops the calls.
func (c *Client) OnRecovered(f func(Recovery)) {
	if f == nil {
		c.outage.told.Store(nil)
		return
	}
	c.outage.told.Store(&f)
}

// failed notes an attempt that began at start and failed in a way the
// client repeats.
func (o *outage) failed(start time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.attempts == 0 {
		o.since = start
	}
	o.attempts++
	o.open.Store(true)
}

// answered notes an answer of the service to method path: an outage open
// ends, and OnRecovered is told.
func (o *outage) answered(method, path string, status int) {
	if !o.open.Load() || status == http.StatusTooManyRequests || status >= 500 {
		return
	}
	o.mu.Lock()
	r := Recovery{Method: method, Path: path, Failed: o.attempts, Since: o.since}
	ended := o.attempts > 0
	o.attempts, o.since = 0, time.Time{}
	o.open.Store(false)
	o.mu.Unlock()
	if f := o.told.Load(); ended && f != nil {
		(*f)(r)
	}
}
