package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestServiceClockFollowsDates(t *testing.T) {
	for _, tt := range []struct {
		name string
		rate float64
		skew time.Duration
	}{
		{"real service, its clock 3 minutes ahead", 1, 3 * time.Minute},
		{"rehearsal at x60", 60, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			local := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)
			c := newServiceClock(tt.rate != 1)
			c.now = func() time.Time { return local }
			service0 := local.Add(tt.skew)
			// A Date header every 300ms for 20 seconds.
			for i := 0; i <= 66; i++ {
				at := local
				service := service0.Add(time.Duration(float64(at.Sub(time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC))) * tt.rate))
				c.observe(service.Truncate(time.Second), at)
				local = local.Add(300 * time.Millisecond)
			}
			want := service0.Add(time.Duration(float64(local.Sub(time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC))) * tt.rate))
			if d := c.Now().Sub(want); d > 3*time.Second || d < -3*time.Second {
				t.Errorf("Now() = %s, want %s ± 3s", c.Now(), want)
			}
			if tt.rate == 1 && c.rate != 1 {
				t.Errorf("rate %v, want exactly 1 against a real service", c.rate)
			}
			if tt.rate != 1 && (c.rate < tt.rate*0.98 || c.rate > tt.rate*1.02) {
				t.Errorf("rate %v, want %v ± 2%%", c.rate, tt.rate)
			}
		})
	}
}

// TestRunFollowsSpedUpSim runs the real command against `betplan sim
// --speed 60` as a user would: the bet waits for its race to be five
// minutes out on the service's clock (seconds of wall time), is created,
// and settles; on the wall clock it would wait ten real minutes.
func TestRunFollowsSpedUpSim(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs for seconds of wall time")
	}
	w := newSpedUpSim(t, time.Now(), 6*time.Minute, "five-out", "race.minutes_to_start <= 5")
	race, plan, dir := w.race, w.plan, w.dir
	sys, s := testIO(w.env)
	stdout, stderr := s.Stdout, s.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"run", "--yes", "--state-dir", filepath.Join(dir, "state"), "--report-dir", filepath.Join(dir, "report"), plan}
	if code := execute(ctx, args, sys); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stderr, stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Bets []struct {
			Status    string `json:"status"`
			Final     bool   `json:"final"`
			CreatedAt string `json:"created_at"`
		} `json:"bets"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Bets) != 1 || rep.Bets[0].Status != "settled" || !rep.Bets[0].Final {
		t.Fatalf("bets %+v, want one settled", rep.Bets)
	}
	created, _ := time.Parse(time.RFC3339, rep.Bets[0].CreatedAt)
	if left := race.Start.Sub(created); left > 5*time.Minute+30*time.Second || left < 0 {
		t.Errorf("created %s before the start on the service's clock, want within 5 minutes", left)
	}
}

// TestSpedUpSimHeaderIsOneClock: against `betplan sim --speed 60` whose
// clock is hours from the wall clock, the report's header gives the
// run's start and end both on the service's clock, marked "sim time",
// and so do the log lines; before, the start was the wall clock's and
// the end the rehearsal's.
func TestSpedUpSimHeaderIsOneClock(t *testing.T) {
	t.Parallel()
	simStart := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	w := newSpedUpSim(t, simStart, 30*time.Minute, "at-once", "")
	plan, dir := w.plan, w.dir
	sys, s := testIO(w.env)
	args := []string{"run", "--yes", "--no-wait", "--state-dir", filepath.Join(dir, "state"), "--report-dir", filepath.Join(dir, "report"), plan}
	if code := execute(context.Background(), args, sys); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, s.Stderr, s.Stdout)
	}
	var header string
	for _, line := range strings.Split(s.Stdout.String(), "\n") {
		if strings.HasPrefix(line, "time ") {
			header = strings.TrimSpace(strings.TrimPrefix(line, "time "))
		}
	}
	if !strings.Contains(header, " sim time, ended: no-wait") {
		t.Fatalf("header %q: want the times marked sim time", header)
	}
	started, err := time.ParseInLocation("2006-01-02 15:04:05", header[:len("2006-01-02 15:04:05")], time.Local)
	if err != nil {
		t.Fatal(err)
	}
	if d := started.Sub(simStart); d < -time.Minute || d > 5*time.Minute {
		t.Errorf("header %q starts %s from the service's clock at the start (%s), want on its clock", header, d, simStart.In(time.Local))
	}
	if !strings.Contains(s.Stderr.String(), " sim time created at-once ") {
		t.Errorf("log:\n%s\nwant its lines marked sim time", s.Stderr)
	}
}

// spedUpSim is `betplan sim --speed 60` served on loopback, with a plan of
// one $5 bet on its first race that starts a while after its clock's
// start.
type spedUpSim struct {
	race sim.RaceInfo
	plan string // the plan file
	dir  string // where the plan, the state and the cache live
	env  map[string]string
}

// newSpedUpSim serves a simulated service whose clock starts at start and
// runs 60 times as fast, and writes the plan of one bet, id, on the first
// race starting more than after after start; when, if set, is its when.
func newSpedUpSim(t *testing.T, start time.Time, after time.Duration, id, when string) spedUpSim {
	t.Helper()
	svc := sim.New(sim.Options{Seed: 1, Clock: sim.NewScaledClock(start, 60)})
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	w := spedUpSim{dir: t.TempDir()}
	for _, r := range svc.Races() {
		if r.Start.After(start.Add(after)) {
			w.race = r
			break
		}
	}
	if when != "" {
		when = "\n    when: " + when
	}
	w.plan = filepath.Join(w.dir, "speed.yaml")
	yaml := fmt.Sprintf(`version: 1
name: speed
limits: {max_stake_per_bet: 5, max_total_stake: 5, max_bets: 1}
bets:
  - id: %s
    race: {venue: %q, code: %s, event_number: %d}
    selection: %q
    type: Fixed Wager
    market: Fixed Win
    stake: 5
    target_session: "4417"%s
`, id, w.race.Venue, w.race.Code, w.race.EventNumber, w.race.Runners[0], when)
	if err := os.WriteFile(w.plan, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	w.env = map[string]string{"BETPLAN_BASE_URL": srv.URL, "BETPLAN_TOKEN": svc.Token(), "XDG_CACHE_HOME": filepath.Join(w.dir, "cache")}
	return w
}
