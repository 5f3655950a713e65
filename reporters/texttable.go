package reporters

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/betplan/betplan/internal/printable"
)

// The terminal report's tables: columns that give up width to fit the
// terminal, cells with a tone, rows with notes beneath.

// A column of a table. Flexible columns give up width, down to min, when the
// table would not fit.
type column struct {
	title string
	right bool
	flex  bool
	min   int
	// drop orders the columns a narrow terminal leaves out, 1 first; 0
	// columns always stay.
	drop int
	// wrap keeps cells whole: the column is at most wrap wide, and a
	// longer cell goes on a line of its own above its row.
	wrap int
}

type cell struct {
	text string
	tone tone
	// tail is a suffix of text that truncation keeps, such as the race
	// number after a venue.
	tail string
}

// fit cuts the cell's text to n columns, keeping its tail whole.
func (c cell) fit(n int) string {
	if c.tail == "" || utf8.RuneCountInString(c.text) <= n {
		return truncate(c.text, n)
	}
	head := strings.TrimSuffix(c.text, c.tail)
	room := n - utf8.RuneCountInString(c.tail)
	if room < 2 {
		return truncate(c.text, n)
	}
	return truncate(head, room) + c.tail
}

// row is one table row and the indented lines that explain it.
type row struct {
	cells []cell
	notes []cell
}

const gap = "  "

func (t *textWriter) table(cols []column, rows []row) {
	// Cells hold the service's, a journal's and the database's text:
	// shown, never run, and measured as shown.
	for i := range rows {
		for _, cs := range [][]cell{rows[i].cells, rows[i].notes} {
			for k := range cs {
				cs[k].text, cs[k].tail = printable.Text(cs[k].text), printable.Text(cs[k].tail)
			}
		}
	}
	// Too wide for the terminal: long ids go on lines of their own
	// first, then the less important columns go.
	wrap := !t.fits(cols, rows, false)
	for !t.fits(cols, rows, wrap) {
		d := -1
		for i, c := range cols {
			if c.drop > 0 && (d < 0 || c.drop < cols[d].drop) {
				d = i
			}
		}
		if d < 0 {
			break
		}
		cols = slices.Delete(slices.Clone(cols), d, d+1)
		for i := range rows {
			rows[i].cells = slices.Delete(slices.Clone(rows[i].cells), d, d+1)
		}
	}
	widths := naturalWidths(cols, rows, wrap)
	room := t.opts.Width - len(gap)*(len(cols)-1)
	if !fitWidths(cols, widths, room, false) {
		fitWidths(cols, widths, room, true)
	}

	var b, plain strings.Builder
	for i, c := range cols {
		b.WriteString(pad(truncate(c.title, widths[i]), widths[i], c.right, i == len(cols)-1))
		if i < len(cols)-1 {
			b.WriteString(gap)
		}
	}
	t.w.WriteString(t.bold(truncate(strings.TrimRight(b.String(), " "), t.opts.Width)) + "\n")
	for _, r := range rows {
		b.Reset()
		plain.Reset()
		for i, c := range r.cells {
			last := i == len(cols)-1
			if wrap && cols[i].wrap > 0 && utf8.RuneCountInString(c.text) > widths[i] {
				t.w.WriteString(t.paint(c.text, c.tone) + "\n")
				c.text = ""
			}
			text := pad(c.fit(widths[i]), widths[i], cols[i].right, last)
			b.WriteString(t.paint(text, c.tone))
			plain.WriteString(text)
			if !last {
				b.WriteString(gap)
				plain.WriteString(gap)
			}
		}
		line := strings.TrimRight(b.String(), " ")
		if utf8.RuneCountInString(strings.TrimRight(plain.String(), " ")) > t.opts.Width {
			// Even squeezed, the fixed columns do not fit: cut the line,
			// and its colours with it.
			line = truncate(strings.TrimRight(plain.String(), " "), t.opts.Width)
		}
		t.w.WriteString(line + "\n")
		for _, n := range r.notes {
			t.line("    "+n.text, n.tone)
		}
	}
}

// fits reports whether the columns fit the width with every flexible column
// at its minimum or narrower.
func (t *textWriter) fits(cols []column, rows []row, wrap bool) bool {
	return fitWidths(cols, naturalWidths(cols, rows, wrap), t.opts.Width-len(gap)*(len(cols)-1), false)
}

// naturalWidths are the columns' widths with nothing cut; with wrap, a
// wrapping column's cells wider than its cap go on lines of their own.
func naturalWidths(cols []column, rows []row, wrap bool) []int {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = utf8.RuneCountInString(c.title)
	}
	for _, r := range rows {
		for i, c := range r.cells {
			n := utf8.RuneCountInString(c.text)
			if wrap && cols[i].wrap > 0 && n > cols[i].wrap {
				continue
			}
			widths[i] = max(widths[i], n)
		}
	}
	return widths
}

// fitWidths narrows flexible columns one column at a time, always the one
// furthest above its minimum, until the widths sum to at most total or every
// flexible column is at its minimum. It reports whether the table fits;
// squeeze lets columns go down to three columns when it would not.
func fitWidths(cols []column, widths []int, total int, squeeze bool) bool {
	sum := 0
	for _, w := range widths {
		sum += w
	}
	floor := make([]int, len(cols))
	for i, c := range cols {
		floor[i] = max(c.min, utf8.RuneCountInString(c.title))
		if squeeze {
			floor[i] = 3
		}
	}
	for sum > total {
		best := -1
		for i, c := range cols {
			if c.flex && widths[i] > floor[i] && (best < 0 || widths[i]-floor[i] > widths[best]-floor[best]) {
				best = i
			}
		}
		if best < 0 {
			return false
		}
		widths[best]--
		sum--
	}
	return true
}

func pad(s string, w int, right, last bool) string {
	n := w - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	if last {
		return s
	}
	return s + strings.Repeat(" ", n)
}
