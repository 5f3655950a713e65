package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/betplan/betplan/plan"
)

// pubState is what the journal knows of one tip or pre-alert.
type pubState struct {
	TipID string
	Race  RaceInfo
	Odds  float64
	Units float64
	// Pending: announced, and no answer recorded that settles it. It may
	// have gone out; nothing sends it again by itself.
	Pending   bool
	Published bool
	At        time.Time // when the service said yes
	Attempts  int
	Unknown   string // why the outcome is unknown, when it is known to be
	Failed    string // the service refused it: not published
	Path      string // the path that answered a pre-alert
	// announced is the serial of its last publishing or prealerting entry.
	announced int64
}

// pubBook is the tips and pre-alerts folded from the journal.
type pubBook struct {
	byKey map[string]*pubState
	order []string // their keys in first-seen order
}

func (b *pubBook) apply(e journalEntry) {
	if b.byKey == nil {
		b.byKey = map[string]*pubState{}
	}
	for _, t := range e.Tips {
		s := b.byKey[t.Key]
		if s == nil {
			s = &pubState{}
			b.byKey[t.Key] = s
			b.order = append(b.order, t.Key)
		}
		if t.TipID != "" {
			s.TipID = t.TipID
		}
		if t.Race != nil {
			s.Race = *t.Race
		}
		if t.Odds != 0 {
			s.Odds, s.Units = t.Odds, t.Units
		}
		if t.Path != "" {
			s.Path = t.Path
		}
		switch e.Op {
		case opPublishing, opPrealerting:
			s.Pending, s.Unknown, s.Failed = true, "", ""
			s.Attempts++
			s.announced = e.Serial
		case opPublished, opPrealerted:
			s.Pending, s.Published, s.At, s.Unknown = false, true, e.Time, ""
		case opPublishUnknown, opPrealertUnknown:
			s.Unknown = e.Error
		case opPublishAbsent, opPrealertAbsent:
			s.Pending = false
		case opPublishFailed, opPrealertFailed:
			s.Pending, s.Failed = false, e.Error
		}
	}
}

// TipKey is the journal's name for one tip of a plan on one race: the same
// on every machine and every run, different for every (plan, tip, race).
// It is never sent: the service has no label on tips.
func TipKey(planName, tipID string, race RaceInfo) string {
	return "tip:" + planName + ":" + tipID + ":" + raceHash("tip", planName, tipID, race)
}

// prealertKey names the pre-alert of one race of a plan.
func prealertKey(planName string, race RaceInfo) string {
	return "prealert:" + planName + ":" + raceHash("prealert", planName, "", race)
}

func raceHash(kind, planName, id string, race RaceInfo) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%s", kind, planName, id,
		plan.FoldVenue(race.Venue), strings.ToLower(race.Code), race.EventNumber, meetingDate(race.Start))
	return hex.EncodeToString(h.Sum(nil))[:12]
}
