package reporters

import (
	"strings"
	"unicode/utf8"
)

// oneLine folds newlines and tabs into spaces so a message fits a cell.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// truncate shortens s to at most n columns, ending in "…" when cut. A column
// is a rune: racing names are Latin text.
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 1 {
		return "…"
	}
	i, k := 0, 0
	for j := range s {
		if k == n-1 {
			i = j
			break
		}
		k++
	}
	return s[:i] + "…"
}

func shortHash(h string) string {
	algo, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 12 {
		return h
	}
	return algo + ":" + hex[:12]
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
