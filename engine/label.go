package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/plan"
)

// maxLabelLen keeps labels well inside what the service stores; the spec
// shows no bound, real labels seen are short.
const maxLabelLen = 64

// LabelPrefix is the start of every label of a plan: a scan of the
// service's notifications for it recovers a plan's bets when the journal
// is gone.
func LabelPrefix(planName string) string {
	return "bp:" + shorten(planName, 24) + ":"
}

// Label is the deterministic label of one bet of a plan on one race: the
// same on every machine and every re-run, different for every (plan, bet,
// race). It reads "bp:<plan>:<bet>:<hash>", where the hash covers the full
// plan name, bet id, venue, code, event number and meeting date, so
// shortening the readable parts never makes two labels equal.
//
// For a bet on a sports event (race.Event set) the hash covers the plan
// name, bet id, the event's id and its date instead: the event's id is
// its identity on the service.
func Label(planName, betID string, race RaceInfo) string {
	h := sha256.New()
	if e := race.Event; e != nil {
		fmt.Fprintf(h, "%s\x00%s\x00event\x00%s\x00%s", planName, betID, e.ID, meetingDate(race.Start))
	} else {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%s", planName, betID,
			plan.FoldVenue(race.Venue), strings.ToLower(race.Code), race.EventNumber, meetingDate(race.Start))
	}
	sum := hex.EncodeToString(h.Sum(nil))[:12]
	prefix := LabelPrefix(planName)
	room := maxLabelLen - len(prefix) - 1 - len(sum)
	return prefix + shorten(betID, room) + ":" + sum
}

// meetingDate is the race's local date as the service wrote its start time
// (its own offset), so every machine derives the same date.
func meetingDate(start time.Time) string {
	if start.IsZero() {
		return ""
	}
	return start.Format("2006-01-02")
}

func shorten(s string, n int) string {
	if n < 1 {
		n = 1
	}
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// IsLabel reports whether s has the form of a label betplan gives a bet
// (Label): "bp:" then the rest, at most maxLabelLen bytes. Labels kept by
// older versions have that form too; anything else on the service was
// labelled by someone else.
func IsLabel(s string) bool {
	return len(s) <= maxLabelLen && strings.HasPrefix(s, "bp:") && len(s) > len("bp:")
}

// betIDFromLabel finds which bet of the plan a label belongs to.
func betIDFromLabel(planName, label string) string {
	rest, ok := strings.CutPrefix(label, LabelPrefix(planName))
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return ""
	}
	return rest[:i]
}
