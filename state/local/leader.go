package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/betplan/betplan/state"
)

// An account's leadership on this machine is a file beside the plans'
// locks (the user's cache dir): who leads, its fence, and when its lease
// runs out by this machine's clock. It is changed only under a short file
// lock of its own, so two processes never both take it; the lease, not
// that lock, is what a leader holds, so a leader stopped (SIGSTOP) is
// taken over once its lease has run out.

var _ state.Leaders = Store{}

// leaderRow is the leadership file's content.
type leaderRow struct {
	Account  string          `json:"account"`
	Fence    int64           `json:"fence"`
	Instance string          `json:"instance"`
	Owner    state.LockOwner `json:"owner"`
	Since    time.Time       `json:"since"`
	Expires  time.Time       `json:"expires"`
}

// leaderPath is the account's leadership file.
func (l Layout) leaderPath(account string) string {
	h := sha256.Sum256([]byte(account))
	return filepath.Join(l.LockDir, "leader-"+hex.EncodeToString(h[:])[:16]+".json")
}

// leaderLockWait bounds the wait for the leadership file's own lock: it
// is held for a read and a write.
const leaderLockWait = 2 * time.Second

func readLeader(path string) (*leaderRow, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var row leaderRow
	if err := json.Unmarshal(b, &row); err != nil {
		return nil, fmt.Errorf("leadership file %s: %w", path, err)
	}
	return &row, nil
}

func (r *leaderRow) term(now time.Time, instance string) state.Term {
	return state.Term{Account: r.Account, Fence: r.Fence, Owner: r.Owner, Instance: r.Instance, Since: r.Since,
		Left: r.Expires.Sub(now), Leading: instance != "" && r.Instance == instance}
}

// underLeaderLock runs fn with the leadership file's lock held.
func (s Store) underLeaderLock(ctx context.Context, path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create lock dir: %w", err)
	}
	fl := flock.New(path + ".lock")
	wctx, cancel := context.WithTimeout(ctx, leaderLockWait)
	defer cancel()
	ok, err := fl.TryLockContext(wctx, 10*time.Millisecond)
	if err != nil || !ok {
		if err == nil {
			err = errors.New("not taken")
		}
		return fmt.Errorf("take the leadership lock %s: %w", fl.Path(), err)
	}
	defer fl.Unlock()
	return fn()
}

// Lead takes or renews the account's leadership (state.Leaders).
func (s Store) Lead(ctx context.Context, req state.LeadRequest) (state.Term, error) {
	path := s.Layout.WithDefaults("").leaderPath(req.Account)
	var out state.Term
	err := s.underLeaderLock(ctx, path, func() error {
		row, err := readLeader(path)
		if err != nil {
			return err
		}
		now := time.Now()
		switch {
		case row != nil && row.Instance == req.Instance && row.Fence == req.Fence && req.Fence != 0:
			row.Expires = now.Add(req.TTL) // renewed
		case row == nil || !now.Before(row.Expires):
			fence := int64(1)
			if row != nil {
				fence = row.Fence + 1
			}
			row = &leaderRow{Account: req.Account, Fence: fence, Instance: req.Instance, Owner: req.Owner, Since: now, Expires: now.Add(req.TTL)}
		default:
			out = row.term(now, "")
			return nil
		}
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		if err := writeSynced(path, b); err != nil {
			return fmt.Errorf("write the leadership file: %w", err)
		}
		out = row.term(now, req.Instance)
		return nil
	})
	return out, err
}

// Leader reads who leads the account.
func (s Store) Leader(_ context.Context, account string) (*state.Term, error) {
	row, err := readLeader(s.Layout.WithDefaults("").leaderPath(account))
	if err != nil || row == nil {
		return nil, err
	}
	t := row.term(time.Now(), "")
	return &t, nil
}

// Resign ends term's lease now, when it is still the account's.
func (s Store) Resign(ctx context.Context, term state.Term) error {
	path := s.Layout.WithDefaults("").leaderPath(term.Account)
	return s.underLeaderLock(ctx, path, func() error {
		row, err := readLeader(path)
		if err != nil || row == nil || row.Fence != term.Fence || row.Instance != term.Instance {
			return err
		}
		row.Expires = time.Now()
		b, err := json.Marshal(row)
		if err != nil {
			return err
		}
		return writeSynced(path, b)
	})
}

// leaderCheck is a lease's leadership: each append first reads the
// account's leadership file, and refuses once its fence moved on. The
// read and the append are two steps (on one machine, as the lock file's
// own check is): a take-over between them lets one record through, never
// a create, which the leader sends only after its lease was renewed.
type leaderCheck struct {
	path  string
	fence state.LeaderFence
}

func (c *leaderCheck) stale() (bool, error) {
	if c == nil {
		return false, nil
	}
	row, err := readLeader(c.path)
	if err != nil {
		return false, err
	}
	return row == nil || row.Fence != c.fence.Fence, nil
}

// leaderCheckFor is the check of a lock request taken under a
// leadership, nil for none.
func (l Layout) leaderCheckFor(req state.LockRequest) *leaderCheck {
	if req.Leader == nil {
		return nil
	}
	return &leaderCheck{path: l.WithDefaults("").leaderPath(req.Leader.Account), fence: *req.Leader}
}
