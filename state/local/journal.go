package local

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/betplan/betplan/state"
)

// FileLog is a plan's journal file: one JSON object a line, each written
// with its newline in one write and fsync'd before Append returns.
type FileLog struct {
	f        *os.File
	records  [][]byte
	repaired string
}

// Records are the journal's complete records, as read when it was opened.
func (l *FileLog) Records() [][]byte { return l.records }

// Repaired says what opening the journal cut off, or "".
func (l *FileLog) Repaired() string { return l.repaired }

// Append writes one record and its newline, and syncs them. A record over
// state.MaxRecord is refused before anything is written.
func (l *FileLog) Append(_ int64, record []byte) error {
	if err := state.CheckRecord(record); err != nil {
		return err
	}
	if _, err := l.f.Write(append(record, '\n')); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *FileLog) Close() error { return l.f.Close() }

// OpenLog opens (or creates) the journal at path for appending. A torn
// last write (a crash mid-append) is cut off first, its bytes kept beside
// the journal; damage before the last complete record is a
// state.BadJournalError.
func OpenLog(path string) (*FileLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	l := &FileLog{}
	j, err := readJournalFile(path, l.keep)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, journalReadError(err)
	}
	if j.good < j.size {
		kept, err := keepTorn(path, j.tail)
		if err != nil {
			return nil, fmt.Errorf("repair journal %s: keep its torn last write: %w", path, err)
		}
		if err := os.Truncate(path, j.good); err != nil {
			return nil, fmt.Errorf("repair journal %s: %w", path, err)
		}
		l.repaired = fmt.Sprintf("journal %s: cut off a torn last write (a crash mid-write; line %d), kept in %s", path, j.goodLines+1, kept)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|oNoFollow, 0o644)
	if err != nil {
		return nil, journalReadError(fmt.Errorf("open journal: %w", err))
	}
	if j.good < j.size {
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair journal %s: %w", path, err)
		}
	}
	l.f = f
	return l, nil
}

// ReadLog reads the journal's complete records without opening it for
// writing; a missing journal has none. A torn last write is skipped, not
// repaired: the run that next takes the lock repairs it.
func ReadLog(path string) ([][]byte, error) {
	var l FileLog
	if err := EachRecord(path, l.keep); err != nil {
		return nil, err
	}
	return l.records, nil
}

// keep keeps a copy of a record read.
func (l *FileLog) keep(record []byte) error {
	l.records = append(l.records, bytes.Clone(record))
	return nil
}

// EachRecord hands the journal's complete records to record one at a
// time, in order, without opening it for writing and holding no more than
// a record of it: a record's bytes are valid only during the call. A
// missing journal has none; a torn last write is skipped, not repaired.
// Damage (a state.BadJournalError) is found only where it is, so records
// before it have been handed on when it is returned.
func EachRecord(path string, record func([]byte) error) error {
	_, err := readJournalFile(path, record)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return journalReadError(err)
	}
	return nil
}

// journalFile is what reading a journal file found.
type journalFile struct {
	good      int64  // where its complete records end
	goodLines int    // the lines up to good
	tail      []byte // what follows good: a torn last write
	size      int64  // the file's length
}

// scanJournal cuts a journal file into its complete records, one line at
// a time, never holding more than state.MaxRecord of a line. Every record
// was written with its newline in one write and made durable before the
// call it announces, so a last line that is not a JSON object, or has no
// newline, is a write torn by a crash and announced nothing: it is left
// out (OpenLog cuts it off). A line that is not one with a record after
// it is damage: state.BadJournalError. So is a line over the bound,
// wherever it is: no betplan writes one, and it is not read whole.
// Each complete record is handed to record as soon as it is read; its
// bytes are the reader's buffer, valid only during the call.
func scanJournal(path string, r io.Reader, record func([]byte) error) (j journalFile, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	tornLine := 0
	var tornErr error
	line := 0
	for {
		raw, complete, over, err := readLine(br)
		if err != nil {
			return j, err
		}
		if len(raw) == 0 && !over {
			return j, nil
		}
		line++
		if over {
			return j, &state.BadJournalError{Path: path, Line: line, Reason: fmt.Sprintf("the line is longer than any record betplan writes (%d bytes at most)", state.MaxRecord)}
		}
		j.size += int64(len(raw))
		b := bytes.TrimSpace(raw)
		if len(b) == 0 {
			if tornLine == 0 && complete {
				j.good, j.goodLines, j.tail = j.size, line, nil
			} else {
				j.tail = append(j.tail, raw...)
			}
			continue
		}
		if tornLine != 0 {
			return j, &state.BadJournalError{Path: path, Line: tornLine, Reason: fmt.Sprintf("the line does not read (%v) and more follow it", tornErr)}
		}
		var whyNot error
		switch {
		case !complete:
			whyNot = errors.New("no newline: the write never completed")
		case !validJSON(b) || b[0] != '{':
			var v map[string]any
			if whyNot = json.Unmarshal(b, &v); whyNot == nil {
				whyNot = errors.New("not a JSON object")
			}
		}
		if whyNot != nil {
			// Only what follows the last good record is kept as the tail:
			// a good record's bytes are not copied a second time.
			j.tail = append(j.tail, raw...)
			tornLine, tornErr = line, whyNot
			continue
		}
		if err := record(b); err != nil {
			return j, err
		}
		j.good, j.goodLines, j.tail = j.size, line, nil
	}
}

// readLine reads one line and its newline (complete), or what is left of
// the file; over says the line runs past state.MaxRecord, and then the
// rest of it is not read. A line that fits the reader's buffer is not
// copied: raw is then valid until the next read.
func readLine(br *bufio.Reader) (raw []byte, complete, over bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(raw)+len(chunk) > state.MaxRecord+2 { // the record, a CR and its newline
			return nil, false, true, nil
		}
		if raw == nil && !errors.Is(err, bufio.ErrBufferFull) {
			raw = chunk
		} else {
			raw = append(raw, chunk...)
		}
		switch {
		case err == nil:
			return raw, true, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return raw, false, false, nil
		default:
			return nil, false, false, err
		}
	}
}

// readJournalFile reads a local journal, refusing anything but a regular
// file: a journal that is a symbolic link could make two plans share one,
// or write a plan's journal where the user never meant it to be.
func readJournalFile(path string, record func([]byte) error) (journalFile, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return journalFile{}, err
	}
	if !fi.Mode().IsRegular() {
		return journalFile{}, &state.BadJournalError{Path: path, Reason: fmt.Sprintf("it is a %s, not a regular file (replace it with the file it points at)", fileKind(fi.Mode()))}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return journalFile{}, err
	}
	defer f.Close()
	return scanJournal(path, f, record)
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

// journalReadError is a BadJournalError for a journal that became a
// symbolic link between the check and the open.
func journalReadError(err error) error {
	var bad *state.BadJournalError
	if errors.As(err, &bad) {
		return err
	}
	var pe *os.PathError
	if errors.Is(err, syscall.ELOOP) && errors.As(err, &pe) {
		return &state.BadJournalError{Path: pe.Path, Reason: "it is a symbolic link, not a regular file (replace it with the file it points at)"}
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
