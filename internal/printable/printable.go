// Package printable shows text that comes from outside betplan (the
// service, a journal, the database, a file's name) in the formats people
// read: a terminal, a Markdown document, a chat message. Whatever it
// holds prints as characters a reader sees, never as a command to the
// terminal or a line, row or cell of the document's own.
//
// Every human format goes through it at its edge, where a string becomes
// output: the API client cleans what the service sends, but a record
// written by another tool, an older betplan or a hand edit reaches the
// formats from a journal or the database as it was written.
package printable

import (
	"strings"
	"unicode/utf8"
)

// Text is s as one line of inert characters: each control character
// (C0 and C1, DEL, and the line breaks among them) is shown as its Go
// escape (\x1b, \n, \t, \u009b), as are the Unicode line and paragraph
// separators and the bidirectional marks, embeddings, overrides and
// isolates that reorder what a terminal shows; each byte that is not
// UTF-8 is shown as U+FFFD. A string that needs none of that is returned
// as it is.
func Text(s string) string {
	i := printableUpTo(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case escaped(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Lines is Text that keeps s's line breaks (\n) and tabs: a message of
// several lines, such as an error naming a journal, with a plan's source
// line and a caret under it.
func Lines(s string) string {
	if !strings.ContainsAny(s, "\n\t") {
		return Text(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, part := range strings.Split(line, "\t") {
			if j > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(Text(part))
		}
	}
	return b.String()
}

// printableUpTo is the length of s's first part that Text leaves as it
// is: printable ASCII is checked a byte at a time, anything else a rune.
func printableUpTo(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || escaped(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// escaped reports whether Text shows r as an escape.
func escaped(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // arabic letter, left-to-right and right-to-left marks
		return true
	case r >= 0x2028 && r <= 0x202e: // line and paragraph separators; embeddings, pop and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates and their pop
		return true
	}
	return false
}

func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if r < 0x80 {
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
			return
		}
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
}

// markdownReplacer makes text inert in Markdown (GitHub's, in a table cell
// or a line of prose): HTML is shown, not run; emphasis, links, images,
// code, math, headings and table pipes are shown as typed. The backslash
// goes first, so an escape Text wrote (\x1b) shows as it is and a pipe
// after a backslash cannot end a cell.
var markdownReplacer = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`",
	"[", `\[`, "]", `\]`, "~", `\~`, "#", `\#`, "!", `\!`, "$", `\$`,
)

// Markdown is Text(s) made inert in Markdown: one line, shown as typed,
// in a table cell or a line of prose.
func Markdown(s string) string {
	if s == "" {
		return ""
	}
	return markdownReplacer.Replace(Text(s))
}

// MarkdownCode is s shown as code in a Markdown table cell (ids and paths
// read best that way): Text(s) between backticks, its pipes escaped, as
// GitHub's tables need even inside code. Where that cannot be said in
// code (a backtick, or a backslash: a table reads \\| as a backslash and
// the cell's end), it is Markdown(s).
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	t := Text(s)
	if strings.ContainsAny(t, "`\\") {
		return markdownReplacer.Replace(t)
	}
	return "`" + strings.ReplaceAll(t, "|", `\|`) + "`"
}
