package history_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
)

// inChromium renders page in headless Chromium and returns its DOM and a
// screenshot's path; it skips without Chromium, and fails so under CI.
func inChromium(t *testing.T, page string) (dom, shot string) {
	t.Helper()
	var bin string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed: .ci/setup installs Debian's chromium for the browser test")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium): the history page is not checked in a browser")
	}
	run := func(extra ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
			"--enable-logging=stderr", "--v=0"}, extra...)
		cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		if m := regexp.MustCompile(`(?m)^.*(CONSOLE|Uncaught|console\.error).*$`).FindAllString(stderr.String(), -1); len(m) > 0 {
			t.Errorf("console messages:\n%s", strings.Join(m, "\n"))
		}
		return stdout.String()
	}
	shot = filepath.Join(filepath.Dir(page), strings.TrimSuffix(filepath.Base(page), ".html")+".png")
	run("--screenshot="+shot, "--window-size=1000,1000", "--hide-scrollbars")
	return run("--dump-dom"), shot
}

// shownText is the text an SVG drawing shows: its <text> elements, not
// the tooltips (<title>) a reader only sees by hovering.
func shownText(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

// drawing is the page's <svg> whose aria-label starts with label.
func drawing(t *testing.T, dom, label string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<svg[^>]*aria-label="` + regexp.QuoteMeta(label) + `[^"]*".*?</svg>`).FindString(dom)
	require.NotEmpty(t, m, "no drawing %q in the page", label)
	return m
}

// The history page's bars say what each is and how much, on an axis of
// amounts, as a browser draws them: a punter reads the chart without
// hovering over every bar. Many bars (a row per day) keep their names
// legible, turned and thinned out, rather than overprinted.
func TestHistoryHTMLBarsAreLabelled(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, s history.Summary) string {
		var b bytes.Buffer
		require.NoError(t, history.WriteHTML(&b, &s))
		page := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(page, b.Bytes(), 0o644))
		return page
	}

	dom, shot := inChromium(t, write("venue.html", history.Summarise(sampleBets(), history.Query{By: []string{"venue"}})))
	bars := drawing(t, dom, "profit by")
	shown := shownText(bars)
	for _, want := range []string{"Flemington", "+$15.00", "The Meadows", "-$7.00"} {
		assert.Contains(t, shown, want, "a bar's name or amount is written by it")
	}
	assert.Contains(t, shown, "$0", "the amounts' axis")
	assert.Contains(t, shown, "+$15", "the axis reaches the highest bar")
	assert.Contains(t, shown, "-$10", "the axis reaches the lowest bar")
	// The profit curves have the same axis, and the results' times along
	// the bottom.
	shown = shownText(drawing(t, dom, "cumulative profit"))
	assert.Contains(t, shown, "$0")
	assert.Contains(t, shown, "11-21 03:00", "the first result's time")
	assert.Contains(t, shown, "11-22 05:00", "the last result's time")
	notBlank(t, shot)

	// Ninety days: a bar a day, too narrow for a name each.
	var many []history.Bet
	for d := range 90 {
		at := time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC).AddDate(0, 0, d)
		profit := int64(500 - 100*(d%9))
		many = append(many, history.Bet{Plan: "a", Label: fmt.Sprint("a", d), Final: true, Result: "won", Accepted: 500, Profit: profit, Odds: 2,
			Day: at.Format("2006-01-02"), Venue: "Flemington", Code: "Galloping", Type: "Fixed Wager", At: at})
	}
	dom, shot = inChromium(t, write("days.html", history.Summarise(many, history.Query{By: []string{"day"}})))
	bars = drawing(t, dom, "profit by")
	shown = shownText(bars)
	assert.Contains(t, shown, "2026-10-01", "the first day is named")
	names := regexp.MustCompile(`<text transform="translate\([^)]*\) rotate\(-45\)"`).FindAllString(bars, -1)
	assert.GreaterOrEqual(t, len(names), 20, "names turned to fit")
	assert.Less(t, len(names), 90, "every few bars when they do not all fit")
	assert.Equal(t, 90, strings.Count(bars, "<rect"), "a bar per day")
	notBlank(t, shot)
}

// notBlank fails when the screenshot is one colour.
func notBlank(t *testing.T, shot string) {
	t.Helper()
	f, err := os.Open(shot)
	require.NoError(t, err, "no screenshot")
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	colours := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>12<<8|g>>12<<4|bl>>12] = true
		}
	}
	assert.Greater(t, len(colours), 5, "the page looks blank")
}
