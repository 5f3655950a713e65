package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	if testing.Short() {
		t.Skip("runs for seconds of wall time")
	}
	svc := sim.New(sim.Options{Seed: 1, Clock: sim.NewScaledClock(time.Now(), 60)})
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var race sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Start.After(time.Now().Add(6 * time.Minute)) {
			race = r
			break
		}
	}
	dir := t.TempDir()
	plan := filepath.Join(dir, "speed.yaml")
	yaml := fmt.Sprintf(`version: 1
name: speed
limits: {max_stake_per_bet: 5, max_total_stake: 5, max_bets: 1}
bets:
  - id: five-out
    race: {venue: %q, code: %s, event_number: %d}
    selection: %q
    type: Fixed Wager
    market: Fixed Win
    stake: 5
    target_session: "4417"
    when: race.minutes_to_start <= 5
`, race.Venue, race.Code, race.EventNumber, race.Runners[0])
	if err := os.WriteFile(plan, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BETPLAN_BASE_URL": srv.URL, "BETPLAN_TOKEN": svc.Token(), "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	sys, s := testIO(env)
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
