package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// liveTerminal keeps one progress line at the bottom of a terminal; event
// lines print above it. The engine hands it a Progress once a tick
// (poll.interval, often 30 s); in between, the line is redrawn every
// second with its countdowns worked out afresh from now.
//
// now is the engine's clock, so the countdowns count what the engine
// waits for: wall time on a real run; on a rehearsal (--sim) the simulated
// clock, which jumps from tick to tick, so a redraw there shows the
// simulated world's now rather than wall time moving the countdowns.
type liveTerminal struct {
	mu    sync.Mutex
	w     io.Writer
	width int                    // the terminal's columns; the line is cut to fit (0: not cut)
	loc   *time.Location         // where times are shown; nil is the local zone
	shown func() reporters.Clock // how, when set: the command's zone, and whether its clock is simulated
	now   func() time.Time       // the engine's clock
	p     *engine.Progress       // the last progress; nil before the first and after clear
	about liveAbout              // which plans p is about, when it merges several
	last  string                 // the line as drawn; "" when none
	// paused stops the line while the user is asked something: a redraw
	// would draw over the question (pause, resume). The event lines of
	// the wait (other plans' polls) are held until the answer.
	paused bool
	held   [][]byte
	stop   chan struct{} // closed by clear to end the redraws
	done   chan struct{} // closed when the redraws have ended
	// ticked, when set, is called once a tick's redraw is done: a test
	// waits on it instead of on the scheduler.
	ticked func()
	// retry is what the client retries while the service fails (an
	// episode of the retry log), shown after the counts; "" when none.
	retry string
}

// newLiveTerminal starts a live line on w that redraws every second.
func newLiveTerminal(w io.Writer, width int, now func() time.Time, shown func() reporters.Clock) *liveTerminal {
	t := time.NewTicker(time.Second)
	return startLive(&liveTerminal{w: w, width: width, now: now, shown: shown}, t.C, t.Stop)
}

// startLive redraws l's line at every tick until clear; release is called
// when it stops.
func startLive(l *liveTerminal, ticks <-chan time.Time, release func()) *liveTerminal {
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(l.done)
		defer release()
		for {
			select {
			case <-l.stop:
				return
			case <-ticks:
				l.mu.Lock()
				if l.p != nil && !l.paused {
					l.draw(l.line(*l.p, l.now()))
				}
				l.mu.Unlock()
				if l.ticked != nil {
					l.ticked()
				}
			}
		}
	}()
	return l
}

// Write prints an event line above the progress line.
func (l *liveTerminal) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.paused {
		l.held = append(l.held, append([]byte(nil), b...))
		return len(b), nil
	}
	fmt.Fprintf(l.w, "\r\033[K%s", b)
	if l.last != "" {
		fmt.Fprint(l.w, l.last)
	}
	return len(b), nil
}

// liveAbout names the plans a line merging several plans' progress is
// about: how many, and whose poll and whose jump come next.
type liveAbout struct {
	plans      int
	poll, race string
}

// ownProgress is p with copies of its own of what the engine goes on
// changing with its instances: what a live line keeps to show.
func ownProgress(p engine.Progress) engine.Progress {
	byStatus := make(map[engine.Status]int, len(p.ByStatus))
	for s, n := range p.ByStatus {
		byStatus[s] = n
	}
	p.ByStatus = byStatus
	if lp := p.LastPlaced; lp != nil {
		c := *lp
		c.By = append([]string(nil), lp.By...)
		c.Refused = append([]string(nil), lp.Refused...)
		p.LastPlaced = &c
	}
	return p
}

// progress is the engine's tick: the line is drawn from p at once, and
// redrawn from it until the next.
func (l *liveTerminal) progress(p engine.Progress) { l.progressAbout(p, liveAbout{}) }

// progressAbout is progress of several plans' progress merged in p.
func (l *liveTerminal) progressAbout(p engine.Progress, about liveAbout) {
	p = ownProgress(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p, l.about = &p, about
	if !l.paused {
		l.draw(l.line(p, p.Now))
	}
}

// retrying shows what the client retries while the service fails, in
// the line rather than as lines above it; "" when the service answers
// again.
func (l *liveTerminal) retrying(note string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retry = note
	switch {
	case l.paused:
	case l.p != nil:
		l.draw(l.line(*l.p, l.now()))
	case note != "":
		l.draw([]string{l.clock().Time(l.now()), note})
	default:
		l.erase()
	}
}

// erase takes the line off the terminal, if one is drawn (l.mu held).
func (l *liveTerminal) erase() {
	if l.last != "" {
		fmt.Fprint(l.w, "\r\033[K")
		l.last = ""
	}
}

// pause removes the line and keeps it away until resume, so a question
// asked on the terminal (run's confirmation) is seen whole and stays.
func (l *liveTerminal) pause() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = true
	l.erase()
}

// resume draws the line again after pause.
func (l *liveTerminal) resume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.paused = false
	for _, b := range l.held {
		fmt.Fprintf(l.w, "\r\033[K%s", b)
	}
	l.held = nil
	if l.p != nil {
		l.draw(l.line(*l.p, l.now()))
	}
}

// asking wraps a question put to the user so the line is paused while it
// waits for the answer.
func (l *liveTerminal) asking(ask func(string) (bool, error)) func(string) (bool, error) {
	if ask == nil {
		return nil
	}
	return func(summary string) (bool, error) {
		l.pause()
		defer l.resume()
		return ask(summary)
	}
}

// draw shows the line's parts that fit the terminal: a line wider than
// the terminal wraps, and \r would then redraw only its last part. Parts
// that do not fit are left out whole, the least important (the last)
// first; a first part too wide for the terminal is cut.
func (l *liveTerminal) draw(parts []string) {
	line := strings.Join(parts, "  ")
	for l.width > 0 && len(parts) > 1 && utf8.RuneCountInString(line) >= l.width {
		parts = parts[:len(parts)-1]
		line = strings.Join(parts, "  ")
	}
	if l.width > 0 && utf8.RuneCountInString(line) >= l.width {
		line = string([]rune(line)[:l.width-1])
	}
	l.last = line
	fmt.Fprintf(l.w, "\r\033[K%s", line)
}

// line is the progress line for p at now, in parts from the most to the
// least important: the time and counts by status, the time to the next
// poll and to the next jump (the next open bet's race start), and the bet
// placed last.
func (l *liveTerminal) line(p engine.Progress, now time.Time) []string {
	clock := l.clock()
	var parts []string
	for _, s := range engine.Statuses() {
		if n := p.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.Words()))
		}
	}
	counts := strings.Join(parts, ", ")
	if l.about.plans > 1 {
		counts = fmt.Sprintf("%d plans: %s", l.about.plans, counts)
	}
	whose := func(name string) string {
		if name == "" {
			return ""
		}
		return " (" + name + ")"
	}
	line := []string{fmt.Sprintf("%s  %s", clock.Time(now), counts)}
	if l.retry != "" {
		line = append(line, l.retry)
	}
	if !p.NextPoll.IsZero() {
		line = append(line, "next poll "+countdown(p.NextPoll.Sub(now))+whose(l.about.poll))
	}
	if !p.NextRace.IsZero() {
		line = append(line, "next jump "+countdown(p.NextRace.Sub(now))+whose(l.about.race))
	}
	if lp := p.LastPlaced; lp != nil {
		placed := fmt.Sprintf("last placed %s %s", lp.BetID, clock.Time(lp.At))
		if len(lp.By) > 0 {
			placed += " by " + strings.Join(lp.By, ", ")
		}
		if len(lp.Refused) > 0 {
			placed += "; refused by " + strings.Join(lp.Refused, "; ")
		}
		line = append(line, placed)
	}
	return line
}

// clock is how the line shows times: the command's, else the machine's
// zone.
func (l *liveTerminal) clock() reporters.Clock {
	if l.shown != nil {
		return l.shown()
	}
	clock := reporters.Clock{Zone: l.loc}
	if clock.Zone == nil {
		clock.Zone = time.Local
	}
	return clock
}

// countdown says how long until something: "in 12s", "in 3m04s",
// "in 2h05m", or "now" once it is due.
func countdown(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 1:
		return "now"
	case s < 60:
		return fmt.Sprintf("in %ds", s)
	case s < 3600:
		return fmt.Sprintf("in %dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("in %dh%02dm", s/3600, s/60%60)
	}
}

// clear ends the redraws (waiting for a redraw under way) and removes the
// line; nothing is written to the terminal after it but event lines.
func (l *liveTerminal) clear() {
	if l.stop != nil {
		close(l.stop)
		<-l.done
		l.stop = nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.p, l.last, l.about, l.retry = nil, "", liveAbout{}, ""
	fmt.Fprint(l.w, "\r\033[K")
	for _, b := range l.held {
		fmt.Fprintf(l.w, "%s", b)
	}
	l.held, l.paused = nil, false
}
