package engine

import "encoding/json"

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
	// targets are the targets a run listened with (alert_target), whether
	// or not anything was sent to them.
	targets map[string]bool
}

func alertID(key, target string) string { return key + "\x00" + target }

func (b *alertBook) apply(e journalEntry) {
	a := e.Alert
	if e.Op == opAlertTarget {
		if b.targets == nil {
			b.targets = map[string]bool{}
		}
		b.targets[a.Target] = true
		return
	}
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
