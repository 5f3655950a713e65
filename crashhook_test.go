package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
