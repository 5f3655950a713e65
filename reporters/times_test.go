package reporters

import (
	"testing"
	"time"

	"github.com/betplan/betplan/engine"
)

// TestTimeRules: a race's times in its venue's state zone whatever offset
// the service wrote; a command's own times in the given zone, labelled,
// and marked when simulated.
func TestTimeRules(t *testing.T) {
	// The service writes every start in the east's offset.
	start := time.Date(2026, 11, 28, 21, 40, 0, 0, time.FixedZone("", 11*3600))
	for _, tt := range []struct {
		venue, start, placed, day string
	}{
		{"Ascot", "18:40 AWST", "18:31:07 AWST", "Sat 28 Nov 2026"},
		{"Morphettville", "21:10 ACDT", "21:01:07 ACDT", "Sat 28 Nov 2026"},
		{"Eagle Farm", "20:40 AEST", "20:31:07 AEST", "Sat 28 Nov 2026"},
		{"Flemington", "21:40 AEDT", "21:31:07 AEDT", "Sat 28 Nov 2026"},
		{"Nowhere Downs", "21:40 AEDT", "21:31:07 AEDT", "Sat 28 Nov 2026"},
	} {
		race := engine.RaceInfo{Venue: tt.venue, Start: start}
		if got := startClock(race); got != tt.start {
			t.Errorf("%s start %q, want %q", tt.venue, got, tt.start)
		}
		if got := raceClock(race, start.Add(-8*time.Minute-53*time.Second).UTC()); got != tt.placed {
			t.Errorf("%s placed %q, want %q", tt.venue, got, tt.placed)
		}
		if got := meetingDay(race); got != tt.day {
			t.Errorf("%s day %q, want %q", tt.venue, got, tt.day)
		}
	}
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 25, 16, 14, 11, 0, time.UTC)
	for _, tt := range []struct {
		c           Clock
		stamp, span string
	}{
		{Clock{}, "2026-11-25 16:14:11 UTC", "2026-11-25 16:14:11 → 18:14:11 UTC"},
		{Clock{Zone: london}, "2026-11-25 16:14:11 GMT", "2026-11-25 16:14:11 → 18:14:11 GMT"},
		{Clock{Zone: london, Sim: true}, "2026-11-25 16:14:11 GMT sim time", "2026-11-25 16:14:11 → 18:14:11 GMT sim time"},
	} {
		if got := tt.c.Stamp(at); got != tt.stamp {
			t.Errorf("stamp %q, want %q", got, tt.stamp)
		}
		if got := tt.c.Span(at, at.Add(2*time.Hour)); got != tt.span {
			t.Errorf("span %q, want %q", got, tt.span)
		}
	}
}
