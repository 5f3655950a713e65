package cli

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
)

// openPTY opens a pseudo-terminal pair from /dev/ptmx: the master the
// test reads and types into, the terminal the process runs on.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		m.Close()
		t.Skipf("unlock the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		m.Close()
		t.Skipf("name the pseudo-terminal: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	return m, s
}

// A punter at a terminal runs a plan for real; the bet falls due while the
// live line runs, and the confirmation is answered late: the prompt stays
// whole on the screen (no live line drawn over it), and a "y" typed after
// the race started creates nothing.
func TestPromptOnTerminalLateYes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a simulated race to start")
	}
	const speed = 120
	clock := sim.NewScaledClock(time.Now(), speed)
	svc := sim.New(sim.Options{Seed: 3, Clock: clock})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	now := clock.Now()
	var race sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Code == "Galloping" && r.Start.After(now.Add(6*time.Minute)) {
			race = r
			break
		}
	}
	require.NotEmpty(t, race.Venue)
	// Ready two simulated minutes from now, after some ticks of the live line.
	ready := race.Start.Sub(now).Minutes() - 2
	dir := t.TempDir()
	planFile := filepath.Join(dir, "late.yaml")
	require.NoError(t, os.WriteFile(planFile, []byte(fmt.Sprintf(`version: 1
name: late
limits: {max_total_stake: 20, max_stake_per_bet: 10, max_bets: 2}
defaults: {market: Fixed Win, type: Fixed Wager}
poll: {interval: 30s, timeout: 2h}
bets:
  - id: fav
    race: {venue: %q, code: Galloping, event_number: %d}
    selection: %q
    stake: 5
    when: race.minutes_to_start <= %.1f && race.minutes_to_start > 0.5
`, race.Venue, race.EventNumber, race.Runners[0], ready)), 0o644))

	master, tty := openPTY(t)
	defer master.Close()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "run", planFile, "--state-dir", filepath.Join(dir, "state"), "--report-dir", filepath.Join(dir, "report"))
	cmd.Env = append(os.Environ(),
		"BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10", "CI=", "NO_COLOR=1",
		"BETPLAN_BASE_URL="+srv.URL, "BETPLAN_TOKEN="+svc.Token(),
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "GITHUB_STEP_SUMMARY=",
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, cmd.Start())
	tty.Close()
	var screen syncBuffer
	go func() { _, _ = copyUntilEOF(&screen, master) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()

	const question = "Type yes (or y) to go on: "
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(screen.String(), question) {
		select {
		case err := <-exited:
			t.Fatalf("the run ended before asking (%v):\n%s", err, screen.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "no prompt within 30s:\n%s", screen.String())
		time.Sleep(50 * time.Millisecond)
	}
	shown := screen.String()
	assert.Contains(t, shown, "next jump", "the live line ran before the bet fell due")
	// The user answers after the race has started.
	for !clock.Now().After(race.Start.Add(30 * time.Second)) {
		time.Sleep(100 * time.Millisecond)
	}
	afterPrompt := strings.SplitN(screen.String(), question, 2)[1]
	assert.Empty(t, afterPrompt, "something was drawn over the prompt while it waited")
	_, err = master.Write([]byte("y\n"))
	require.NoError(t, err)
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end:\n%s", screen.String())
	}
	out := screen.String()
	assert.NoError(t, err, out)
	assert.Zero(t, svc.NotificationCount(), "a late yes created the bet:\n%s", out)
	// The race's start in its meeting's zone, named, as the table shows it.
	assert.Regexp(t, `skipped fav: the race started at \d\d:\d\d:\d\d A[CEW][DS]T, before the create`, out)
}

func copyUntilEOF(w *syncBuffer, r *os.File) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := r.Read(buf)
		if k > 0 {
			_, _ = w.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}
