package budget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// File is an account's budget shared by the processes of one host: the
// TAT, as Unix nanoseconds in a small file, read and moved under a file
// lock beside it. One request costs one lock of the file.
type File struct {
	path  string
	every time.Duration
	rps   float64
	say   func(string)

	mu   sync.Mutex // one goroutine of this process at a time holds the lock
	lock *flock.Flock
	data *os.File
	fb   fallback
}

// FilePath is where the budget of acct lives in dir.
func FilePath(dir string, acct Account) string {
	return filepath.Join(dir, "budget-"+acct.key()+".tat")
}

// NewFile is acct's budget of rps requests per second kept in dir. When
// the file cannot be used, now or later, the process keeps to half the
// rate by itself for the rest of the run and says so once through say.
func NewFile(dir string, acct Account, rps float64, say func(string)) *File {
	b := &File{path: FilePath(dir, acct), every: interval(rps), rps: rps, say: say}
	if err := b.open(); err != nil {
		b.fail(err)
	}
	return b
}

func (b *File) open() error {
	if err := os.MkdirAll(filepath.Dir(b.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(b.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	b.data = f
	// The lock is a file of its own: where locks are mandatory (Windows),
	// a locked file cannot be read through another handle.
	b.lock = flock.New(strings.TrimSuffix(b.path, ".tat") + ".lock")
	return nil
}

// fail falls back: the other processes of the host may still share the
// file, so this one takes half the rate at most.
func (b *File) fail(err error) {
	b.fb.engage(b.rps/2, staggered(time.Now(), b.rps/2), b.say, fmt.Sprintf("request budget: %s cannot be used (%v): "+
		"this run keeps to %s/s by itself until it ends, half the account's %s/s",
		b.path, err, formatRate(b.rps/2), formatRate(b.rps)))
}

// Wait takes the account's next free slot and waits for it.
func (b *File) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l := b.fb.limiter(); l != nil {
		return l.Wait(ctx)
	}
	slot, err := b.reserve(ctx, time.Now())
	if err != nil {
		if err == errPastDeadline {
			return err
		}
		b.fail(err)
		return b.fb.limiter().Wait(ctx)
	}
	return sleepUntil(ctx, slot)
}

// reserve moves the TAT past the slot it returns, under the file's lock.
func (b *File) reserve(ctx context.Context, now time.Time) (time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.lock.Lock(); err != nil {
		return time.Time{}, err
	}
	defer b.lock.Unlock()
	tat, err := b.read()
	if err != nil {
		return time.Time{}, err
	}
	slot := now
	if tat.After(now) && tat.Sub(now) < staleAfter(b.every) {
		slot = tat
	}
	if pastDeadline(ctx, slot) {
		return time.Time{}, errPastDeadline
	}
	if err := b.write(slot.Add(b.every)); err != nil {
		return time.Time{}, err
	}
	return slot, nil
}

// tatWidth is the TAT's width in the file: Unix nanoseconds, zero-padded,
// so every write covers the last one.
const tatWidth = 19

func (b *File) read() (time.Time, error) {
	var buf [tatWidth + 1]byte
	n, err := b.data.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return time.Time{}, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(buf[:n])), 10, 64)
	if err != nil {
		return time.Time{}, nil // new, or unreadable: start again from now
	}
	return time.Unix(0, ns), nil
}

func (b *File) write(tat time.Time) error {
	_, err := b.data.WriteAt(fmt.Appendf(nil, "%0*d\n", tatWidth, tat.UnixNano()), 0)
	return err
}

// Close lets the file go.
func (b *File) Close() error {
	if b.data == nil {
		return nil
	}
	return b.data.Close()
}
