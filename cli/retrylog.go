package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// retryLog says how a command rides out the service's failures, one
// episode at a time, in the form of the engine's own lines: a line when
// the client first repeats a call (what failed, why, when the next try
// goes), a line when the service answers again; in between, in a log, a
// reminder at most every retryReminder, and on a terminal the live line
// showing the attempts instead. A frozen service is a few lines, not one
// per attempt. One retryLog serves a connection: the episode is the
// service's, whichever plan's call met it.
type retryLog struct {
	// now is the wall clock the client's retries wait on; stamp is its
	// time now, as the lines show it: the episode's seconds and its
	// lines' times are one clock (a rehearsal's lines say "real time").
	now   func() time.Time
	stamp func() string
	// rehearsal, when set and true, says the live line is on a
	// rehearsal's simulated clock: it shows the attempts without the
	// real seconds to the next.
	rehearsal func() bool

	mu       sync.Mutex
	open     bool
	since    time.Time // the episode's first failed attempt
	attempts int       // failed attempts told of in the episode
	w        io.Writer // where the episode's lines go: the log of the call that began it
	said     time.Time // the episode's last line
	// live shows the episode on a terminal's live line ("" clears it);
	// nil when the lines go to a log.
	live func(string)
}

// retryReminder is how often a long episode is said again in a log: far
// less than once a minute, and its own lines are never more.
const retryReminder = 5 * time.Minute

func newRetryLog(now func() time.Time, stamp func() string) *retryLog {
	return &retryLog{now: now, stamp: stamp}
}

// to has the client tell l of its retries, their lines going to log (nil:
// no lines), and of the service answering again.
func (l *retryLog) to(c *apiclient.Client, log io.Writer) {
	c.OnRecovered(l.recovered)
	if log == nil {
		c.OnRetry(nil)
		return
	}
	c.OnRetry(l.hook(log))
}

// onTerminal shows the episode's attempts on a terminal's live line
// rather than as reminders.
func (l *retryLog) onTerminal(live func(string)) {
	l.mu.Lock()
	l.live = live
	l.mu.Unlock()
}

// hook is the retry hook of the calls whose lines go to log: one plan's
// when several share the client.
func (l *retryLog) hook(log io.Writer) func(apiclient.Retry) {
	return func(r apiclient.Retry) { l.retry(log, r) }
}

func (l *retryLog) retry(log io.Writer, r apiclient.Retry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.attempts++
	what := fmt.Sprintf("%s %s: %s", r.Method, r.Path, r.Reason)
	if !l.open {
		l.open, l.since, l.attempts, l.w, l.said = true, now, 1, log, now
		l.line("%s; retrying until the service answers, next try %s", what, r.NextTry())
	} else if l.live == nil && now.Sub(l.said) >= retryReminder {
		l.said = now
		l.line("still retrying: %s; %d attempts failed over %s, next try %s", what, l.attempts, now.Sub(l.since).Round(time.Second), r.NextTry())
	}
	if l.live != nil {
		if l.rehearsal != nil && l.rehearsal() {
			l.live(fmt.Sprintf("retrying %s (attempt %d)", what, r.Attempt+1))
		} else {
			l.live(fmt.Sprintf("retrying %s (attempt %d, next try %s)", what, r.Attempt+1, r.NextTry()))
		}
	}
}

// recovered ends the episode: the service answered again.
func (l *retryLog) recovered(r apiclient.Recovery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.open {
		return
	}
	l.open = false
	took := l.now().Sub(l.since).Round(100 * time.Millisecond)
	attempts := "attempts"
	if r.Failed == 1 {
		attempts = "attempt"
	}
	l.line("the service answers again (%s %s), after %s and %d failed %s", r.Method, r.Path, took, r.Failed, attempts)
	if l.live != nil {
		l.live("")
	}
}

// line writes one line of the episode, stamped. l.mu is held.
func (l *retryLog) line(format string, args ...any) {
	fmt.Fprintf(l.w, "%s %s\n", l.stamp(), fmt.Sprintf(format, args...))
}
