package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/budget"
	"github.com/betplan/betplan/reporters"
	"github.com/betplan/betplan/state/postgres"
)

// requestBudget is the account's request budget (--max-rps) that this
// process spends with every other betplan process of the account: through
// the database of --state when there is one, else through a file in the
// user's cache dir beside the plans' locks. close lets it go. Its lines
// are stamped by the wall clock, as clock shows it.
func requestBudget(log io.Writer, clock func() reporters.Clock, service *serviceOptions, state *stateOptions, sys *sysIO, rawBase, token, email string) (lim apiclient.Limiter, close func()) {
	// Keyed like the plans' locks: one service however it is spelled.
	base, err := apiclient.ServiceIdentity(rawBase)
	if err != nil {
		base = rawBase // the client refuses it next, and says why
	}
	acct := budget.AccountOf(base, token, email)
	say := func(msg string) {
		fmt.Fprintf(log, "%s %s\n", clock().Stamp(time.Now()), msg)
	}
	rps := service.MaxRPS.Value
	local := budget.NewFile(budgetDir(), acct, rps, say)
	if state != nil {
		if raw := state.rawURL(sys); raw != "" {
			// A URL state/postgres refuses is refused as the shared state next,
			// before any request.
			if cfg, err := postgres.ParseURL(raw, state.Schema, service.Insecure); err == nil {
				if b, err := budget.NewPostgres(raw, cfg, acct, rps, say, local); err == nil {
					return b, func() { b.Close() }
				}
			}
		}
	}
	return local, func() { local.Close() }
}

// budgetDir is where a host's request budgets live: beside the plans'
// locks in the user's cache dir.
func budgetDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "betplan", "locks")
}

// budgetLog is where the request budget says it fell back and came back:
// stderr until a command sends its lines elsewhere (above a live line,
// or as the account's among several plans' lines).
type budgetLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *budgetLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// to sends the budget's lines to w from now on.
func (l *budgetLog) to(w io.Writer) {
	l.mu.Lock()
	l.w = w
	l.mu.Unlock()
}
