package local_test

import (
	"testing"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/statetest"
)

func TestConformance(t *testing.T) {
	statetest.RunTests(t, func(t *testing.T) state.Store {
		return local.Store{Layout: local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}}
	})
}

func TestOutcomeCacheConformance(t *testing.T) {
	statetest.RunOutcomeCacheTests(t, func(t *testing.T) state.OutcomeCache {
		return local.Store{Layout: local.Layout{Dir: t.TempDir(), LockDir: t.TempDir()}}
	})
}
