package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/betplan/betplan/engine/state"
)

// The account's plans, on the local files, are the journals of one state
// dir: every plan run with it, whatever its service (a journal file does
// not say). The account's gate is one lock file there.

// accountLockName is the account's gate in the state dir.
const accountLockName = "account.lock"

const journalSuffix = ".journal.jsonl"

// ReadAccount reads every journal of the state dir.
func (s Store) ReadAccount(_ context.Context, _ string) ([]state.PlanLog, error) {
	return readAccount(s.Layout.WithDefaults("").Dir, "")
}

// readAccount reads the journals in dir, but for the one at skip.
func readAccount(dir, skip string) ([]state.PlanLog, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+journalSuffix))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []state.PlanLog
	for _, path := range paths {
		if skip != "" && filepath.Clean(path) == filepath.Clean(skip) {
			continue
		}
		records, err := ReadLog(path)
		if err != nil {
			return nil, fmt.Errorf("read another plan's journal: %w", err)
		}
		out = append(out, state.PlanLog{Name: strings.TrimSuffix(filepath.Base(path), journalSuffix), Records: records})
	}
	return out, nil
}

// AppendGated takes the state dir's account lock (one for every gate),
// reads the other journals under it, and appends record when check
// allows it, before letting go.
func (l *lease) AppendGated(ctx context.Context, _ string, serial int64, record []byte, check func([]state.PlanLog) error) error {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	fl := flock.New(filepath.Join(l.dir, accountLockName))
	ok, err := fl.TryLockContext(ctx, accountLockPoll)
	if err != nil || !ok {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = errors.New("another plan's create held it until the wait ran out")
		case err == nil:
			err = errors.New("not taken")
		}
		return fmt.Errorf("take the account's lock %s: %w", fl.Path(), err)
	}
	defer fl.Unlock()
	others, err := readAccount(l.dir, l.journal)
	if err != nil {
		return err
	}
	if err := check(others); err != nil {
		return err
	}
	return l.Append(serial, record)
}

// accountLockPoll is how often a held account lock is tried again: another
// plan's check and record take milliseconds.
const accountLockPoll = 20 * time.Millisecond
