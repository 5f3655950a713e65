package local

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/betplan/betplan/engine/state"
)

// Layout is where a plan's local state lives: the journal and the reports
// in the state dir, the lock in the user's cache dir (keyed by plan and
// service, so two state dirs still share one lock). Every command asks it
// rather than joining paths itself.
type Layout struct {
	Dir     string // the state dir
	LockDir string // where locks live
}

// NewLayout is the layout for a plan file: stateDir, or .betplan beside
// the plan. A rehearsal keeps its state in a sim/ folder of its own, so it
// never mixes with a real journal.
func NewLayout(stateDir, planFile string, rehearsal bool) Layout {
	l := Layout{Dir: stateDir}.WithDefaults(planFile)
	if rehearsal {
		l.Dir = filepath.Join(l.Dir, "sim")
	}
	return l
}

// WithDefaults fills what is unset: the state dir beside planFile, the
// lock dir in the user's cache dir.
func (l Layout) WithDefaults(planFile string) Layout {
	if l.Dir == "" {
		l.Dir = filepath.Join(filepath.Dir(planFile), ".betplan")
	}
	if l.LockDir == "" {
		l.LockDir = defaultLockDir()
	}
	return l
}

// JournalPath is the plan's journal.
func (l Layout) JournalPath(planName string) string {
	return filepath.Join(l.Dir, planName+journalSuffix)
}

// ReportDir is where the plan's reports go by default: one folder per plan
// name, so plans kept side by side never overwrite each other's reports.
func (l Layout) ReportDir(planName string) string {
	return filepath.Join(l.Dir, "report", planName)
}

// LockPath is the lock of a plan against a service, keyed by the
// service's identity: every spelling of one service takes one lock.
func (l Layout) LockPath(planName, baseURL string) string {
	return l.lockPathFor(planName, state.ServiceIdentity(baseURL))
}

// legacyLockPath is where a betplan that keyed locks by the base URL as
// spelled kept them; only its stop mark is still read (StopPath).
func (l Layout) legacyLockPath(planName, baseURL string) string {
	return l.lockPathFor(planName, baseURL)
}

func (l Layout) lockPathFor(planName, key string) string {
	h := sha256.Sum256([]byte(planName + "\x00" + key))
	return filepath.Join(l.LockDir, planName+"-"+hex.EncodeToString(h[:])[:12]+".lock")
}

// Scratch is a layout in a folder of its own that nothing has written to,
// for a preview against a simulated world that has no history.
func (l Layout) Scratch() Layout {
	l.Dir = filepath.Join(l.Dir, "preview-"+strconv.Itoa(os.Getpid()))
	return l
}

// ForgetJournal removes the plan's journal: every rehearsal is a new
// simulated world, and an earlier rehearsal's journal names notifications
// this world never had.
func (l Layout) ForgetJournal(planName string) error {
	if err := os.Remove(l.JournalPath(planName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func defaultLockDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "betplan", "locks")
}
