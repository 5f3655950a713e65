package engine

import (
	"encoding/json"
	"slices"
)

// alertState is what the journal knows of one alert for one target.
type alertState struct {
	Key, Target, Where, Event string
	Body                      json.RawMessage
	Attempts                  int
	// InFlight: an attempt was announced and nothing followed it.
	InFlight bool
	Sent     bool
	Unknown  bool
	GaveUp   bool
	Skipped  bool
	Err      string
	// announced is the serial of its last alert_sending entry.
	announced int64
}

// done reports whether nothing more is sent for the alert.
func (s *alertState) done() bool { return s.Sent || s.Unknown || s.GaveUp || s.Skipped }

// alertBook is the outbox folded from the journal.
type alertBook struct {
	byID  map[string]*alertState
	order []string
}

func alertID(key, target string) string { return key + "\x00" + target }

func (b *alertBook) apply(e journalEntry) {
	a := e.Alert
	id := alertID(a.Key, a.Target)
	if b.byID == nil {
		b.byID = map[string]*alertState{}
	}
	s := b.byID[id]
	if s == nil {
		s = &alertState{Key: a.Key, Target: a.Target}
		b.byID[id] = s
		b.order = append(b.order, id)
	}
	if a.Where != "" {
		s.Where = a.Where
	}
	if a.Event != "" {
		s.Event = a.Event
	}
	if len(a.Body) > 0 {
		s.Body = a.Body
	}
	switch e.Op {
	case opAlertSending:
		// An attempt recorded again from this host's intent file says
		// why (intent.go).
		s.InFlight, s.Attempts, s.announced, s.Err = true, max(s.Attempts, a.Attempt), e.Serial, e.Error
	case opAlertSent:
		s.InFlight, s.Sent = false, true
	case opAlertFailed:
		s.InFlight, s.Err = false, e.Error
	case opAlertUnknown:
		s.InFlight, s.Unknown, s.Err = false, true, e.Error
	case opAlertGivenUp:
		s.InFlight, s.GaveUp, s.Err = false, true, e.Error
	case opAlertSkipped:
		s.Skipped = true
	}
}

// Alert returns what the journal knows of the alert key for target, or
// nil.
func (j *Journal) Alert(key, target string) *alertState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.alerts.byID[alertID(key, target)]; ok {
		c := *s
		return &c
	}
	return nil
}

// Alerts returns every alert the journal knows, in the order they were
// first journalled.
func (j *Journal) Alerts() []alertState {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]alertState, 0, len(j.alerts.order))
	for _, id := range j.alerts.order {
		c := *j.alerts.byID[id]
		c.Body = slices.Clone(c.Body)
		out = append(out, c)
	}
	return out
}

// alertTargets returns the ids of the targets the journal has alerts for.
func (j *Journal) alertTargets() map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]bool{}
	for _, s := range j.alerts.byID {
		out[s.Target] = true
	}
	return out
}
