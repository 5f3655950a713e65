package local

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"

	"github.com/betplan/betplan/state"
)

// The account's plans, on the local files, are the journals of one state
// dir kept against one service (Layout.Journals), and the journals an
// earlier betplan kept there whatever the service, until a run of their
// plan settles whose they are: counted rather than missed. The account's
// gate is one lock file there.

// accountLockName is the account's gate in the state dir.
const accountLockName = "account.lock"

// ReadAccount reads every journal of the state dir kept against service.
func (s Store) ReadAccount(_ context.Context, service string) ([]state.PlanLog, error) {
	return readAccount(s.Layout.WithDefaults(""), service, "")
}

// readAccount reads the journals of layout's state dir kept against
// service, and the earlier betplan's journals of plans that have none of
// their own yet, but for the plan named skip.
func readAccount(layout Layout, service, skip string) ([]state.PlanLog, error) {
	paths, err := layout.Journals(service)
	if err != nil {
		return nil, err
	}
	elsewhere, err := layout.keyedElsewhere(service)
	if err != nil {
		return nil, err
	}
	for name, ps := range elsewhere {
		if _, ok := paths[name]; !ok && len(ps) > 0 {
			paths[name] = ps[0] // carryOver refuses more than one
		}
	}
	legacy, err := layout.LegacyJournals()
	if err != nil {
		return nil, err
	}
	for name, p := range legacy {
		if _, ok := paths[name]; !ok {
			paths[name] = p
		}
	}
	delete(paths, skip)
	var out []state.PlanLog
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		records, err := ReadLog(paths[name])
		if err != nil {
			return nil, fmt.Errorf("read another plan's journal: %w", err)
		}
		out = append(out, state.PlanLog{Name: name, Records: records})
	}
	return out, nil
}

// AppendGated takes the state dir's account lock (one for every gate),
// reads the other journals under it, and appends record when check
// allows it, before letting go.
func (l *lease) AppendGated(ctx context.Context, _ string, serial int64, record []byte, check func([]state.PlanLog) error) error {
	if err := os.MkdirAll(l.layout.Dir, 0o755); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	fl := flock.New(filepath.Join(l.layout.Dir, accountLockName))
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
	others, err := readAccount(l.layout, l.service, l.plan)
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
