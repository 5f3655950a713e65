package budget_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/budget"
)

func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256"}`)) + "." + enc([]byte(payload)) + ".c2ln"
}

func TestAccountOf(t *testing.T) {
	const base = "https://api.example.com"
	tests := []struct {
		name, token, email, want string
	}{
		{"the token's username", jwt(`{"username":"Ann@Example.com","user_id":5}`), "", "ann@example.com on " + base},
		{"the token's user id", jwt(`{"user_id":5}`), "", "user_id 5 on " + base},
		{"a token that says nothing", jwt(`{"exp":1}`), "", base},
		{"an opaque token", "3f9a0c1d2e", "", base},
		{"the token wins over the e-mail", jwt(`{"username":"a@b.c"}`), "x@y.z", "a@b.c on " + base},
		{"the login e-mail", "", " Ann@Example.com ", "ann@example.com on " + base},
		{"nothing", "", "", base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, budget.AccountOf(base, tt.token, tt.email).String())
		})
	}
}

// The same account on one service shares one file; another account, or
// the same one on another service, has its own.
func TestFilePathIsPerAccount(t *testing.T) {
	a := budget.AccountOf("https://a.example", "", "x@y.z")
	assert.Equal(t, budget.FilePath("d", a), budget.FilePath("d", budget.AccountOf("https://a.example", jwt(`{"username":"X@Y.Z"}`), "")))
	assert.NotEqual(t, budget.FilePath("d", a), budget.FilePath("d", budget.AccountOf("https://b.example", "", "x@y.z")))
	assert.NotEqual(t, budget.FilePath("d", a), budget.FilePath("d", budget.AccountOf("https://a.example", "", "w@y.z")))
	assert.NotContains(t, budget.FilePath("d", a), "x@y.z", "the file name does not say whose it is")
}

// limiter is what apiclient waits on.
type limiter interface {
	Wait(ctx context.Context) error
}

// spend has every limiter send n requests, each from its own goroutine,
// all at once, and returns when each was let through, in order.
func spend(t *testing.T, lims []limiter, n int) []time.Time {
	t.Helper()
	var mu sync.Mutex
	var at []time.Time
	var wg sync.WaitGroup
	for _, l := range lims {
		for range n {
			wg.Go(func() {
				assert.NoError(t, l.Wait(context.Background()))
				mu.Lock()
				at = append(at, time.Now())
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	return at
}

// busiest is the most requests in any window of length d.
func busiest(at []time.Time, d time.Duration) int {
	most, j := 0, 0
	for i := range at {
		for at[i].Sub(at[j]) > d {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// Eight processes' budgets over one file let the account's rate through,
// not eight times it: separate File values hold separate locks of the
// file, as separate processes do.
func TestFileSharesTheRate(t *testing.T) {
	dir := t.TempDir()
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	var lims []limiter
	for range 8 {
		f := budget.NewFile(dir, acct, 20, func(msg string) { t.Errorf("fell back: %s", msg) })
		t.Cleanup(func() { f.Close() })
		lims = append(lims, f)
	}
	start := time.Now()
	at := spend(t, lims, 4) // 32 requests at 20/s: 1.55s at least
	assert.GreaterOrEqual(t, time.Since(start), 1500*time.Millisecond)
	assert.LessOrEqual(t, busiest(at, time.Second), 22, "requests in one second at 20/s")
}

// Another account on the same host has a budget of its own.
func TestFileAccountsAreApart(t *testing.T) {
	dir := t.TempDir()
	a := budget.NewFile(dir, budget.AccountOf("http://127.0.0.1:1", "", "a@b.c"), 2, nil)
	b := budget.NewFile(dir, budget.AccountOf("http://127.0.0.1:1", "", "d@e.f"), 2, nil)
	start := time.Now()
	spend(t, []limiter{a, b}, 1)
	assert.Less(t, time.Since(start), 250*time.Millisecond, "two accounts' first requests wait for nothing")
}

// A budget file that cannot be used leaves the process at half the rate,
// said once.
func TestFileFallsBackToHalf(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	var said []string
	var mu sync.Mutex
	f := budget.NewFile(blocker, budget.AccountOf("http://127.0.0.1:1", "", ""), 20, func(msg string) {
		mu.Lock()
		said = append(said, msg)
		mu.Unlock()
	})
	start := time.Now()
	at := spend(t, []limiter{f}, 12) // 12 at 10/s: 1.1s at least
	assert.GreaterOrEqual(t, time.Since(start), 1050*time.Millisecond)
	assert.LessOrEqual(t, busiest(at, time.Second), 11)
	require.Len(t, said, 1)
	assert.Contains(t, said[0], "keeps to 10/s by itself")
}

// A wait that would outlast the caller's deadline takes no slot.
func TestFileDeadline(t *testing.T) {
	f := budget.NewFile(t.TempDir(), budget.AccountOf("http://127.0.0.1:1", "", ""), 1, nil)
	require.NoError(t, f.Wait(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := f.Wait(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	start := time.Now()
	require.NoError(t, f.Wait(context.Background()))
	assert.Less(t, time.Since(start), 1100*time.Millisecond, "the refused wait took no slot")
}
