package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// crashEnv names a test-only variable: "POINT" or "POINT:N" makes the
// process SIGKILL itself at the N-th (default first) engine checkpoint of
// that name, so crash tests stop the real binary exactly between a create
// and its journal entry.
const crashEnv = "BETPLAN_TEST_CRASH_AT"

func crashCheckpoint(spec string) func(string) {
	if spec == "" {
		return nil
	}
	point, nth := spec, 1
	if p, n, ok := strings.Cut(spec, ":"); ok {
		point = p
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			nth = v
		}
	}
	var mu sync.Mutex
	seen := 0
	return func(at string) {
		if at != point {
			return
		}
		mu.Lock()
		seen++
		hit := seen == nth
		mu.Unlock()
		if hit {
			fmt.Printf("crash test: SIGKILL at %s #%d\n", at, nth)
			syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}
