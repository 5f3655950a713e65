package engine

import (
	"bufio"
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
	// Alert is the alert an outbox entry is about (journal_alerts.go).
	Alert *journalAlert `json:"alert,omitempty"`
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
	order   []string             // labels in first-seen order
	fresh   bool                 // the journal did not exist before
	pubs    map[string]*pubState // tips and pre-alerts by key (tips.go)
	pubKeys []string             // their keys in first-seen order
	alerts  alertBook            // the outbox of alerts (journal_alerts.go)
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
// new journal starts with its init entry. Every entry must read: a store
// that writes whole rows has no torn last line to forgive.
func ReplayJournal(entries [][]byte, log JournalLog) (*Journal, error) {
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
		if err := j.begin(); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// begin gives a journal with no lineage yet its lineage and init entry.
func (j *Journal) begin() error {
	if j.lineage != "" {
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	j.lineage = hex.EncodeToString(b[:])
	return j.append(journalEntry{Op: opInit})
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

// OpenJournal opens (or creates) the journal at path and replays it.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	j := newJournal(nil)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		j.fresh = true
	case err != nil:
		return nil, fmt.Errorf("read journal: %w", err)
	default:
		if err := j.replay(data); err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
	}
	// A torn last line (a crash mid-write) is cut off before appending, or
	// the next entry would be glued to it and lost on the next replay.
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if err := os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1)); err != nil {
			return nil, fmt.Errorf("repair journal: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j.log = &fileLog{f: f}
	if err := j.begin(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// ReadJournal replays a journal without opening it for writing; a missing
// journal reads as empty.
func ReadJournal(path string) (*Journal, error) {
	j := newJournal(nil)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		j.fresh = true
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	if err := j.replay(data); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return j, nil
}

func (j *Journal) replay(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	line := 0
	var pendingErr error
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if pendingErr != nil {
			// A bad line followed by good ones is corruption, not a torn write.
			return pendingErr
		}
		var e journalEntry
		if err := json.Unmarshal(b, &e); err != nil {
			// A crash mid-write leaves a torn last line. Ignore it: the
			// entry before it still says what was announced. Only a bad
			// line with good ones after it is an error.
			pendingErr = fmt.Errorf("line %d: %v", line, err)
			continue
		}
		j.apply(e)
	}
	return sc.Err()
}

func (j *Journal) apply(e journalEntry) {
	if e.Lineage != "" && j.lineage == "" {
		j.lineage = e.Lineage
	}
	if e.Serial > j.serial {
		j.serial = e.Serial
	}
	if len(e.Tips) > 0 {
		j.applyPub(e)
		return
	}
	if e.Alert != nil {
		j.alerts.apply(e)
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
