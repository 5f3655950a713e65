package reporters_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/reporters"
)

// chromium finds Debian's chromium, or skips; under CI=true, where
// .ci/setup installs it, its absence fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: .ci/setup installs Debian's chromium for the browser test")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium): the HTML report is not checked in a browser")
	return ""
}

// headless runs chromium on the page with a fresh profile and the extra
// flags, and returns its stdout and stderr.
func headless(t *testing.T, bin, page string, extra ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
	}, extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

var consoleLine = regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|console\.error).*$`)

// The HTML report as a punter opens it: one self-contained file that a
// real browser renders without a console error, not blank, with the
// totals and every bet's outcome in its text.
func TestHTMLReportInABrowser(t *testing.T) {
	bin := chromium(t)
	r := runResult()
	page := filepath.Join(t.TempDir(), "report.html")
	html := render(t, reporters.FormatHTML, r, reporters.TextOptions{})
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).Find(html); m != nil {
		t.Errorf("the report loads %s from the network: it must be one self-contained file", m)
	}

	dom, logs := headless(t, bin, page, "--dump-dom")
	if m := consoleLine.FindAllString(logs, -1); len(m) > 0 {
		t.Errorf("console messages while rendering the report:\n%s", strings.Join(m, "\n"))
	}
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(dom, " ")
	for _, want := range []string{"+$30.25", "$100.50", "+30.1%", "won", "lost", "not placed", "By venue", "AEDT"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page's text lacks %q", want)
		}
	}
	for _, b := range r.Bets {
		if !strings.Contains(text, b.ID) {
			t.Errorf("the rendered page has no bet %s", b.ID)
		}
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	headless(t, bin, page, "--screenshot="+shot, "--window-size=1200,1600", "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	// Blank would be one colour; a report has text, tiles, a chart.
	colours := map[uint32]int{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 4 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 4 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[r>>12<<8|g>>12<<4|b>>12]++
		}
	}
	if len(colours) < 20 {
		t.Errorf("the screenshot looks blank: %d colours", len(colours))
	}
}
