package local

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/betplan/betplan/state"
)

// Layout is where a plan's local state lives: the journal and the reports
// in the state dir, the lock in the user's cache dir (keyed by plan and
// service, so two state dirs still share one lock). The journal too is
// keyed by plan and service: a state dir holds one journal per service a
// plan ran against. Every command asks it rather than joining paths
// itself.
type Layout struct {
	Dir     string // the state dir
	LockDir string // where locks live
	// Rehearsal marks a rehearsal's layout (run --sim): its simulated
	// service has a new port every time, so its journals are kept for
	// RehearsalService, and the plans rehearsed in one state dir still
	// share the account's limits.
	Rehearsal bool
}

// RehearsalService names the in-process simulated service of every
// rehearsal (run --sim) in its journals.
const RehearsalService = "betplan run --sim"

// NewLayout is the layout for a plan file: stateDir, or .betplan beside
// the plan. A rehearsal keeps its state in a sim/ folder of its own, so it
// never mixes with a real journal.
func NewLayout(stateDir, planFile string, rehearsal bool) Layout {
	l := Layout{Dir: stateDir}.WithDefaults(planFile)
	if rehearsal {
		l.Dir = filepath.Join(l.Dir, "sim")
		l.Rehearsal = true
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

// journalSuffix ends every journal file's name.
const journalSuffix = ".journal.jsonl"

// JournalPath is the plan's journal against a service: its name carries a
// short hash of the service's identity, as the lock's does, so a rehearsal
// against a simulated service and a real run against the real one, with
// one state dir, never share a journal (nor the limits, stop marks and
// reports folded from it). Plan names have no dots, so the name reads
// back as <plan>.<service>.journal.jsonl.
func (l Layout) JournalPath(planName, baseURL string) string {
	return filepath.Join(l.Dir, planName+"."+l.serviceKey(baseURL)+journalSuffix)
}

func (l Layout) serviceKey(baseURL string) string {
	if l.Rehearsal {
		baseURL = RehearsalService
	}
	return ServiceKey(baseURL)
}

// LegacyJournalPath is where a betplan that kept one journal per plan,
// whatever the service, kept it: <plan>.journal.jsonl. It is read only to
// find out whether it was this service's (see state.LegacyStore).
func (l Layout) LegacyJournalPath(planName string) string {
	return filepath.Join(l.Dir, planName+journalSuffix)
}

// ServiceKey names a service in a file name: the first 12 hex digits of
// the SHA-256 of its identity (state.ServiceIdentity), so every spelling
// of one service names one journal, and no URL shows in a file name.
func ServiceKey(baseURL string) string {
	h := sha256.Sum256([]byte(state.ServiceIdentity(baseURL)))
	return hex.EncodeToString(h[:])[:12]
}

// Journals are the journals of the state dir kept against the service at
// baseURL, by plan name.
func (l Layout) Journals(baseURL string) (map[string]string, error) {
	suffix := "." + l.serviceKey(baseURL) + journalSuffix
	paths, err := filepath.Glob(filepath.Join(l.Dir, "*"+suffix))
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		out[strings.TrimSuffix(filepath.Base(p), suffix)] = p
	}
	return out, nil
}

// LegacyJournals are the journals of the state dir an earlier betplan
// kept per plan whatever the service (LegacyJournalPath), by plan name.
func (l Layout) LegacyJournals() (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(l.Dir, "*"+journalSuffix))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), journalSuffix)
		if !strings.Contains(name, ".") {
			out[name] = p
		}
	}
	return out, nil
}

// ReportDir is where the plan's reports go by default: one folder per plan
// name, so plans kept side by side never overwrite each other's reports.
func (l Layout) ReportDir(planName string) string {
	return filepath.Join(l.Dir, "report", planName)
}

// ReportDirFor is ReportDir for a run or status against a service that
// said it is simulated (a `betplan sim` served by hand): its reports go
// beside a rehearsal's (sim/report/<plan>), so a rehearsal never
// overwrites the real service's last reports.
func (l Layout) ReportDirFor(planName string, simulated bool) string {
	if simulated && !l.Rehearsal {
		return filepath.Join(l.Dir, "sim", "report", planName)
	}
	return l.ReportDir(planName)
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

// ForgetJournal removes the plan's journals in the layout's dir, of every
// service: every rehearsal is a new simulated world (on a port of its
// own), and an earlier rehearsal's journal names notifications this world
// never had.
func (l Layout) ForgetJournal(planName string) error {
	paths, err := filepath.Glob(filepath.Join(l.Dir, planName+".????????????"+journalSuffix))
	if err != nil {
		return err
	}
	for _, p := range append(paths, l.LegacyJournalPath(planName)) {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
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
