package cli

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/betplan/betplan/engine"
)

// The log and the live line of several plans run together: every line
// names the plan it is about, or the account.

// planLogs writes the log lines of several plans to one writer, whole
// lines only, each starting with the name of the plan it is about.
type planLogs struct {
	mu    sync.Mutex
	w     io.Writer
	parts []*planLog
}

type planLog struct {
	logs   *planLogs
	prefix []byte
	buf    []byte
}

func (l *planLogs) plan(name string) io.Writer {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := &planLog{logs: l, prefix: []byte("[" + name + "] ")}
	l.parts = append(l.parts, p)
	return p
}

func (p *planLog) Write(b []byte) (int, error) {
	p.logs.mu.Lock()
	defer p.logs.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := append(append([]byte(nil), p.prefix...), p.buf[:i+1]...)
		if _, err := p.logs.w.Write(line); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}

// account is the writer of the lines about the account rather than one
// plan: the reads the plans share.
func (l *planLogs) account() io.Writer { return l.plan("account") }

// flush writes what is left of any unfinished line.
func (l *planLogs) flush() {
	for _, p := range l.parts {
		if len(p.buf) > 0 {
			p.Write([]byte("\n"))
		}
	}
}

// accountProgress merges the progress of several plans into the one live
// line of a terminal: the counts of every plan, the soonest next poll and
// jump, and the bet placed last, named with its plan.
type accountProgress struct {
	mu    sync.Mutex
	plans map[string]engine.Progress
	show  func(engine.Progress, liveAbout)
}

func newAccountProgress(show func(engine.Progress, liveAbout)) *accountProgress {
	return &accountProgress{plans: map[string]engine.Progress{}, show: show}
}

// plan is the Live hook of the plan named name.
func (a *accountProgress) plan(name string) func(engine.Progress) {
	return func(p engine.Progress) {
		a.mu.Lock()
		defer a.mu.Unlock()
		p = ownProgress(p)
		if lp := p.LastPlaced; lp != nil {
			lp.BetID = "[" + name + "] " + lp.BetID
		}
		a.plans[name] = p
		a.show(a.merged())
	}
}

// merged is every plan's progress as one, and the plans whose poll and
// jump come next. a.mu is held.
func (a *accountProgress) merged() (engine.Progress, liveAbout) {
	m := engine.Progress{ByStatus: map[engine.Status]int{}}
	about := liveAbout{plans: len(a.plans)}
	// soonest keeps the sooner of cur and t, and whose it is; ties go to
	// the plan first by name, so the line does not flicker between them.
	soonest := func(cur *time.Time, who *string, t time.Time, name string) {
		if t.IsZero() {
			return
		}
		if cur.IsZero() || t.Before(*cur) || (t.Equal(*cur) && name < *who) {
			*cur, *who = t, name
		}
	}
	for name, p := range a.plans {
		if p.Now.After(m.Now) {
			m.Now = p.Now
		}
		for s, n := range p.ByStatus {
			m.ByStatus[s] += n
		}
		soonest(&m.NextPoll, &about.poll, p.NextPoll, name)
		soonest(&m.NextRace, &about.race, p.NextRace, name)
		if lp := p.LastPlaced; lp != nil && (m.LastPlaced == nil || lp.At.After(m.LastPlaced.At)) {
			m.LastPlaced = lp
		}
	}
	return m, about
}
