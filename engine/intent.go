package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/betplan/betplan/state"
)

// A create is noted in this host's intent file (state.Intents) after its
// creating entry is in the journal and before it is sent, and the note is
// cleared once the journal holds its outcome. The journal may be put back
// from an older copy while the create is in flight; the intent file, kept
// beside the plan's lock and not in the state dir, is not. A journal that
// does not know a create the intent file notes was lost mid-create: the
// create is announced in it again, and the run looks its label up over
// the grace window before creating anything under it.

// isOutcome reports whether op ends a create's doubt in the journal.
func isOutcome(op string) bool {
	switch op {
	case opCreated, opAdopted, opFailed, opAbsent, opCanceled:
		return true
	}
	return false
}

// useIntents has the journal note its creates in flight in intents.
func (j *Journal) useIntents(intents state.Intents) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.intents, j.inFlight = intents, map[string]bool{}
}

// noteInFlight notes in the intent file that e, the creating entry the
// journal holds last for its label, is about to be sent. Nothing may be
// sent unless it returns nil.
func (j *Journal) noteInFlight(e journalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.intents == nil {
		return nil
	}
	s := j.labels[e.Label]
	if s == nil || !s.Pending {
		return fmt.Errorf("note the create of %s in flight: the journal does not announce it", e.Label)
	}
	e.Serial, e.Lineage = s.announced, j.lineage
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := j.intents.Note(e.Label, b); err != nil {
		return fmt.Errorf("note the create of %s in flight: %w", e.Label, err)
	}
	j.inFlight[e.Label] = true
	return nil
}

// clearInFlight drops e's label from the intent file once e, durable in
// the journal, holds the outcome of its create. A note left behind costs
// nothing: the next run finds the journal knows the create and clears it.
// Called with j.mu held.
func (j *Journal) clearInFlight(e journalEntry) {
	if !j.inFlight[e.Label] || !isOutcome(e.Op) {
		return
	}
	delete(j.inFlight, e.Label)
	_ = j.intents.Clear(e.Label)
}

// reconcileIntents compares the intent file with the journal as opened,
// and returns the labels whose create the journal did not know (it
// announces them again, so they are looked up before any create).
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
	labels := make([]string, 0, len(notes))
	for l := range notes {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	var lost []string
	for _, label := range labels {
		var e journalEntry
		if err := json.Unmarshal(notes[label], &e); err != nil || e.Op != opCreating || e.Label != label {
			return nil, fmt.Errorf("this host's note of a create of %s in flight does not read: look the label up on the service, then clear the plan's intent file", label)
		}
		s := j.labels[label]
		if e.Lineage == j.lineage && s != nil && s.announced >= e.Serial {
			// The journal knows this create.
			if s.Pending {
				j.inFlight[label] = true // cleared with its outcome
			} else if err := j.intents.Clear(label); err != nil {
				return nil, err
			}
			continue
		}
		again := e
		again.Serial, again.Lineage, again.Time = 0, "", time.Time{}
		again.Error = "this host's intent file shows this create in flight, but the journal does not know it (its state was put back from an older copy?)"
		if err := j.append(again); err != nil {
			return nil, err
		}
		e.Serial, e.Lineage = j.serial, j.lineage
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		if err := j.intents.Note(label, b); err != nil {
			return nil, err
		}
		j.inFlight[label] = true
		lost = append(lost, label)
	}
	return lost, nil
}
