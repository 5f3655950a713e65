package postgres_test

import (
	"testing"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/statetest"
)

func TestConformance(t *testing.T) {
	statetest.RunTests(t, func(t *testing.T) state.Store {
		s, _, _ := newStore(t)
		return s
	})
}

func TestOutcomeCacheConformance(t *testing.T) {
	statetest.RunOutcomeCacheTests(t, func(t *testing.T) state.OutcomeCache {
		s, _, _ := newStore(t)
		return s
	})
}

// As main runs it: this host's lock file first, then the database's lock.
func TestConformanceUnderTheHostLock(t *testing.T) {
	statetest.RunTests(t, func(t *testing.T) state.Store {
		s, _, _ := newStore(t)
		return local.HostLocked(local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}, s)
	})
}
