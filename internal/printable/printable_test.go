package printable_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/internal/printable"
)

func TestText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Flemington R3", "Flemington R3"},
		{"unicode", "Café — Île ✅", "Café — Île ✅"},
		{"colour", "ESC \x1b[31mred\x1b[0m", `ESC \x1b[31mred\x1b[0m`},
		{"title", "\x1b]0;pwned\x07 end", `\x1b]0;pwned\x07 end`},
		{"clear screen", "S\x1b[2J", `S\x1b[2J`},
		{"newline", "two\n| forged | row |", `two\n| forged | row |`},
		{"carriage return", "\rCR", `\rCR`},
		{"tab", "a\tb", `a\tb`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		{"c1 csi", "a\u009b31mb", `a\u009b31mb`},
		{"bidi override", "abc\u202edcba\u202c", `abc\u202edcba\u202c`},
		{"isolate", "\u2066x\u2069", `\u2066x\u2069`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid utf-8", "ev\xff\xfeil", "ev\ufffd\ufffdil"},
		{"cut rune", "caf\xc3", "caf\ufffd"},
		{"backslash kept", `C:\x`, `C:\x`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, printable.Text(tt.in))
		})
	}
}

func TestLines(t *testing.T) {
	assert.Equal(t, "plans/x.yaml:2:9: bad\n\tstake: \\x1b[2J\n\t       ^", printable.Lines("plans/x.yaml:2:9: bad\n\tstake: \x1b[2J\n\t       ^"))
	assert.Equal(t, `a\rb`, printable.Lines("a\rb"))
	assert.Equal(t, "ok", printable.Lines("ok"))
}

func TestMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "Flemington", "Flemington"},
		{"pipe", "a|b", `a\|b`},
		{"backslash before a pipe", `a\|b`, `a\\\|b`},
		{"newline forges no row", "two\n| forged | row |", `two\\n\| forged \| row \|`},
		{"escape", "red\x1b[31m", `red\\x1b\[31m`},
		{"html", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
		{"emphasis and links", "*b* _i_ [l](u) `c` ~s~ # !", `\*b\* \_i\_ \[l\](u) \` + "`c\\`" + ` \~s\~ \# \!`},
		{"math", "$x$", `\$x\$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, printable.Markdown(tt.in))
		})
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"id", "b1@flemington-r3", "`b1@flemington-r3`"},
		{"pipe", "a|b", "`a\\|b`"},
		{"backslash", `a\|b`, `a\\\|b`},
		{"backtick", "a`b", "a\\`b"},
		{"escape", "a\x1bb", `a\\x1bb`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, printable.MarkdownCode(tt.in))
		})
	}
}

// Whatever bytes come in: no control byte, nothing but UTF-8, and in
// Markdown no line break and no pipe that would end a cell.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m|\n", "a\\|b", "\xff\u202e\u0085`|\\\\|", "\r\n\t\x00\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{printable.Text(s), printable.Markdown(s), printable.MarkdownCode(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%q: not UTF-8: %q", s, out)
			}
			for _, r := range out {
				if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x202e || r == 0x2028 {
					t.Fatalf("%q: control character %U in %q", s, r, out)
				}
			}
		}
		for _, out := range []string{printable.Markdown(s), printable.MarkdownCode(s)} {
			backslashes := 0
			for i := 0; i < len(out); i++ {
				switch out[i] {
				case '\\':
					backslashes++
					continue
				case '|':
					if backslashes%2 == 0 {
						t.Fatalf("%q: a pipe ends a cell in %q", s, out)
					}
				}
				backslashes = 0
			}
		}
		if printable.Text(s) == s && strings.ContainsAny(s, "\x1b\n\r") {
			t.Fatalf("%q left as it was", s)
		}
	})
}
