package reporters

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // the venues' zones on a machine without a zone database

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// Every time betplan shows follows one of two rules, and this file is
// where both are kept:
//
//   - a race's times (its start, when a bet on it was placed, when a tip
//     on it was published or a pre-alert sent) are in the meeting's zone:
//     an Australian venue's state (Perth's races in AWST), else the offset
//     the service gave;
//   - the command's own times (log lines, the live line, a report's
//     header) are in the machine's zone (TZ; UTC on a machine with none),
//     and, against a simulated service, marked "sim time": they are the
//     rehearsal's clock, not the wall clock. A rehearsal's line about
//     real waits (the client's retries) is on the wall clock alone and
//     marked "real time": no line mixes the two clocks.
//
// Every time carries its zone's name ("14:35 AEDT"). report.json keeps
// RFC 3339 in UTC, for machines.

// Clock is how a command's own times are shown: in Zone (nil: UTC),
// marked as simulated when Sim, or as the wall clock when Real (beside a
// rehearsal's simulated times).
type Clock struct {
	Zone *time.Location
	Sim  bool
	Real bool
}

// ClockOf is the clock a result's own times are shown with.
func ClockOf(r *engine.Result) Clock { return Clock{Zone: r.Zone, Sim: r.SimTime} }

func (c Clock) in(t time.Time) time.Time {
	if c.Zone == nil {
		return t.UTC()
	}
	return t.In(c.Zone)
}

// Label is the zone's name, and "sim time" after it for a simulated
// clock, "real time" for the wall clock said as such: "AEDT", "UTC sim
// time", "AEDT real time".
func (c Clock) Label(t time.Time) string {
	l := zoneName(c.in(t))
	switch {
	case c.Sim:
		l += " sim time"
	case c.Real:
		l += " real time"
	}
	return l
}

// Stamp is a log line's time: "2026-11-25 16:14:11 AEDT".
func (c Clock) Stamp(t time.Time) string {
	return c.in(t).Format("2006-01-02 15:04:05") + " " + c.Label(t)
}

// Time is a time of day: "16:14:11 AEDT".
func (c Clock) Time(t time.Time) string {
	return c.in(t).Format("15:04:05") + " " + c.Label(t)
}

// Span is a command's start and end: "2026-11-25 16:14:11 → 18:20:03
// AEDT", the date repeated when the end is on another day.
func (c Clock) Span(start, end time.Time) string {
	if start.IsZero() {
		return ""
	}
	s := c.in(start).Format("2006-01-02 15:04:05")
	if !end.IsZero() {
		f := c.in(end)
		if f.Format("2006-01-02") == c.in(start).Format("2006-01-02") {
			s += " → " + f.Format("15:04:05")
		} else {
			s += " → " + f.Format("2006-01-02 15:04:05")
		}
		return s + " " + c.Label(end)
	}
	return s + " " + c.Label(start)
}

// raceTime is t in race's meeting zone: its venue's state for an
// Australian venue, else the offset of the start the service gave.
func raceTime(race engine.RaceInfo, t time.Time) time.Time {
	if loc := venueZone(race.Venue); loc != nil {
		return t.In(loc)
	}
	if !race.Start.IsZero() {
		return t.In(race.Start.Location())
	}
	return t
}

var zones sync.Map // IANA name → *time.Location

func venueZone(venue string) *time.Location {
	name := plan.VenueTimeZone(venue)
	if name == "" {
		return nil
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil
	}
	zones.Store(name, loc)
	return loc
}

// startClock is a race's start as HH:MM in the meeting's zone, with the
// zone's name, "14:35 AEDT", or "-": the one rule for race starts in
// every report.
func startClock(race engine.RaceInfo) string {
	if race.Start.IsZero() {
		return "-"
	}
	t := raceTime(race, race.Start)
	return t.Format("15:04") + " " + zoneName(t)
}

// raceClock is another time of a race's day (a placement, a tip's
// publication) in the meeting's zone, "14:31:07 AEDT", or "-".
func raceClock(race engine.RaceInfo, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = raceTime(race, t)
	return t.Format("15:04:05") + " " + zoneName(t)
}

// RaceTime is a time of a race's day at venue, in the meeting's zone,
// for the engine's log lines and reasons: "21:41:00 AEDT".
func RaceTime(venue string, t time.Time) string {
	return raceClock(engine.RaceInfo{Venue: venue, Start: t}, t)
}

// zoneName is the name of the zone t is in: the zone database's
// abbreviation ("AEDT", "AWST", "GMT"), or for a bare offset the name
// Australians give it, else UTC+hh:mm.
func zoneName(t time.Time) string {
	name, off := t.Zone()
	if name != "" && strings.Trim(name, "+-0123456789") != "" {
		return name
	}
	switch off {
	case 11 * 3600:
		return "AEDT"
	case 10 * 3600:
		return "AEST"
	case 10*3600 + 1800:
		return "ACDT"
	case 9*3600 + 1800:
		return "ACST"
	case 8 * 3600:
		return "AWST"
	case 0:
		return "UTC"
	}
	return "UTC" + t.Format("-07:00")
}

// meetingDay is the race's meeting date in its own zone, "Sat 28 Nov
// 2026", or "-".
func meetingDay(race engine.RaceInfo) string {
	if race.Start.IsZero() {
		return "-"
	}
	return raceTime(race, race.Start).Format("Mon 2 Jan 2006")
}

// publishedWords says when a tip was published, in its race's clock.
func publishedWords(t *engine.TipResult) string {
	if t.PublishedAt.IsZero() {
		return "-"
	}
	return raceClock(t.Race, t.PublishedAt)
}
