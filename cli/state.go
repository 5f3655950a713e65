package cli

import (
	"errors"
	"fmt"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
)

// rawURL is the shared state's URL as configured: flag > environment.
func (s *stateOptions) rawURL(sys *sysIO) string {
	if s.URL != "" {
		return s.URL
	}
	return sys.Getenv("BETPLAN_STATE")
}

// store is the one place that chooses where a plan's journal and lock
// live: the local files of layout, or the database --state names, whose
// runs also take this host's lock file first (a run with --state and one
// without, on one machine, meet at that lock).
func (s *stateOptions) store(sys *sysIO, insecure bool, layout local.Layout) (state.Store, error) {
	shared, err := s.sharedStore(sys, insecure)
	if err != nil {
		return nil, err
	}
	return storeFor(layout, shared), nil
}

// storeFor is a plan's store: its local files, or the shared one behind
// this host's lock file.
func storeFor(layout local.Layout, shared state.Store) state.Store {
	if shared == nil {
		return local.Store{Layout: layout}
	}
	return local.HostLocked(layout, shared)
}

// rehearsalStore is where a rehearsal keeps its state: the local files of
// its own layout (sim/ in the state dir), never a shared state.
func rehearsalStore(layout local.Layout) state.Store { return local.Store{Layout: layout} }

// scratchState is a layout nothing has written to, and its store, for a
// preview against a simulated world that has no history.
func scratchState(layout local.Layout) (local.Layout, state.Store) {
	scratch := layout.Scratch()
	return scratch, rehearsalStore(scratch)
}

// sharedStore is the database --state names, or nil for none. A URL
// betplan cannot use is a usage error that never shows its password.
func (s *stateOptions) sharedStore(sys *sysIO, insecure bool) (state.Store, error) {
	raw := s.rawURL(sys)
	if raw == "" {
		if s.Schema != "" {
			return nil, usagef("--state-schema needs --state (or BETPLAN_STATE)")
		}
		return nil, nil
	}
	cfg, err := postgres.ParseURL(raw, s.Schema, insecure)
	if err != nil {
		var ue *postgres.URLError
		if errors.As(err, &ue) {
			return nil, usagef("%v", ue)
		}
		return nil, err
	}
	return postgres.New(cfg), nil
}

// rehearsalNote says, once, that a rehearsal keeps its state to itself
// even though a shared state is configured.
func (s *stateOptions) rehearsalNote(sys *sysIO) {
	if s.rawURL(sys) != "" {
		fmt.Fprintf(sys.Stderr, "rehearsal: the shared state is not used; the simulated world keeps its own\n")
	}
}
