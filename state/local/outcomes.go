package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/betplan/betplan/state"
)

var _ state.OutcomeCache = Store{}

// OutcomeCacheName is history's outcome cache in the state dir: a JSON
// line a bet, {"service", "label", "outcome"}, the last line of a service
// and label the one kept (a line an earlier betplan wrote has no service).
const OutcomeCacheName = "history-outcomes.jsonl"

// OutcomeCachePath is the state dir's outcome cache.
func (l Layout) OutcomeCachePath() string {
	return filepath.Join(l.WithDefaults("").Dir, OutcomeCacheName)
}

type cacheLine struct {
	Service string          `json:"service,omitempty"`
	Label   string          `json:"label"`
	Outcome json.RawMessage `json:"outcome"`
}

// ReadOutcomes reads the cache file. A line that does not read (a write
// torn by a crash) is passed over: its bet is read from the service again.
func (s Store) ReadOutcomes(_ context.Context, each func(service, label string, outcome []byte) error) error {
	f, err := os.Open(s.Layout.OutcomeCachePath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the outcome cache: %w", err)
	}
	defer f.Close()
	type key struct{ service, label string }
	var order []key
	kept := map[key][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, state.MaxRecord+2)
	for sc.Scan() {
		var l cacheLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Label == "" || len(l.Outcome) == 0 || l.Outcome[0] != '{' {
			continue
		}
		k := key{l.Service, l.Label}
		if _, ok := kept[k]; !ok {
			order = append(order, k)
		}
		kept[k] = l.Outcome
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the outcome cache %s: %w", f.Name(), err)
	}
	for _, k := range order {
		if err := each(k.service, k.label, kept[k]); err != nil {
			return err
		}
	}
	return nil
}

// KeepOutcomes appends the outcomes to the cache file, and syncs it.
func (s Store) KeepOutcomes(_ context.Context, outcomes []state.KeptOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, o := range outcomes {
		j, err := json.Marshal(cacheLine{o.Service, o.Label, o.Outcome})
		if err != nil {
			return fmt.Errorf("keep the outcome of %s: %w", o.Label, err)
		}
		b.Write(append(j, '\n'))
	}
	path := s.Layout.OutcomeCachePath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	return f.Close()
}
