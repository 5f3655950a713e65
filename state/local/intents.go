package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/betplan/betplan/state"
)

// IntentPath is this host's note of the plan's sends in flight against
// a service (state.Intents): beside the plan's lock, keyed as it is, so a
// state dir put back from an older copy does not roll it back.
func (l Layout) IntentPath(planName, baseURL string) string {
	return strings.TrimSuffix(l.LockPath(planName, baseURL), ".lock") + ".intents"
}

// intents is the plan's intent file, or nil for a rehearsal: its
// simulated world ends with the process, and its next world never had
// the create.
func (l Layout) intents(planName, baseURL string) *IntentFile {
	if l.Rehearsal {
		return nil
	}
	return NewIntentFile(l.IntentPath(planName, baseURL))
}

// intentsOrNil keeps a nil *IntentFile from reading as a non-nil
// state.Intents.
func intentsOrNil(f *IntentFile) state.Intents {
	if f == nil {
		return nil
	}
	return f
}

// IntentFile keeps a plan's intents as one JSON object of notes by key,
// replaced whole (a temporary file synced, renamed over it, the directory
// synced) at every change, and removed when no note is left. It is used
// under the plan's lock only.
type IntentFile struct {
	path string
	mu   sync.Mutex
}

var _ state.Intents = (*IntentFile)(nil)

// NewIntentFile is the intent file at path.
func NewIntentFile(path string) *IntentFile { return &IntentFile{path: path} }

func (f *IntentFile) Notes() (map[string][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.read()
}

func (f *IntentFile) read() (map[string][]byte, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the intent file: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("the intent file %s does not read (%v): it notes the creates, publishes and alerts a run had in flight; move it aside only once every bet of the plan is on the service or in its journal, and you know which tips and alerts went out", f.path, err)
	}
	notes := make(map[string][]byte, len(raw))
	for k, v := range raw {
		notes[k] = v
	}
	return notes, nil
}

func (f *IntentFile) Note(key string, record []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	notes, err := f.read()
	if err != nil {
		return err
	}
	notes[key] = record
	return f.write(notes)
}

func (f *IntentFile) Clear(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	notes, err := f.read()
	if err != nil {
		return err
	}
	if _, ok := notes[key]; !ok {
		return nil
	}
	delete(notes, key)
	return f.write(notes)
}

// write replaces the file with notes, durably, or removes it when there
// are none.
func (f *IntentFile) write(notes map[string][]byte) error {
	if len(notes) == 0 {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return syncDir(filepath.Dir(f.path))
	}
	raw := make(map[string]json.RawMessage, len(notes))
	for k, v := range notes {
		raw[k] = v
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("create the intent file's dir: %w", err)
	}
	if err := writeSynced(f.path, b); err != nil {
		return fmt.Errorf("write the intent file: %w", err)
	}
	return nil
}
