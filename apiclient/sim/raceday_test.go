package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

// A racing day that does not go to the card: a moved start, race data in
// the wrong time zone and a scratching each result the bets on the race
// early, for whoever created them.
func TestRaceDayChangesResultEarly(t *testing.T) {
	tests := []struct {
		name string
		// change is made 10s after the create; it returns when the result
		// shows.
		change     func(e *env, r sim.RaceInfo) time.Time
		wantResult string
		wantStatus string // of the session's record
	}{
		{
			name: "start moved earlier",
			change: func(e *env, r sim.RaceInfo) time.Time {
				start := e.clock.Now().Add(time.Minute)
				if !e.svc.MoveStart(r, start) {
					t.Fatal("race not found")
				}
				return start.Add(2 * time.Minute)
			},
			wantStatus: "SETTLED",
		},
		{
			name: "race runs an hour before its listed start",
			change: func(e *env, r sim.RaceInfo) time.Time {
				at := e.clock.Now().Add(30 * time.Second)
				if !e.svc.RunAt(r, at) {
					t.Fatal("race not found")
				}
				return at.Add(2 * time.Minute)
			},
			wantStatus: "SETTLED",
		},
		{
			name: "selection scratched",
			change: func(e *env, r sim.RaceInfo) time.Time {
				if !e.svc.Scratch(r, r.Runners[0]) {
					t.Fatal("race not found")
				}
				return e.clock.Now()
			},
			wantResult: "VOID",
			wantStatus: "VOID",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t, sim.Options{})
			var r sim.RaceInfo
			for _, ri := range e.svc.Races() {
				if ri.Start.After(e.clock.Now().Add(time.Hour)) {
					r = ri
					break
				}
			}
			body := createBody(r, r.Runners[0], "day-1")
			body["target_session"] = "4417"
			n := e.create(body)
			e.clock.Advance(10 * time.Second)
			if got := e.notification(n.ID); got.TotalAccepted == 0 {
				t.Fatalf("not placed before the change: %+v", got)
			}
			at := tt.change(e, r)
			if at.After(e.clock.Now()) {
				e.clock.Set(at.Add(-time.Second))
				if got := e.notification(n.ID); got.Tip.ResultTime != nil {
					t.Fatalf("resulted a second before %s", at)
				}
			}
			e.clock.Set(at)
			got := e.notification(n.ID)
			if got.Tip.ResultTime == nil {
				t.Fatalf("not resulted at %s", at)
			}
			if !e.clock.Now().Before(r.Start) {
				t.Fatalf("the test must result it before the listed start")
			}
			if tt.wantResult != "" && got.Tip.Competition.Result != tt.wantResult {
				t.Errorf("result %q, want %q", got.Tip.Competition.Result, tt.wantResult)
			}
			recs := e.bets(n.ID)
			if len(recs) != 1 || recs[0].Status != tt.wantStatus {
				t.Fatalf("records %+v, want one %s", recs, tt.wantStatus)
			}
			if tt.wantStatus == "VOID" && (recs[0].Profit != 0 || got.Profit != 0) {
				t.Errorf("a void bet returns the stake: profit %v / %v", recs[0].Profit, got.Profit)
			}
			// Bots refuse a new bet on a scratched runner or a race that ran.
			later := e.create(createBody(r, r.Runners[0], "day-2"))
			e.clock.Advance(10 * time.Second)
			for _, rec := range e.bets(later.ID) {
				if rec.SubmitResult == "Success" {
					t.Errorf("a session placed a bet after the change: %+v", rec)
				}
			}
		})
	}
}

// Options.SlowBots: the seed picks which notifications the bots answer
// after about 90 s; the others are answered after TakeUpDelay.
func TestSlowBotsAnswerAfterAboutNinetySeconds(t *testing.T) {
	answers := func() []time.Duration {
		e := setup(t, sim.Options{Seed: 3, SlowBots: 0.5})
		r := e.firstRace("Flemington")
		var ids []int
		for i := 0; i < 40; i++ {
			body := createBody(r, r.Runners[0], "slow")
			body["target_session"] = "4417"
			ids = append(ids, e.create(body).ID)
		}
		created := e.clock.Now()
		e.clock.Advance(2 * time.Minute)
		var out []time.Duration
		for _, id := range ids {
			var b struct {
				Bets []struct {
					CreatedAt string `json:"created_at"`
				} `json:"bets"`
			}
			e.do("GET", fmt.Sprintf("/bet/notification/%d/", id), nil).decode(t, &b)
			if len(b.Bets) != 1 {
				t.Fatalf("notification %d: %d records", id, len(b.Bets))
			}
			at, err := time.Parse("2006-01-02T15:04:05.000000-07:00", b.Bets[0].CreatedAt)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, at.Sub(created))
		}
		return out
	}
	first := answers()
	slow := 0
	for _, d := range first {
		switch {
		case d >= 85*time.Second && d <= 95*time.Second:
			slow++
		case d != 3*time.Second:
			t.Errorf("answered after %s: neither TakeUpDelay nor about 90 s", d)
		}
	}
	if slow < 10 || slow > 30 {
		t.Errorf("%d of 40 answered slowly, want about half", slow)
	}
	for i, d := range answers() {
		if d != first[i] {
			t.Fatalf("the same seed answered notification %d after %s, then %s", i, first[i], d)
		}
	}
}

// As in the real calendar, a venue races one meeting a day: over days of
// sim time, whatever the hour it started, every race (venue, code,
// number) is listed at most once per meeting date (its start's local
// date, as the service writes it). Two entries of one race on one date
// would give two of a plan's bets the same label.
func TestOneMeetingPerVenuePerDay(t *testing.T) {
	for _, from := range []time.Duration{0, 7 * time.Hour, 13 * time.Hour, 19 * time.Hour} {
		t.Run(from.String(), func(t *testing.T) {
			e := setup(t, sim.Options{Seed: 3})
			e.clock.Advance(from)
			seen := map[string]string{}
			for step := 0; step < 4*24; step++ {
				var races []struct {
					Code        string   `json:"code"`
					Name        []string `json:"name"`
					EventNumber int      `json:"event_number"`
					StartTime   string   `json:"starttime"`
				}
				e.do("GET", "/competition/namecodes/", nil).decode(t, &races)
				for _, r := range races {
					st, err := time.Parse(time.RFC3339, r.StartTime)
					if err != nil {
						t.Fatalf("starttime %q: %v", r.StartTime, err)
					}
					key := fmt.Sprintf("%s %s R%d %s", r.Name[0], r.Code, r.EventNumber, st.Format("2006-01-02"))
					if prev, ok := seen[key]; ok && prev != r.StartTime {
						t.Fatalf("%s listed twice: at %s and at %s", key, prev, r.StartTime)
					}
					seen[key] = r.StartTime
				}
				e.clock.Advance(time.Hour)
			}
			if len(seen) < 3*8*len(sim.DefaultVenues) {
				t.Errorf("%d races over four days, want a meeting a day at each of %d venues", len(seen), len(sim.DefaultVenues))
			}
		})
	}
}
