package cli

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// frozenService tells l of what a client meets while the service is frozen
// for d, on the clock at now: calls one after another, each repeated at
// the client's backoff (0.2s doubling to 10s) until its 11th attempt fails
// and it gives up, the next call starting at once (about eleven retries a
// minute); then the service answers again.
func frozenService(l *retryLog, log io.Writer, now *time.Time, d time.Duration) int {
	start := *now
	hook := l.hook(log)
	retries := 0
	for *now = start; now.Sub(start) < d; {
		wait := 200 * time.Millisecond
		for attempt := 1; attempt <= 11 && now.Sub(start) < d; attempt++ {
			*now = now.Add(time.Second) // the attempt fails
			if attempt == 11 {
				break // the call gives up: no retry to tell
			}
			hook(apiclient.Retry{Method: "GET", Path: "/notification/", Attempt: attempt, Reason: "503 Service Unavailable", Wait: wait})
			retries++
			*now = now.Add(wait)
			wait = min(2*wait, 10*time.Second)
		}
	}
	l.recovered(apiclient.Recovery{Method: "GET", Path: "/competition/namecodes/", Failed: retries + 5, Since: start})
	return retries
}

// A service frozen for two minutes is two lines in a log (it began: what,
// why, the next try; it ended), not eleven a minute; a long outage adds a
// reminder every five minutes, never more than a line a minute.
func TestRetryLogSaysAnEpisodeNotEveryAttempt(t *testing.T) {
	start := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	now := start
	stamp := func() string { return now.Format("15:04:05") }
	var log bytes.Buffer
	l := newRetryLog(func() time.Time { return now }, stamp)
	retries := frozenService(l, &log, &now, 2*time.Minute)
	if retries < 20 {
		t.Fatalf("the frozen service gave %d retries, want over ten a minute", retries)
	}
	want := "03:00:01 GET /notification/: 503 Service Unavailable; retrying until the service answers, next try in 200ms\n" +
		now.Format("15:04:05") + " the service answers again (GET /competition/namecodes/), after " + now.Sub(start.Add(time.Second)).String() + " and " + strconv.Itoa(retries+5) + " failed attempts\n"
	if got := log.String(); got != want {
		t.Errorf("log of a 2-minute freeze\n got %q\nwant %q", got, want)
	}

	// Twenty minutes: the episode's lines, and a reminder every 5 minutes.
	log.Reset()
	frozenService(l, &log, &now, 20*time.Minute)
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 2+3 {
		t.Errorf("log of a 20-minute freeze: %d lines, want 5:\n%s", len(lines), log.String())
	}
	for _, reminder := range lines[1:4] {
		if !strings.Contains(reminder, " still retrying: GET /notification/: 503 Service Unavailable; ") {
			t.Errorf("reminder %q", reminder)
		}
	}
	if !strings.Contains(lines[1], "attempts failed over 5m") {
		t.Errorf("the first reminder says how long: %q", lines[1])
	}
	var last time.Time
	for i, line := range lines[:4] {
		at, err := time.Parse("15:04:05", line[:8])
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && at.Sub(last) < time.Minute {
			t.Errorf("%q came %s after the line before it", line, at.Sub(last))
		}
		last = at
	}
}

// On a terminal the attempts show in the one live line, not as lines or
// reminders: the episode's two lines print above it, and the line forgets
// the retries once the service answers.
func TestRetryLogOnATerminalIsTheLiveLine(t *testing.T) {
	now := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	var term bytes.Buffer
	live := &liveTerminal{w: &term, loc: time.UTC, now: func() time.Time { return now }}
	live.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusPlaced: 1}})
	l := newRetryLog(func() time.Time { return now }, func() string { return now.Format("15:04:05") })
	l.onTerminal(live.retrying)
	frozenService(l, live, &now, 20*time.Minute)
	out := term.String()
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("%d lines above the live line, want 2 (began, ended):\n%q", n, out)
	}
	if !strings.Contains(out, "1 placed  retrying GET /notification/: 503 Service Unavailable (attempt 5, next try in 1.6s)") {
		t.Errorf("the live line does not show the attempts:\n%q", out)
	}
	if strings.Contains(out, "still retrying") {
		t.Errorf("a reminder on a terminal:\n%q", out)
	}
	if !strings.HasSuffix(out, " UTC  1 placed") || strings.HasSuffix(out, "\n") {
		t.Errorf("the live line keeps the retries after the service answered:\n%q", out[max(0, len(out)-200):])
	}
}

// A rehearsal's live line is on its simulated clock: the attempts show
// there without the real seconds to the next, which the episode's lines
// above it give on the wall clock, saying so.
func TestRetryLogOnARehearsalsLiveLineIsOneClock(t *testing.T) {
	now := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	var term bytes.Buffer
	sim := func() reporters.Clock { return reporters.Clock{Zone: time.UTC, Sim: true} }
	live := &liveTerminal{w: &term, shown: sim, now: func() time.Time { return now }}
	live.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusPlaced: 1}})
	wall := reporters.Clock{Zone: time.UTC, Real: true}
	l := newRetryLog(func() time.Time { return now }, func() string { return wall.Stamp(now) })
	l.rehearsal = func() bool { return true }
	l.onTerminal(live.retrying)
	frozenService(l, live, &now, 2*time.Minute)
	out := term.String()
	if !strings.Contains(out, "UTC sim time  1 placed  retrying GET /notification/: 503 Service Unavailable (attempt 5)") {
		t.Errorf("the live line does not show the attempts:\n%q", out)
	}
	if strings.Contains(out, "sim time  1 placed  retrying GET /notification/: 503 Service Unavailable (attempt 5, next try") {
		t.Errorf("the live line gives real seconds beside its simulated time:\n%q", out)
	}
	if !strings.Contains(out, "UTC real time GET /notification/: 503 Service Unavailable; retrying until the service answers, next try in 200ms\n") {
		t.Errorf("the episode's first line is not on the wall clock:\n%q", out)
	}
}
