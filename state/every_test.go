package state_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

func TestSideBySideReadsEachJournalOnce(t *testing.T) {
	var (
		mu      sync.Mutex
		got     = map[int]int{}
		workers = map[int]bool{}
		now     atomic.Int32
		most    atomic.Int32
	)
	require.NoError(t, state.SideBySide(200, func(w, i int) error {
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		mu.Lock()
		defer mu.Unlock()
		got[i]++
		workers[w] = true
		return nil
	}))
	require.Len(t, got, 200)
	for i, n := range got {
		assert.Equal(t, 1, n, "journal %d", i)
	}
	assert.LessOrEqual(t, int(most.Load()), runtime.GOMAXPROCS(0))
	for w := range workers {
		assert.Less(t, w, state.Workers(200))
	}
	assert.Equal(t, 1, state.Workers(1), "one journal, one reader")
	assert.Equal(t, 1, state.Workers(0))
}

// After an error no journal is begun: the reads under way end, and the
// error is the one returned.
func TestSideBySideStopsAtAnError(t *testing.T) {
	stop := errors.New("stop")
	var begun atomic.Int32
	err := state.SideBySide(1000, func(_, i int) error {
		begun.Add(1)
		if i == 3 {
			return stop
		}
		time.Sleep(time.Millisecond) // a read takes a while
		return nil
	})
	require.ErrorIs(t, err, stop)
	assert.Less(t, int(begun.Load()), 100, "the read stopped at the error, far short of every journal")
}
