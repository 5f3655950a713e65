// Package budget keeps an account's request budget (--max-rps) where every
// process that spends it sees it: a file under a lock for the processes of
// one host, a row of a PostgreSQL database for those of every machine.
// Both are GCRA: the state is the account's theoretical arrival time (TAT),
// the earliest moment the next request may leave, and each request takes
// the slot max(TAT, now) and moves TAT one interval past it, in one step.
package budget

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Account is whose budget a request spends: the service (its base URL in
// apiclient.ServiceIdentity's form) and the account on it, as far as
// betplan can tell.
type Account struct {
	BaseURL string
	// Name is the account on the service: the token's username claim
	// (this service's login e-mail), else its user_id; the login e-mail
	// when there is no token; "" when nothing says, and then every
	// account of the service shares one budget.
	Name string
}

// AccountOf is the account a token (or, without one, the login e-mail)
// belongs to on the service at baseURL.
func AccountOf(baseURL, token, email string) Account {
	a := Account{BaseURL: baseURL}
	if token != "" {
		if c, err := apiclient.ParseTokenClaims(token); err == nil {
			switch {
			case c.Username != "":
				a.Name = strings.ToLower(c.Username)
			case c.UserID != "":
				a.Name = "user_id " + c.UserID
			}
		}
		return a
	}
	a.Name = strings.ToLower(strings.TrimSpace(email))
	return a
}

func (a Account) String() string {
	if a.Name == "" {
		return a.BaseURL
	}
	return a.Name + " on " + a.BaseURL
}

// key names the account in a file name, without showing who it is.
func (a Account) key() string {
	h := sha256.Sum256([]byte(a.BaseURL + "\x00" + a.Name))
	return hex.EncodeToString(h[:])[:16]
}

// interval is the time one request takes of a budget of rps per second.
func interval(rps float64) time.Duration {
	if !(rps > 0) || math.IsInf(rps, 0) {
		return 0
	}
	return time.Duration(float64(time.Second) / rps)
}

// staleAfter bounds how far ahead a TAT may be: a waiting request takes
// one slot, so a TAT further ahead than any queue could make is a clock
// that went back, and is read as now.
func staleAfter(every time.Duration) time.Duration {
	return max(time.Minute, 1024*every)
}

// sleepUntil waits until slot by the wall clock, or until ctx is done.
func sleepUntil(ctx context.Context, slot time.Time) error {
	return apiclient.Sleep(ctx, time.Until(slot))
}

// pastDeadline says whether ctx would end before slot: the request could
// not be sent in time, so it should not take the slot.
func pastDeadline(ctx context.Context, slot time.Time) bool {
	dl, ok := ctx.Deadline()
	return ok && slot.After(dl)
}

// errPastDeadline is a wait for a slot that would outlast the call's
// deadline.
var errPastDeadline = fmt.Errorf("the next free slot is past the call's deadline: %w", context.DeadlineExceeded)

// fallback is the budget a process keeps to alone when the shared one is
// out of reach: its share of the account's rate, in process, said once
// each time it is engaged. A store that can come back (the database) tries
// it again every SharedRetry (due) and, once it answers, ends the fallback
// (recover); for one more SharedRetry the process keeps its share's pace
// as well as the store's (grace), so that peers still on their own share
// and this one back on the store never add up past the rate.
type fallback struct {
	lim atomic.Pointer[pace]

	mu         sync.Mutex
	retryAt    time.Time // when to try the shared store again
	grace      *pace     // the pace kept after recover, until graceUntil
	graceUntil time.Time
}

// SharedRetry is how often a process that fell back tries the shared
// budget's store again, and how long it keeps its share's pace after the
// store answers again.
var SharedRetry = 30 * time.Second

// engage switches to rps, its first request no sooner than start, until
// recover; only the first call since the last recover counts, and it is
// the only one that says msg.
func (f *fallback) engage(rps float64, start time.Time, say func(string), msg string) {
	if f.lim.CompareAndSwap(nil, &pace{every: interval(rps), tat: start}) {
		f.mu.Lock()
		f.retryAt = time.Now().Add(SharedRetry)
		f.mu.Unlock()
		if say != nil {
			say(msg)
		}
	}
}

// limiter is the fallback's pace once engaged, else nil.
func (f *fallback) limiter() *pace { return f.lim.Load() }

// due says whether the shared store should be tried again now: engaged,
// and SharedRetry since it was last tried. One caller per period is told
// yes.
func (f *fallback) due() bool {
	if f.lim.Load() == nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if now.Before(f.retryAt) {
		return false
	}
	f.retryAt = now.Add(SharedRetry)
	return true
}

// recover ends the fallback, the store having answered again, and says
// msg; its pace is kept as the grace for SharedRetry more.
func (f *fallback) recover(say func(string), msg string) {
	l := f.lim.Load()
	if l == nil {
		return
	}
	f.mu.Lock()
	f.grace, f.graceUntil = l, time.Now().Add(SharedRetry)
	f.mu.Unlock()
	if f.lim.CompareAndSwap(l, nil) && say != nil {
		say(msg)
	}
}

// gracePace is the fallback's pace still to keep after recover, else nil.
func (f *fallback) gracePace() *pace {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.grace != nil && !time.Now().Before(f.graceUntil) {
		f.grace = nil
	}
	return f.grace
}

// pace is GCRA within one process.
type pace struct {
	every time.Duration
	mu    sync.Mutex
	tat   time.Time
}

// Wait takes the next free slot and waits for it.
func (p *pace) Wait(ctx context.Context) error {
	p.mu.Lock()
	slot := later(p.tat, time.Now())
	if pastDeadline(ctx, slot) {
		p.mu.Unlock()
		return errPastDeadline
	}
	p.tat = slot.Add(p.every)
	p.mu.Unlock()
	return sleepUntil(ctx, slot)
}

// staggered is a fallback's first slot: one share's interval, and a random
// part of another, after after: the slots already taken in the shared
// budget go first, and processes that fell back together do not send
// together.
func staggered(after time.Time, share float64) time.Time {
	every := interval(share)
	return later(after, time.Now()).Add(every + time.Duration(rand.Int64N(int64(every)+1)))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func formatRate(rps float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", rps), "0"), ".")
}
