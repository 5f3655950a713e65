// Package state is the contract of a plan's saved state: a lock per plan
// and service, held by one run at a time, under which the plan's journal
// is a fenced log of records (each a JSON object, as bytes), and a stop
// mark. What the records mean is the engine's business; where they live
// is a store's: the local files (package local) or a database shared by
// every machine (package postgres). Neither imports the engine.
package state

import (
	"context"
	"fmt"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Store keeps each plan's journal, lock and stop mark.
type Store interface {
	// Lock takes the plan's lock, waiting up to req.Timeout while another
	// run holds it, and opens the plan's journal for appending under it.
	Lock(ctx context.Context, req LockRequest) (Lease, error)
	// ReadLog reads the plan's records without its lock; a plan with no
	// journal yet has none.
	ReadLog(ctx context.Context, key PlanKey) ([][]byte, error)
	// Unlock clears the plan's lock and returns its last holder: a stale
	// one, or with force a live one, which is fenced off first.
	Unlock(ctx context.Context, key PlanKey, force bool) (LockOwner, error)
	// SetStop sets the plan's stop mark, or clears it with a nil mark:
	// while it is set, no run of the plan creates anything.
	SetStop(ctx context.Context, key PlanKey, mark *StopMark) error
	// ReadStop reads the plan's stop mark; nil when there is none.
	ReadStop(ctx context.Context, key PlanKey) (*StopMark, error)
	// Holder reads who holds the plan's lock now, without taking it,
	// probing it or waiting for it: a run that asks for the lock while
	// Holder looks gets it as if nobody had looked. nil when no run holds
	// it; ErrHolderUnknown where the store cannot tell on this platform.
	Holder(ctx context.Context, key PlanKey) (*LockOwner, error)
	// ReadAccount reads, without any lock, the records of every plan
	// that shares the store on service, the plan's account: each plan
	// once, by name. A store where nothing was kept has none.
	ReadAccount(ctx context.Context, service string) ([]PlanLog, error)
	// String names the store in messages, never with a password.
	String() string
}

// Lease is a plan's lock held by this process and the log it guards.
type Lease interface {
	Log
	// Earlier is who held this host's lock of the plan before this run
	// (LockRequest.Earlier): a new journal under it is a lost one.
	Earlier() LockOwner
	// Repaired says what opening the log cut off (a torn last write), or
	// "".
	Repaired() string
	// Lost is closed once the lock is lost (its connection died, or
	// another run took it over); Err then says why. A run must create
	// nothing more.
	Lost() <-chan struct{}
	Err() error
	// Stopped reads the plan's stop mark through the lock; nil when the
	// plan may go on creating.
	Stopped() (*StopMark, error)
	// Release closes the log and gives the lock up.
	Release() error
	// AppendGated appends record as Append does, under the account's gate
	// named gate: the other plans sharing the store on the lease's service
	// are read under it and handed to check, and the record is appended
	// only when check returns nil (its error is returned as is, with
	// nothing appended). Two leases of one store that pass one gate take
	// turns from the read to the record's durability, whatever machine
	// they run on, so a total read there cannot be passed by a record
	// another plan appends meanwhile. ctx bounds the wait for the gate.
	AppendGated(ctx context.Context, gate string, serial int64, record []byte, check func(others []PlanLog) error) error
}

// PlanLog is one plan's records as the store keeps them.
type PlanLog struct {
	Name    string
	Records [][]byte
}

// Log is a plan's journal as a store keeps it: records in order, each
// appended durably, and only while the lock is held (fenced).
type Log interface {
	// Records are the plan's records, in serial order, as read when the
	// lock was taken: each one whole (a torn last write is never one).
	Records() [][]byte
	// Append makes one record durable before it returns, or fails with
	// LockLostError once the lock is lost. record is a JSON object; serial
	// numbers it within the plan's journal (1, 2, ...).
	Append(serial int64, record []byte) error
}

// PlanKey names one plan's state: its name and the service it runs
// against. BaseURL is as the user configured it (normalised); the state is
// keyed by Service, the one name of that service however it is spelled.
type PlanKey struct {
	Name    string
	BaseURL string
}

// Service is the service's identity: every lock, journal key and stop mark
// of the plan is keyed by it, so two runs that spell one service two ways
// meet at one lock.
func (k PlanKey) Service() string { return ServiceIdentity(k.BaseURL) }

// ServiceIdentity is apiclient.ServiceIdentity, or the URL as given when
// it does not parse (it then names no service two spellings could share).
func ServiceIdentity(baseURL string) string {
	id, err := apiclient.ServiceIdentity(baseURL)
	if err != nil {
		return baseURL
	}
	return id
}

// LockOwner is who holds (or last held) a plan's lock, so a waiting run
// and `betplan unlock` can say who it is.
type LockOwner struct {
	PID      int       `json:"pid"`
	Host     string    `json:"host"`
	PlanFile string    `json:"plan_file"`
	Command  string    `json:"command"`
	Since    time.Time `json:"since"`
}

func (o LockOwner) String() string {
	if o.PID == 0 {
		return "an unknown process"
	}
	return fmt.Sprintf("pid %d on %s (%s %s, since %s)", o.PID, o.Host, o.Command, o.PlanFile, o.Since.Format(time.RFC3339))
}

// LockRequest asks for a plan's lock.
type LockRequest struct {
	PlanKey
	Owner   LockOwner
	Timeout time.Duration
	// Waiting, if set, is told who holds the lock when the request has to
	// wait for it.
	Waiting func(holder LockOwner)
	// Earlier is who held this host's lock of the plan before this request
	// (the lock file's owner, read before it is taken; set by the store
	// that takes it). A journal begun under it begins in doubt: this host
	// ran the plan before, so its journal was lost, maybe with a create
	// in flight.
	Earlier LockOwner
	// Leader, when set, is the account's leadership the lock is taken
	// under (a serving process's): each record appends only while its
	// fence is still the account's, else the lease is lost.
	Leader *LeaderFence
}

// StopMark is a plan's kill switch: while it is set, no run of the plan
// creates anything. It lives beside the plan's lock (the lock dir, or the
// shared state), so every run that could take the lock sees it.
type StopMark struct {
	At time.Time `json:"at"`
	By LockOwner `json:"by"`
}

func (m StopMark) String() string {
	return fmt.Sprintf("stopped by %s at %s", m.By.Command, m.At.UTC().Format(time.RFC3339))
}

// Intents is this host's note of the sends a plan has in flight against
// a service (creates, tip publishes, pre-alerts, alert attempts), kept
// where a restore of the state does not roll it back: beside the plan's
// lock in the user's cache dir. A send is noted before it is made and
// cleared once the journal holds its outcome, so a journal put back from
// an older copy cannot forget a create that may still land, nor send a
// tip or an alert again. Each note is a record (a JSON object) the engine
// gives meaning to, keyed by the bet's label for a create, by a key no
// label has for the others.
type Intents interface {
	// Notes are the notes kept, by key.
	Notes() (map[string][]byte, error)
	// Note keeps record under key, durably before it returns.
	Note(key string, record []byte) error
	// Clear drops key's note.
	Clear(key string) error
}

// IntentKeeper is a lease whose host keeps the plan's intents (a store
// that takes a lock file on this host).
type IntentKeeper interface {
	Intents() Intents
}

// MaxRecord bounds one journal record, in bytes: room for the records
// later betplans add (outcomes, kept skips, tips, alert bodies) many times
// over. A store never writes a longer one and refuses a longer one it
// reads, like a damaged record, without reading it whole.
const MaxRecord = 1 << 20

// RecordTooLongError is a record over MaxRecord, refused before it is
// written.
type RecordTooLongError struct{ Size int }

func (e *RecordTooLongError) Error() string {
	return fmt.Sprintf("a journal record of %d bytes is over the bound of %d: it was not written", e.Size, MaxRecord)
}

// CheckRecord refuses a record over MaxRecord.
func CheckRecord(record []byte) error {
	if len(record) > MaxRecord {
		return &RecordTooLongError{Size: len(record)}
	}
	return nil
}
