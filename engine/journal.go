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
	Race           *RaceInfo `json:"race,omitempty"`
	Attempt        int       `json:"attempt,omitempty"`
	Error          string    `json:"error,omitempty"`
}

// labelState is what the journal knows of one label.
type labelState struct {
	BetID          string
	Race           RaceInfo
	Amount         float64
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

// Journal is a plan's write-ahead log of creates: JSON lines, each fsync'd
// before the call it announces.
type Journal struct {
	mu      sync.Mutex
	path    string
	f       *os.File
	lineage string
	serial  int64
	labels  map[string]*labelState
	order   []string // labels in first-seen order
	fresh   bool     // the journal did not exist before
}

// OpenJournal opens (or creates) the journal at path and replays it.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	j := &Journal{path: path, labels: make(map[string]*labelState)}
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
	j.f = f
	if j.lineage == "" {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			f.Close()
			return nil, err
		}
		j.lineage = hex.EncodeToString(b[:])
		if err := j.append(journalEntry{Op: opInit}); err != nil {
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

// ReadJournal replays a journal without opening it for writing; a missing
// journal reads as empty.
func ReadJournal(path string) (*Journal, error) {
	j := &Journal{path: path, labels: make(map[string]*labelState)}
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
	if e.Label == "" {
		return
	}
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

// append writes one entry and fsyncs it before returning.
func (j *Journal) append(e journalEntry) error {
	j.serial++
	e.Serial = j.serial
	e.Lineage = j.lineage
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	j.apply(e)
	return nil
}

// Record appends an entry (safe for concurrent use).
func (j *Journal) Record(e journalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
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

// Close closes the journal file.
func (j *Journal) Close() error {
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

var _ io.Closer = (*Journal)(nil)
