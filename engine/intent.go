package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/state"
)

// A send that must never be repeated is noted in this host's intent file
// (state.Intents) after the journal announced it and before it is sent,
// and the note is cleared once the journal holds its outcome: a create
// (keyed by its bet's label), a publish call or a pre-alert (keyed
// "publish " and its first tip's or the pre-alert's journal key), an
// alert's attempt (keyed "alert ", the alert's key and its target's id).
// No label starts so: every label starts "bp:". A note is the journal's
// announcement itself, whose op says the kind.
//
// The journal may be put back from an older copy while a send is in
// flight or after it; the intent file, kept beside the plan's lock and
// not in the state dir, is not. A journal that does not know a send the
// intent file notes was put back from before it: a create is announced
// in it again, and the run looks its label up over the grace window
// before creating anything under it; a publish is recorded again with
// its outcome unknown, and an attempt of an alert is recorded again in
// flight, so the run reports it outcome unknown: neither is sent again.

// announcement returns the serial of the journal's last announcement of
// e's send, and whether that send is still without an outcome; known is
// false when the journal has nothing of it. Called with j.mu held.
func (j *Journal) announcement(e journalEntry) (serial int64, pending, known bool) {
	switch {
	case e.Alert != nil:
		if s := j.alerts.byID[alertID(e.Alert.Key, e.Alert.Target)]; s != nil {
			return s.announced, s.InFlight, true
		}
	case len(e.Tips) > 0:
		if s := j.pubs.byKey[e.Tips[0].Key]; s != nil {
			return s.announced, s.Pending && s.Unknown == "", true
		}
	default:
		if s := j.labels[e.Label]; s != nil {
			return s.announced, s.Pending, true
		}
	}
	return 0, false, false
}

// useIntents has the journal note its sends in flight in intents.
func (j *Journal) useIntents(intents state.Intents) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.intents, j.inFlight = intents, map[string]bool{}
}

// noteInFlight notes in the intent file that e's send (a creating,
// publishing, prealerting or alert_sending entry the journal holds last
// for it) is about to be made. Nothing may be sent unless it returns nil.
func (j *Journal) noteInFlight(e journalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.intents == nil {
		return nil
	}
	key := noteKey(e)
	serial, pending, _ := j.announcement(e)
	if !pending {
		return fmt.Errorf("note the send of %s in flight: the journal does not announce it", key)
	}
	if e.Alert != nil {
		// The alert as the journal holds it, so a journal that lost it
		// can report it.
		a := *e.Alert
		s := j.alerts.byID[alertID(a.Key, a.Target)]
		a.Where, a.Event, a.Body = s.Where, s.Event, s.Body
		e.Alert = &a
	}
	e.Serial, e.Lineage = serial, j.lineage
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := j.intents.Note(key, b); err != nil {
		return fmt.Errorf("note the send of %s in flight: %w", key, err)
	}
	j.inFlight[key] = true
	return nil
}

// Why the journal records again a send it did not know.
const (
	lostCreate  = "this host's intent file shows this create in flight, but the journal does not know it (its state was put back from an older copy?)"
	lostPublish = "this host's intent file shows this call sent, but the journal does not know it (its state was put back from an older copy?)"
	lostAlert   = "this host's intent file shows this alert sent, but the journal does not know it (its state was put back from an older copy?): it may have arrived, so it is not sent again"
)

// readNote reads the note kept under key: the journal's announcement of
// a send.
func readNote(key string, b []byte) (journalEntry, error) {
	var e journalEntry
	err := json.Unmarshal(b, &e)
	ok := err == nil && noteKey(e) == key
	switch {
	case !ok:
	case e.Alert != nil:
		ok = e.Op == opAlertSending
	case len(e.Tips) > 0:
		ok = e.Op == opPublishing || e.Op == opPrealerting
	default:
		ok = e.Op == opCreating
	}
	if ok {
		return e, nil
	}
	if !strings.HasPrefix(key, "publish ") && !strings.HasPrefix(key, "alert ") {
		return e, fmt.Errorf("this host's note of a create of %s in flight does not read: look the label up on the service, then clear the plan's intent file", key)
	}
	return e, fmt.Errorf("this host's note of a send in flight (%s) does not read: it may have gone out; clear the plan's intent file once you know", key)
}

// reconcileIntents compares the intent file with the journal as opened,
// records again in the journal each send it did not know, and returns
// what it recorded, a line for the log each.
func (j *Journal) reconcileIntents() ([]string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.intents == nil {
		return nil, nil
	}
	notes, err := j.intents.Notes()
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(notes))
	for k := range notes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lost []string
	for _, key := range keys {
		e, err := readNote(key, notes[key])
		if err != nil {
			return nil, err
		}
		serial, pending, known := j.announcement(e)
		if e.Lineage == j.lineage && known && serial >= e.Serial {
			// The journal knows this send.
			if pending {
				j.inFlight[key] = true // cleared with its outcome
			} else if err := j.intents.Clear(key); err != nil {
				return nil, err
			}
			continue
		}
		line, err := j.recordLost(key, e)
		if err != nil {
			return nil, err
		}
		lost = append(lost, line)
	}
	return lost, nil
}

// recordLost records again in the journal the send e, noted under key,
// that the journal does not know, and returns a line for the log. Called
// with j.mu held.
func (j *Journal) recordLost(key string, e journalEntry) (string, error) {
	again := e
	again.Serial, again.Lineage, again.Time = 0, "", time.Time{}
	switch {
	case len(e.Tips) > 0:
		// Sent, its outcome unknown: never sent again by itself.
		again.Error = ""
		if err := j.append(again); err != nil {
			return "", err
		}
		unknown := journalEntry{Op: opPublishUnknown, Tips: e.Tips, Error: lostPublish}
		ids := make([]string, len(e.Tips))
		for i, t := range e.Tips {
			ids[i] = t.TipID
		}
		what := "publish of " + strings.Join(ids, ", ")
		if e.Op == opPrealerting {
			unknown.Op, what = opPrealertUnknown, "pre-alert "+e.Tips[0].Key
		}
		if err := j.append(unknown); err != nil {
			return "", err
		}
		if err := j.intents.Clear(key); err != nil {
			return "", err
		}
		return what + ": this host's intent file shows it sent, and the journal does not know it (put back from an older copy?): recorded as sent, outcome unknown; not sent again", nil
	case e.Alert != nil:
		// In flight again: the run reports it outcome unknown, and never
		// sends it.
		again.Error = lostAlert
	default:
		again.Error = lostCreate
	}
	if err := j.append(again); err != nil {
		return "", err
	}
	e.Serial, e.Lineage = j.serial, j.lineage
	b, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	if err := j.intents.Note(key, b); err != nil {
		return "", err
	}
	j.inFlight[key] = true
	if e.Alert != nil {
		return fmt.Sprintf("alert %s to %s: this host's intent file shows an attempt sent, and the journal does not know it (put back from an older copy?): reported outcome unknown, not sent again", e.Alert.Event, e.Alert.Where), nil
	}
	return fmt.Sprintf("label %s: this host's intent file shows its create in flight, and the journal does not know it (put back from an older copy?): looking it up over the grace window before any create", key), nil
}
