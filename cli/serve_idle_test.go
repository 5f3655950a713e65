package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// idleEnv turns the idle measurement on: it measures a serving process's
// CPU and memory for a minute and more, best without -race (.ci/run).
const idleEnv = "BETPLAN_TEST_SERVE_IDLE"

// With 50 plans idle between windows, a serving process uses under 1% of
// a core and under 100 MiB, measured from the kernel's own counts of the
// process (/proc/PID/stat and status) over five and a half minutes: its
// ticks at the plans' poll interval and a refresh of the races.
func TestServeIdleWithFiftyPlans(t *testing.T) {
	if os.Getenv(idleEnv) == "" {
		t.Skipf("measures two serving processes for six minutes: set %s=1, best without -race (CI runs it as a step of its own)", idleEnv)
	}
	for _, store := range []string{"dir", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel() // each measures its own process
			w := newServeWorld(t, 1)
			var races []sim.RaceInfo
			for _, r := range w.svc.Races() {
				if r.Start.After(time.Now().Add(90 * time.Minute)) {
					races = append(races, r)
				}
			}
			require.NotEmpty(t, races)
			sort.Slice(races, func(i, j int) bool { return races[i].Start.Before(races[j].Start) })
			for i := range 50 {
				name := fmt.Sprintf("plan-%02d", i)
				w.writePlan(name, strings.Replace(namedPlan(name, races[i%len(races)], 2, 5, ""), "interval: 5s", "interval: 30s", 1))
			}
			state := filepath.Join(w.dir, "state")
			if store == "postgres" {
				state, _ = pgtest.Schema(t)
			}
			p := w.serve(nil, "--yes", "--listen", "127.0.0.1:0", "--state", state, w.plans)
			until(t, 60*time.Second, "the 50 plans running", func() bool {
				_, rd := p.readiness()
				running := 0
				for _, pl := range rd.Plans {
					if pl.State == "running" {
						running++
					}
				}
				return running == 50
			})
			time.Sleep(20 * time.Second) // the runs' starts behind them
			pid := p.cmd.Process.Pid
			cpu0, at0 := cpuTicks(t, pid), time.Now()
			// Longer than a refresh of the races (every 5 minutes), so
			// one is in what is measured.
			time.Sleep(330 * time.Second)
			cpu1, at1 := cpuTicks(t, pid), time.Now()
			share := float64(cpu1-cpu0) / clockTicks / at1.Sub(at0).Seconds()
			rss, hwm := memKB(t, pid, "VmRSS"), memKB(t, pid, "VmHWM")
			t.Logf("%s: 50 plans idle: %.2f%% of a core over %v; RSS %.1f MiB (peak %.1f MiB)", store, share*100, at1.Sub(at0).Round(time.Second), float64(rss)/1024, float64(hwm)/1024)
			assert.Less(t, share, 0.01, "under 1% of a core")
			assert.Less(t, hwm, int64(100*1024), "under 100 MiB")
			assert.Zero(t, w.svc.NotificationCount(), "idle: nothing to create yet")
			require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
			assert.Equal(t, 143, p.exit(10*time.Second))
		})
	}
}

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times
// (100 on every Linux betplan runs on).
const clockTicks = 100

// cpuTicks is the user and system time the process used, in ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	// The command name may hold spaces: the fields after it count from ")".
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	require.NoError(t, err)
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	require.NoError(t, err)
	return utime + stime
}

// memKB is a figure of /proc/PID/status, in KiB.
func memKB(t *testing.T, pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
