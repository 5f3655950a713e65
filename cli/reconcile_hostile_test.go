package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endlessBets is a hostile service's GET /bet/: every page holds 100 bet
// records, each with a label of labelBytes (escape sequences when
// escapes, which the client cleans out), and names a next page, forever.
// Every other path answers an empty list.
type endlessBets struct {
	labelBytes int
	escapes    bool
	// ours: every label is a new one of betplan's form, perPage a page.
	ours    bool
	perPage int
	pages   atomic.Int64
	sent    atomic.Int64
}

func (e *endlessBets) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/bet/" {
		rw.Header().Set("Content-Type", "application/json")
		rw.Write([]byte("[]"))
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	e.pages.Add(1)
	label := strings.Repeat("x", e.labelBytes)
	if e.escapes {
		label = strings.Repeat(`\u001b[2J`, e.labelBytes/10)
	}
	self := "http://" + r.Host + "/bet/?page_size=100&page="
	prev := "null"
	if page > 1 {
		prev = strconv.Quote(self + strconv.Itoa(page-1))
	}
	rw.Header().Set("Content-Type", "application/json")
	w := bufio.NewWriterSize(rw, 64<<10)
	n, _ := fmt.Fprintf(w, `{"count":%d,"total_pages":%d,"next":%q,"previous":%s,"results":[`, 1<<30, 1<<24, self+strconv.Itoa(page+1), prev)
	perPage := max(e.perPage, 100)
	for i := range perPage {
		if i > 0 {
			w.WriteByte(',')
		}
		id := page*perPage + i
		if e.ours {
			label = fmt.Sprintf("bp:someone-elses-plan-name:bet-%d:%012x", id, id)
		}
		k, _ := fmt.Fprintf(w, `{"id":%d,"notification":%d,"label":"%s","amount":10,"profit":-10,"status":"SETTLED","submit_result":"Success","created_at":"2026-06-01T12:00:00+10:00"}`,
			id, id, label)
		n += k + 1
	}
	k, _ := w.WriteString("]}")
	w.Flush()
	e.sent.Add(int64(n + k))
}

// peakRSS runs cmd and returns its peak resident memory in bytes (the
// kernel's own count, from the child's rusage). A watchdog kills it past
// killAt, so the old unbounded reconcile cannot take the machine down
// with it: the test then fails with the figure it reached.
func peakRSS(t testing.TB, cmd *exec.Cmd, killAt int64) (peak int64, killed bool, err error) {
	t.Helper()
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	var over atomic.Bool
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if hwm := vmHWM(cmd.Process.Pid); hwm > killAt {
					over.Store(true)
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	require.True(t, ok, "no rusage on this system")
	return ru.Maxrss << 10, over.Load(), err // Maxrss is in KiB on Linux
}

// vmHWM is a running process's peak resident memory so far, in bytes.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// hostileReconcile is a run of `history --reconcile` against an
// endlessBets service.
type hostileReconcile struct {
	name       string
	labelBytes int
	escapes    bool
	ours       bool // every label a new one of betplan's form, 1000 a page
	flags      []string
	line       string // the one line it ends with
}

// The runs the test makes, each ending by itself at one bound, kept small
// (a race build of the binary decodes slowly); the benchmark makes the
// first three at the bounds' defaults.
var hostileReconciles = []hostileReconcile{
	{name: "the attack: 30 MB pages", labelBytes: 300 << 10,
		line: `^betplan history: --reconcile: read the service's bet records: page 1: GET /bet/: cannot read the response: the answer is over 8 MB, the most betplan reads of it$`},
	{name: "1 MB pages", labelBytes: 10 << 10, flags: []string{"--reconcile-max-mb", "4"},
		line: `^betplan history: --reconcile: read 4 MB of bet records and the service has more: that is the most it reads \(--reconcile-max-mb raises it\)$`},
	{name: "1 MB pages of escapes", labelBytes: 10 << 10, escapes: true, flags: []string{"--reconcile-max-mb", "4"},
		line: `^betplan history: --reconcile: read 4 MB of bet records and the service has more: that is the most it reads \(--reconcile-max-mb raises it\)$`},
	{name: "labels of betplan's form, each new", ours: true, flags: []string{"--reconcile-max-records", "5000"},
		line: `^betplan history: --reconcile: read 5000 bet records and the service has more: that is the most it reads \(--reconcile-max-records raises it\)$`},
	{name: "records", labelBytes: 10, flags: []string{"--reconcile-max-records", "1000"},
		line: `^betplan history: --reconcile: read 1000 bet records and the service has more: that is the most it reads \(--reconcile-max-records raises it\)$`},
	{name: "pages", labelBytes: 10, flags: []string{"--reconcile-max-pages", "3"},
		line: `^betplan history: --reconcile: read 3 pages of bet records and the service has more: that is the most it reads \(--reconcile-max-pages raises it\)$`},
}

// run runs this test binary as betplan history --reconcile against a
// fresh endlessBets, and returns its peak resident memory and what it
// wrote; it fails the test unless history ended by itself with exit 3.
func (h hostileReconcile) run(t testing.TB, flags ...string) (peak int64, stdout, stderr string) {
	svc := &endlessBets{labelBytes: h.labelBytes, escapes: h.escapes, ours: h.ours}
	if h.ours {
		svc.perPage = 1000
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	dir := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"history", "--state-dir", filepath.Join(dir, "state"), "--reconcile", "--base-url", srv.URL, "--max-rps", "50"}, flags...)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10", "BETPLAN_TOKEN=t0ken",
		"BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "BETPLAN_STATE=", "GITHUB_STEP_SUMMARY=", "CI=",
		"HOME="+filepath.Join(dir, "home"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	start := time.Now()
	peak, killed, err := peakRSS(t, cmd, 1<<30)
	t.Logf("%s: peak resident %d MB over %s; the service sent %d pages, %d MB", h.name, peak>>20, time.Since(start).Round(time.Millisecond), svc.pages.Load(), svc.sent.Load()>>20)
	require.False(t, killed, "killed at %d MB resident, after %d pages", peak>>20, svc.pages.Load())
	require.NoError(t, ctx.Err(), "still reading after 5 minutes")
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "history ended with %v, want a refusal\n%s", err, errs.String())
	require.Equal(t, exitRefused, ee.ExitCode(), "%s", errs.String())
	return peak, out.String(), errs.String()
}

// raceBuild reports whether this binary has the race detector, whose
// shadow memory makes a process's resident memory its own, not ours.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestReconcileAgainstAnEndlessServiceStaysFlat: a service answering 100
// bet records a page, each labelled with 300 KB, and always another page,
// took `history --reconcile` to 3 GB resident in 37 s. Now a page over 8
// MB ends the read at once; pages under it, of labels that are not
// betplan's, are read and dropped until the bound on bytes read; labels of
// betplan's form, each new, or small records, until the bound on records
// or pages. Each ends by itself with one line naming the bound (and the
// flag that raises a flag's), resident memory under 100 MB throughout
// (BenchmarkReconcileAgainstAnEndlessService: the same at the defaults).
func TestReconcileAgainstAnEndlessServiceStaysFlat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("reads a process's resident memory from /proc")
	}
	for _, h := range hostileReconciles {
		t.Run(h.name, func(t *testing.T) {
			peak, stdout, stderr := h.run(t, h.flags...)
			assert.Regexp(t, h.line, strings.TrimSuffix(stderr, "\n"), "one line")
			assert.Empty(t, stdout)
			if !raceBuild() {
				assert.Less(t, peak, int64(100<<20), "peak resident memory")
			}
		})
	}
}

// BenchmarkReconcileAgainstAnEndlessService is the attack and its
// variants at the bounds' defaults (256 MB of bodies, 100,000 records):
// the peak resident memory of each whole run, in MB.
func BenchmarkReconcileAgainstAnEndlessService(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads a process's resident memory from /proc")
	}
	for _, h := range []hostileReconcile{
		hostileReconciles[0],
		{name: "6 MB pages", labelBytes: 60 << 10},
		{name: "6 MB pages of escapes", labelBytes: 60 << 10, escapes: true},
		{name: "labels of betplan's form, each new", ours: true},
	} {
		b.Run(h.name, func(b *testing.B) {
			var peak int64
			for range b.N {
				p, _, _ := h.run(b)
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}
