package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

var aedt = time.FixedZone("AEDT", 11*3600)

func TestLiveTerminalKeepsProgressBelowEvents(t *testing.T) {
	var buf bytes.Buffer
	l := &liveTerminal{w: &buf, loc: aedt}
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, aedt)
	l.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusWaiting: 3, engine.StatusSettled: 1},
		NextRace: now.Add(90 * time.Second), NextPoll: now.Add(30 * time.Second)})
	fmt.Fprintf(l, "created flem4-no3\n")
	l.clear()

	out := buf.String()
	progress := "14:00:00 AEDT  3 waiting, 1 settled  next poll in 30s  next jump in 1m30s"
	want := "\r\033[K" + progress + // the live line
		"\r\033[Kcreated flem4-no3\n" + progress + // an event above it, the line redrawn
		"\r\033[K" // cleared at the end
	if out != want {
		t.Errorf("terminal output\n got %q\nwant %q", out, want)
	}
	if strings.Count(out, "created flem4-no3") != 1 {
		t.Errorf("the event line is printed once")
	}
}

func TestLiveLineSaysWhenAndByWhomTheLastBetWasPlaced(t *testing.T) {
	var buf bytes.Buffer
	l := &liveTerminal{w: &buf, loc: aedt}
	now := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC) // shown in the terminal's zone
	l.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusPlaced: 2},
		LastPlaced: &engine.PlacedBet{BetID: "box1@the-meadows-r5", At: now.Add(-27 * time.Second), By: []string{"Main Sportsbet", "TAB spare"}}})
	want := "\r\033[K14:00:00 AEDT  2 placed  last placed box1@the-meadows-r5 13:59:33 AEDT by Main Sportsbet, TAB spare"
	if got := buf.String(); got != want {
		t.Errorf("live line\n got %q\nwant %q", got, want)
	}
}

func TestLiveLineNamesWhoRefusedTheLastBetPlaced(t *testing.T) {
	var buf bytes.Buffer
	l := &liveTerminal{w: &buf, loc: aedt}
	now := time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)
	l.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusPlaced: 1},
		LastPlaced: &engine.PlacedBet{BetID: "big", At: now.Add(-5 * time.Second), By: []string{"Main Sportsbet"},
			Refused: []string{"Ladbrokes 2: The minimum stake is $1."}}})
	want := "\r\033[K14:00:00 AEDT  1 placed  last placed big 13:59:55 AEDT by Main Sportsbet; refused by Ladbrokes 2: The minimum stake is $1."
	if got := buf.String(); got != want {
		t.Errorf("live line\n got %q\nwant %q", got, want)
	}
}

// syncBuffer is a terminal written from the redraw goroutine and read by
// the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Between the engine's ticks the line counts down, second by second, from
// the clock it is given; after clear nothing more is drawn.
func TestLiveLineCountsDownBetweenTicks(t *testing.T) {
	var term syncBuffer
	start := time.Date(2026, 11, 21, 14, 0, 0, 0, aedt)
	// The clock moves a second at each read: only redraws read it.
	var mu sync.Mutex
	now := start
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	ticks := make(chan time.Time)
	released := false
	// Each tick is sent and its redraw waited for, so a tick is never
	// still being drawn when the test goes on.
	handled := make(chan struct{})
	l := startLive(&liveTerminal{w: &term, loc: aedt, now: clock, ticked: func() { handled <- struct{}{} }}, ticks, func() { released = true })
	tick := func() {
		ticks <- time.Time{}
		<-handled
	}

	tick() // before any progress: nothing to draw, the clock not read
	l.progress(engine.Progress{Now: start, ByStatus: map[engine.Status]int{engine.StatusCreated: 2},
		NextPoll: start.Add(30 * time.Second), NextRace: start.Add(3*time.Minute + 6*time.Second)})
	for i := 0; i < 3; i++ {
		tick()
	}
	l.clear()
	if !released {
		t.Error("the ticker is not released by clear")
	}
	cleared := term.String()
	select {
	case ticks <- time.Time{}:
		t.Error("a tick is still read after clear")
	default:
	}
	if term.String() != cleared {
		t.Error("written after clear")
	}

	var lines []string
	for _, s := range strings.Split(term.String(), "\r\033[K") {
		if s != "" {
			lines = append(lines, s)
		}
	}
	want := []string{
		"14:00:00 AEDT  2 created  next poll in 30s  next jump in 3m06s",
		"14:00:01 AEDT  2 created  next poll in 29s  next jump in 3m05s",
		"14:00:02 AEDT  2 created  next poll in 28s  next jump in 3m04s",
		"14:00:03 AEDT  2 created  next poll in 27s  next jump in 3m03s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("terminal lines\n got %q\nwant %q", lines, want)
	}
	if !strings.HasSuffix(term.String(), "\r\033[K") {
		t.Errorf("the terminal does not end cleared: %q", term.String())
	}
}

func TestLiveLineFitsTheTerminal(t *testing.T) {
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, aedt)
	p := engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusWaiting: 3}, NextPoll: now.Add(time.Minute), NextRace: now.Add(3 * time.Minute)}
	for _, tt := range []struct {
		width int
		want  string
	}{
		// What does not fit is left out whole, the least important first.
		{80, "14:00:00 AEDT  3 waiting  next poll in 1m00s  next jump in 3m00s"},
		{60, "14:00:00 AEDT  3 waiting  next poll in 1m00s"},
		{40, "14:00:00 AEDT  3 waiting"},
		// Only a first part wider than the terminal is cut.
		{20, "14:00:00 AEDT  3 wa"},
	} {
		var buf bytes.Buffer
		l := &liveTerminal{w: &buf, loc: aedt, width: tt.width}
		l.progress(p)
		if got, want := buf.String(), "\r\033[K"+tt.want; got != want {
			t.Errorf("live line at %d columns\n got %q\nwant %q", tt.width, got, want)
		}
	}
}

func TestCountdown(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "now"},
		{999 * time.Millisecond, "now"},
		{12*time.Second + 400*time.Millisecond, "in 12s"},
		{3*time.Minute + 4*time.Second, "in 3m04s"},
		{2*time.Hour + 5*time.Minute + 59*time.Second, "in 2h05m"},
	} {
		if got := countdown(tt.d); got != tt.want {
			t.Errorf("countdown(%s) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// A rehearsal on a terminal draws the live line on stderr, clears it
// before the report, and NO_COLOR still leaves colour out.
func TestRunOnATerminalDrawsTheLiveLine(t *testing.T) {
	sys, s := testIO(map[string]string{"NO_COLOR": "1"})
	sys.IsTTY, sys.Width = true, 200
	stdout, stderr := s.Stdout, s.Stderr
	args := []string{"run", "--sim", "--yes", "--no-wait", "--state-dir", t.TempDir(), "examples/single-race.yaml"}
	if code := execute(context.Background(), args, sys); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "\r\033[K") || !strings.Contains(stderr.String(), "next poll ") {
		t.Errorf("no live line on the terminal:\n%q", stderr)
	}
	if strings.Contains(strings.ReplaceAll(stderr.String()+stdout.String(), "\033[K", ""), "\x1b[") {
		t.Errorf("colour with NO_COLOR set:\n%q\n%q", stderr, stdout)
	}
}

// TestLiveLineOnARehearsalSaysSimTime: the live line gives its time in
// the command's zone, named, and marks a rehearsal's clock.
func TestLiveLineOnARehearsalSaysSimTime(t *testing.T) {
	perth, err := time.LoadLocation("Australia/Perth")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, aedt)
	p := engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusWaiting: 1},
		LastPlaced: &engine.PlacedBet{BetID: "r1", At: now.Add(-time.Minute)}}
	for _, tt := range []struct {
		sim  bool
		want string
	}{
		{false, "11:00:00 AWST  1 waiting  last placed r1 10:59:00 AWST"},
		{true, "11:00:00 AWST sim time  1 waiting  last placed r1 10:59:00 AWST sim time"},
	} {
		l := &liveTerminal{shown: func() reporters.Clock { return reporters.Clock{Zone: perth, Sim: tt.sim} }}
		if got := strings.Join(l.line(p, now), "  "); got != tt.want {
			t.Errorf("line %q, want %q", got, tt.want)
		}
	}
}
