package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/betplan/betplan/state"
)

// StopPath is the plan's stop mark beside its lock.
func (l Layout) StopPath(planName, baseURL string) string {
	return stopBeside(l.LockPath(planName, baseURL))
}

// stopPaths are where a stop mark of the plan may be: beside its lock, and
// beside the lock an earlier betplan keyed by the base URL as spelled (a
// mark set before an upgrade still stops).
func (l Layout) stopPaths(planName, baseURL string) []string {
	paths := []string{l.StopPath(planName, baseURL)}
	if legacy := stopBeside(l.legacyLockPath(planName, baseURL)); legacy != paths[0] {
		paths = append(paths, legacy)
	}
	return paths
}

func stopBeside(lock string) string {
	return lock[:len(lock)-len(filepath.Ext(lock))] + ".stop"
}

// SetStop writes (or, with a nil mark, removes) the stop mark file.
func (s Store) SetStop(_ context.Context, key state.PlanKey, mark *state.StopMark) error {
	paths := s.Layout.WithDefaults("").stopPaths(key.Name, key.BaseURL)
	if mark == nil {
		for _, path := range paths {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	path := paths[0]
	b, err := json.Marshal(mark)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadStop reads the stop mark file; nil when there is none.
func (s Store) ReadStop(_ context.Context, key state.PlanKey) (*state.StopMark, error) {
	return readStopFiles(s.Layout.WithDefaults("").stopPaths(key.Name, key.BaseURL))
}

// readStopFiles reads the first stop mark found of paths.
func readStopFiles(paths []string) (*state.StopMark, error) {
	for _, path := range paths {
		if m, err := readStopFile(path); m != nil || err != nil {
			return m, err
		}
	}
	return nil, nil
}

func readStopFile(path string) (*state.StopMark, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m state.StopMark
	if err := json.Unmarshal(b, &m); err != nil {
		// A mark betplan cannot read still stops: it was meant to.
		return &state.StopMark{By: state.LockOwner{Command: "an unreadable stop mark " + path}}, nil
	}
	return &m, nil
}
