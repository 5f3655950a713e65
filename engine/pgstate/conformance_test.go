package pgstate_test

import (
	"testing"

	"github.com/betplan/betplan/engine/state"
	"github.com/betplan/betplan/engine/state/statetest"
)

func TestConformance(t *testing.T) {
	statetest.RunTests(t, func(t *testing.T) state.Store {
		s, _, _ := newStore(t)
		return s
	})
}
