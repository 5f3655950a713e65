package engine

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"
)

// Journal operations. A `creating` entry is written and fsync'd before
// every create is sent; `created` after the service answered with an id.
// A `creating` with nothing after it is an ambiguous create: the next run
// looks the label up before creating again.
const (
	opInit     = "init"
	opCreating = "creating"
	opCreated  = "created"  // the create answered, or a look-up found it
	opAdopted  = "adopted"  // found by label before any create of ours
	opAbsent   = "absent"   // after an ambiguous create, the label was not found over the grace window
	opFailed   = "failed"   // the service refused the create
	opCanceled = "canceled" // betplan cancel succeeded
	// opSettled ends the doubt an init entry began with: a journal begun
	// when this host had run the plan before (its journal lost, a create
	// perhaps in flight) has every label looked up over the grace window
	// before its first create.
	opSettled = "doubt_settled"
)

type journalEntry struct {
	Serial         int64     `json:"serial"`
	Lineage        string    `json:"lineage"`
	Time           time.Time `json:"time"`
	Op             string    `json:"op"`
	Label          string    `json:"label,omitempty"`
	BetID          string    `json:"bet,omitempty"`
	NotificationID int64     `json:"id,omitempty"`
	Amount         float64   `json:"amount,omitempty"`
	// AtRisk is what the bet was worked out to put at risk when it was
	// announced (its amount times the sessions that could place it), and
	// Basis how; limits count it until the sessions' answer is read.
	AtRisk  float64   `json:"at_risk,omitempty"`
	Basis   string    `json:"basis,omitempty"`
	Race    *RaceInfo `json:"race,omitempty"`
	Attempt int       `json:"attempt,omitempty"`
	Error   string    `json:"error,omitempty"`
	// Tips are the tips (or the race of a pre-alert) a publication entry
	// is about: one publish call, all of them at once (tips.go).
	Tips []journalTip `json:"tips,omitempty"`
}

// labelState is what the journal knows of one label.
type labelState struct {
	BetID          string
	Race           RaceInfo
	Amount         float64
	AtRisk         float64
	Basis          string
	NotificationID int64
	// Pending is true when the last entry is `creating`: the create may
	// have landed.
	Pending  bool
	Attempts int
	Failed   string
	Canceled bool
}

// created reports whether the label has a notification.
func (s *labelState) created() bool { return s.NotificationID != 0 }

// Journal is a plan's write-ahead log of creates. What it knows is folded
// from its entries in memory; where the entries are kept is its log's
// business (a local file, or the shared state), so replay means the same
// everywhere.
type Journal struct {
	mu      sync.Mutex
	log     JournalLog // nil: read-only
	lineage string
	serial  int64
	labels  map[string]*labelState
	order   []string // labels in first-seen order
	fresh   bool     // the journal did not exist before
	// repaired says what opening the journal cut off, for the run's log.
	repaired string
	// doubt is why every label is in doubt (opInDoubt) until settled.
	doubt   string
	settled bool
	pubs    map[string]*pubState // tips and pre-alerts by key (tips.go)
	pubKeys []string             // their keys in first-seen order
	// changes lists, entry by entry, the label each entry changed, so the
	// limits' running sums need read only what changed (changedSince).
	changes []labelChange
}

// JournalLog keeps a journal's entries.
type JournalLog interface {
	// Append makes one entry durable before it returns. entry is its JSON
	// object; serial numbers it within the plan's journal (1, 2, ...).
	Append(serial int64, entry []byte) error
	Close() error
}

func newJournal(log JournalLog) *Journal {
	return &Journal{log: log, labels: make(map[string]*labelState)}
}

// ReplayJournal builds a journal from its entries (JSON objects in serial
// order, as Append received them). With a log it is open for writing: a
// new journal starts with its init entry, in doubt when earlier (who held
// this host's lock of the plan before, LockRequest.Earlier) shows the plan
// ran here before. Every entry must read: a store that writes whole rows
// has no torn last line to forgive.
func ReplayJournal(entries [][]byte, log JournalLog, earlier LockOwner) (*Journal, error) {
	j := newJournal(log)
	j.fresh = len(entries) == 0
	for i, b := range entries {
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i+1, err)
		}
		j.apply(e)
	}
	if log != nil {
		if err := j.begin(earlier); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// begin gives a journal with no lineage yet its lineage and init entry.
// A new journal on a host that ran the plan before (earlier) is a lost
// one: a create may have been in flight when it was lost, and lands after
// a single look-up finds nothing. Its init entry says so, in the same
// write, so every label is in doubt until a run settles it.
func (j *Journal) begin(earlier LockOwner) error {
	if j.lineage != "" {
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	j.lineage = hex.EncodeToString(b[:])
	init := journalEntry{Op: opInit}
	if earlier.PID != 0 {
		init.Error = fmt.Sprintf("no journal of this plan was found, but %s ran it on this host", earlier)
	}
	return j.append(init)
}

// fileLog is a journal's local file: JSON lines, each fsync'd before the
// call it announces.
type fileLog struct{ f *os.File }

func (l *fileLog) Append(_ int64, entry []byte) error {
	if _, err := l.f.Write(append(entry, '\n')); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	return nil
}

func (l *fileLog) Close() error { return l.f.Close() }

// BadJournalError is a local journal betplan refuses to use: a line that
// does not read with complete records after it (not a torn last write but
// damage), or a journal that is not a regular file. Nothing is done and no
// report is written: what the plan created cannot be known from it.
type BadJournalError struct {
	Path   string
	Line   int // 0 when the file as a whole is refused
	Reason string
}

func (e *BadJournalError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("journal %s: %s; betplan cannot tell what this plan created, so it did nothing and left the reports as they were. "+
		"Restore the journal from a backup, or move it aside (keep it) and run again: a run with no journal looks every bet up on the service by label before creating it", where, e.Reason)
}

// readJournalFile reads a local journal, refusing anything but a regular
// file: a journal that is a symbolic link could make two plans share one,
// or write a plan's journal where the user never meant it to be.
func readJournalFile(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &BadJournalError{Path: path, Reason: fmt.Sprintf("it is a %s, not a regular file (replace it with the file it points at)", fileKind(fi.Mode()))}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// OpenJournal opens (or creates) the journal at path and replays it. A
// torn last write (a crash mid-append) is cut off before anything is
// appended, its bytes kept beside the journal; damage before the last
// complete record is a BadJournalError.
func OpenJournal(path string) (*Journal, error) { return openJournal(path, LockOwner{}) }

// openJournal is OpenJournal, a new journal in doubt when earlier shows
// the plan ran on this host before (begin).
func openJournal(path string, earlier LockOwner) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	j := newJournal(nil)
	data, err := readJournalFile(path)
	good := len(data)
	switch {
	case errors.Is(err, os.ErrNotExist):
		j.fresh = true
	case err != nil:
		return nil, journalReadError(err)
	default:
		if good, err = j.replay(path, data); err != nil {
			return nil, err
		}
	}
	if good < len(data) {
		kept, err := keepTorn(path, data[good:])
		if err != nil {
			return nil, fmt.Errorf("repair journal %s: keep its torn last write: %w", path, err)
		}
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, fmt.Errorf("repair journal %s: %w", path, err)
		}
		j.repaired = fmt.Sprintf("journal %s: cut off a torn last write (a crash mid-write; line %d), kept in %s", path, bytes.Count(data[:good], []byte{'\n'})+1, kept)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, journalReadError(fmt.Errorf("open journal: %w", err))
	}
	if good < len(data) {
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair journal %s: %w", path, err)
		}
	}
	j.log = &fileLog{f: f}
	if err := j.begin(earlier); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// journalReadError is a BadJournalError for a journal that became a
// symbolic link between the check and the open.
func journalReadError(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return &BadJournalError{Path: pe.Path, Reason: "it is a symbolic link, not a regular file (replace it with the file it points at)"}
		}
	}
	if _, ok := err.(*BadJournalError); ok {
		return err
	}
	return fmt.Errorf("read journal: %w", err)
}

// keepTorn writes a torn last write beside the journal, durably, before
// the journal is cut: nothing betplan read is ever thrown away.
func keepTorn(path string, torn []byte) (string, error) {
	kept := fmt.Sprintf("%s.torn-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	f, err := os.OpenFile(kept, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(torn); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return kept, f.Close()
}

// ReadJournal replays a journal without opening it for writing; a missing
// journal reads as empty. A torn last write is skipped, not repaired: the
// run that next takes the lock repairs it.
func ReadJournal(path string) (*Journal, error) {
	j := newJournal(nil)
	data, err := readJournalFile(path)
	if errors.Is(err, os.ErrNotExist) {
		j.fresh = true
		return j, nil
	}
	if err != nil {
		return nil, journalReadError(err)
	}
	if _, err := j.replay(path, data); err != nil {
		return nil, err
	}
	return j, nil
}

// replay applies the complete records of a local journal and returns where
// they end. Every record was written with its newline in one write and
// made durable before the call it announces, so a last line that does not
// read, or has no newline, is a write torn by a crash and announced
// nothing: it is left out (the caller cuts it off). A line that does not
// read with a record after it is damage: BadJournalError.
func (j *Journal) replay(path string, data []byte) (int, error) {
	type bad struct {
		line, start int
		err         error
	}
	var torn *bad
	line, good := 0, 0
	for off := 0; off < len(data); {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		complete := end >= 0
		if complete {
			end += off + 1
		} else {
			end = len(data)
		}
		b := bytes.TrimSpace(data[off:end])
		start := off
		off = end
		if len(b) == 0 {
			if torn == nil && complete {
				good = end
			}
			continue
		}
		if torn != nil {
			return good, &BadJournalError{Path: path, Line: torn.line, Reason: fmt.Sprintf("the line does not read (%v) and more follow it", torn.err)}
		}
		var e journalEntry
		err := json.Unmarshal(b, &e)
		if !complete && err == nil {
			err = errors.New("no newline: the write never completed")
		}
		if err != nil {
			torn = &bad{line: line, start: start, err: err}
			continue
		}
		j.apply(e)
		good = end
	}
	return good, nil
}

func (j *Journal) apply(e journalEntry) {
	if e.Lineage != "" && j.lineage == "" {
		j.lineage = e.Lineage
	}
	if e.Serial > j.serial {
		j.serial = e.Serial
	}
	switch e.Op {
	case opInit:
		j.doubt = e.Error
	case opSettled:
		j.doubt, j.settled = "", true
	}
	if len(e.Tips) > 0 {
		j.applyPub(e)
		return
	}
	if e.Label == "" {
		return
	}
	j.changes = append(j.changes, labelChange{e.Serial, e.Label})
	s := j.labels[e.Label]
	if s == nil {
		s = &labelState{}
		j.labels[e.Label] = s
		j.order = append(j.order, e.Label)
	}
	if e.BetID != "" {
		s.BetID = e.BetID
	}
	if e.Race != nil {
		s.Race = *e.Race
	}
	if e.Amount != 0 {
		s.Amount = e.Amount
	}
	if e.AtRisk != 0 {
		s.AtRisk, s.Basis = e.AtRisk, e.Basis
	}
	switch e.Op {
	case opCreating:
		s.Pending = true
		s.Attempts++
		s.Failed = ""
	case opCreated, opAdopted:
		s.Pending = false
		s.NotificationID = e.NotificationID
	case opAbsent:
		s.Pending = false
	case opFailed:
		s.Pending = false
		s.Failed = e.Error
	case opCanceled:
		s.Canceled = true
	}
}

// append hands one entry to the log and applies it once it is durable.
func (j *Journal) append(e journalEntry) error {
	e.Serial = j.serial + 1
	e.Lineage = j.lineage
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := j.log.Append(e.Serial, b); err != nil {
		return err
	}
	j.apply(e)
	return nil
}

// Record appends an entry (safe for concurrent use).
func (j *Journal) Record(e journalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.log == nil {
		return errors.New("journal is read-only")
	}
	return j.append(e)
}

// State returns what the journal knows of a label, or nil.
func (j *Journal) State(label string) *labelState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.labels[label]; ok {
		c := *s
		return &c
	}
	return nil
}

// labelEntry is a label and what the journal knows of it.
type labelEntry struct {
	label string
	labelState
}

// states returns what the journal knows of every label, in first-seen
// order, under one lock.
func (j *Journal) states() []labelEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]labelEntry, 0, len(j.order))
	for _, l := range j.order {
		out = append(out, labelEntry{l, *j.labels[l]})
	}
	return out
}

type labelChange struct {
	serial int64
	label  string
}

// changedSince returns what the journal knows of each label an entry after
// serial changed, in the order they changed.
func (j *Journal) changedSince(serial int64) []labelEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	i := sort.Search(len(j.changes), func(i int) bool { return j.changes[i].serial > serial })
	var out []labelEntry
	seen := map[string]bool{}
	for _, c := range j.changes[i:] {
		if !seen[c.label] {
			seen[c.label] = true
			out = append(out, labelEntry{c.label, *j.labels[c.label]})
		}
	}
	return out
}

// Labels returns the labels the journal knows, in first-seen order.
func (j *Journal) Labels() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.order...)
}

// Serial is the number of the last entry; a saved plan remembers it.
func (j *Journal) Serial() int64 { j.mu.Lock(); defer j.mu.Unlock(); return j.serial }

// Lineage identifies this journal across runs.
func (j *Journal) Lineage() string { return j.lineage }

// Repaired says what opening the journal cut off (a torn last write), or
// "".
func (j *Journal) Repaired() string { return j.repaired }

// inDoubt says why every label of the plan is in doubt, or "".
func (j *Journal) inDoubt() string { j.mu.Lock(); defer j.mu.Unlock(); return j.doubt }

// Fresh reports whether the journal did not exist before this run.
func (j *Journal) Fresh() bool { return j.fresh }

// Committed returns the amount and count of bets created (or possibly
// created: a pending create counts until proven absent), for limits.
func (j *Journal) Committed() (amount float64, count int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, s := range j.labels {
		if (s.created() || s.Pending) && !s.Canceled {
			amount += s.Amount
			count++
		}
	}
	return roundCents(amount), count
}

// Close closes the journal's log.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.log == nil {
		return nil
	}
	err := j.log.Close()
	j.log = nil
	return err
}

var _ io.Closer = (*Journal)(nil)
