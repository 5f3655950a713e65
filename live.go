package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/engine"
)

// liveTerminal keeps one progress line at the bottom of a terminal; event
// lines print above it.
type liveTerminal struct {
	mu   sync.Mutex
	w    io.Writer
	last string
}

// Write prints an event line above the progress line.
func (l *liveTerminal) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "\r\033[K%s", b)
	if l.last != "" {
		fmt.Fprint(l.w, l.last)
	}
	return len(b), nil
}

func (l *liveTerminal) progress(p engine.Progress) {
	var parts []string
	for _, s := range engine.Statuses() {
		if n := p.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	line := fmt.Sprintf("%s  %s", p.Now.Format("15:04:05"), strings.Join(parts, ", "))
	if !p.NextRace.IsZero() {
		line += fmt.Sprintf("  next race in %s", p.NextRace.Sub(p.Now).Round(time.Second))
	}
	if lp := p.LastPlaced; lp != nil {
		line += fmt.Sprintf("  last placed %s %s", lp.BetID, lp.At.In(p.Now.Location()).Format("15:04:05"))
		if len(lp.By) > 0 {
			line += " by " + strings.Join(lp.By, ", ")
		}
	}
	if !p.NextPoll.IsZero() {
		line += fmt.Sprintf("  next poll %s", p.NextPoll.Format("15:04:05"))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = line
	fmt.Fprintf(l.w, "\r\033[K%s", line)
}

func (l *liveTerminal) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = ""
	fmt.Fprint(l.w, "\r\033[K")
}
