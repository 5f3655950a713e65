package reporters

import (
	"time"
)

// startClock is a race's start as HH:MM in the meeting's local time (the
// offset the service gave) with its zone, "14:35 AEDT", or "-": the one
// rule for race times in every report.
func startClock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("15:04") + " " + zoneName(t)
}

// zoneName names the offset a meeting's time carries as Australians do
// (AEDT, AEST, ACDT, ACST, AWST), else as UTC+hh:mm.
func zoneName(t time.Time) string {
	_, off := t.Zone()
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

// meetingDay is the race's meeting date in its own time zone, "Sat 28 Nov
// 2026", or "-".
func meetingDay(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format("Mon 2 Jan 2006")
}
