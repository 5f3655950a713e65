package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// crashEnv names a test-only variable: "POINT" or "POINT:N" makes the
// process SIGKILL itself at the N-th (default first) engine checkpoint of
// that name, so crash tests stop the real binary exactly between a create
// and its journal entry.
const crashEnv = "BETPLAN_TEST_CRASH_AT"

// pauseEnv names a test-only variable: "POINT" or "POINT:N" makes the
// process stop at that checkpoint, write the file "paused" into the
// directory pauseDirEnv names, and wait there until a file "resume"
// appears, so a test can act on the database or start another machine
// while a run stands exactly between two steps.
const (
	pauseEnv    = "BETPLAN_TEST_PAUSE_AT"
	pauseDirEnv = "BETPLAN_TEST_PAUSE_DIR"
)

// The hooks live in a test file: only the test binary, started as betplan
// by the crash tests, can kill or stop itself at a checkpoint.
func init() {
	checkpointHook = func(sys *sysIO) func(string) {
		crash := crashCheckpoint(sys.Getenv(crashEnv))
		pause := pauseCheckpoint(sys.Getenv(pauseEnv), sys.Getenv(pauseDirEnv))
		if crash == nil || pause == nil {
			if crash == nil {
				return pause
			}
			return crash
		}
		return func(at string) { pause(at); crash(at) }
	}
	storeHook = func(sys *sysIO, s state.Store) state.Store {
		// The engine tells the local files apart by type (account.go):
		// only a shared store, whose lock a test cuts, is wrapped.
		dir := sys.Getenv(pauseDirEnv)
		if _, isLocal := s.(local.Store); isLocal || dir == "" {
			return s
		}
		return lossNoting{Store: s, dir: dir}
	}
}

// lossNoting is a store whose leases, once lost, write the file "lost"
// into dir: a test that cut a paused run's lock waits for it, not for
// the time the lock watcher usually takes.
type lossNoting struct {
	state.Store
	dir string
}

func (s lossNoting) Lock(ctx context.Context, req state.LockRequest) (state.Lease, error) {
	l, err := s.Store.Lock(ctx, req)
	if err == nil {
		go func() {
			<-l.Lost()
			os.WriteFile(filepath.Join(s.dir, "lost"), []byte(fmt.Sprint(l.Err())), 0o644)
		}()
	}
	return l, err
}

// nthPoint reports, for "POINT[:N]", whether a checkpoint is the N-th of
// that name.
func nthPoint(spec string) func(at string) bool {
	point, nth := spec, 1
	if p, n, ok := strings.Cut(spec, ":"); ok {
		point = p
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			nth = v
		}
	}
	var mu sync.Mutex
	seen := 0
	return func(at string) bool {
		if at != point {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		seen++
		return seen == nth
	}
}

func pauseCheckpoint(spec, dir string) func(string) {
	if spec == "" || dir == "" {
		return nil
	}
	hit := nthPoint(spec)
	return func(at string) {
		// Every checkpoint passed is noted, so a test can wait for a run
		// to come as far as a step before the one it pauses at.
		os.WriteFile(filepath.Join(dir, "reached "+at), nil, 0o644)
		if !hit(at) {
			return
		}
		os.WriteFile(filepath.Join(dir, "paused"), []byte(strconv.Itoa(os.Getpid())), 0o644)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "resume")); err == nil {
				return
			}
		}
	}
}

func crashCheckpoint(spec string) func(string) {
	if spec == "" {
		return nil
	}
	hit := nthPoint(spec)
	return func(at string) {
		if hit(at) {
			fmt.Printf("crash test: SIGKILL at %s\n", spec)
			syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}
