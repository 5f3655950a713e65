package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/engine"
)

func TestLiveTerminalKeepsProgressBelowEvents(t *testing.T) {
	var buf bytes.Buffer
	l := &liveTerminal{w: &buf}
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	l.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusWaiting: 3, engine.StatusSettled: 1},
		NextRace: now.Add(90 * time.Second), NextPoll: now.Add(30 * time.Second)})
	fmt.Fprintf(l, "created flem4-no3\n")
	l.clear()

	out := buf.String()
	progress := "14:00:00  3 waiting, 1 settled  next race in 1m30s  next poll 14:00:30"
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
	l := &liveTerminal{w: &buf}
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	l.progress(engine.Progress{Now: now, ByStatus: map[engine.Status]int{engine.StatusPlaced: 2},
		LastPlaced: &engine.PlacedBet{BetID: "flem4-no3", At: now.Add(-27 * time.Second), By: []string{"Main Sportsbet", "TAB spare"}}})
	want := "\r\033[K14:00:00  2 placed  last placed flem4-no3 13:59:33 by Main Sportsbet, TAB spare"
	if got := buf.String(); got != want {
		t.Errorf("live line\n got %q\nwant %q", got, want)
	}
}
