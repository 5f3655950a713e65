package state

import (
	"context"
	"fmt"
	"time"
)

// Leaders keeps each account's leadership: the one process (a `betplan
// serve`) that acts for the account while others stand by. A leader holds
// a lease the store times by its own clock; a standby takes the account
// over once the lease has run out, and every take-over moves the account's
// fence on. A plan's lease taken under a leadership (LockRequest.Leader)
// appends only while that fence is still the account's, so a leader that
// was paused or cut off writes nothing once another has taken over.
type Leaders interface {
	// Lead takes the account's leadership when nobody holds it or its
	// lease has run out, or renews it when req.Fence is the term this
	// process holds (even a term whose lease ran out, while no one took
	// it over). The answer says who leads now: Leading is false when
	// another process does, or when req.Fence was taken over.
	Lead(ctx context.Context, req LeadRequest) (Term, error)
	// Leader reads who leads the account, without campaigning; nil when
	// nobody ever did.
	Leader(ctx context.Context, account string) (*Term, error)
	// Resign ends term's lease now, so a standby takes over at once; a
	// term that is no longer the account's is left alone.
	Resign(ctx context.Context, term Term) error
}

// LeadRequest asks for an account's leadership, or renews it.
type LeadRequest struct {
	// Account names the account: the service's identity and the account
	// on it.
	Account string
	Owner   LockOwner
	// Instance names this process among every process that may lead the
	// account (a random id per process): a process restarted is another.
	Instance string
	// TTL is how long the lease lasts from now, by the store's clock.
	TTL time.Duration
	// Fence is the term this process holds, to renew it; 0 to campaign.
	Fence int64
}

// Term is one leadership of an account: who holds it, its fence, and how
// long its lease has left.
type Term struct {
	Account  string
	Fence    int64
	Owner    LockOwner
	Instance string
	// Since is when the term began, and Left how long its lease had left
	// when it was read, both by the store's clock (≤ 0: run out).
	Since time.Time
	Left  time.Duration
	// Leading says the request's process holds the term.
	Leading bool
}

func (t Term) String() string {
	return fmt.Sprintf("term %d of %s", t.Fence, t.Owner)
}

// LeaderFence is the leadership a plan's lease is taken under: its
// appends land only while Fence is still Account's.
type LeaderFence struct {
	Account string
	Fence   int64
}

// StaleFence is the reason a lease under a leadership lost its lock:
// another process took the account over.
func StaleFence(f LeaderFence) *LockLostError {
	return &LockLostError{Reason: fmt.Sprintf("another process leads the account now (this process's term %d was taken over)", f.Fence)}
}

// LeadersOf is s's leadership store, when it keeps one.
func LeadersOf(s Store) (Leaders, bool) {
	l, ok := s.(Leaders)
	return l, ok
}
