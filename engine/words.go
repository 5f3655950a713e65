package engine

import "strings"

// Small helpers that put counts and names into words, for report and log
// lines.

// plural is one or many, as n says.

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func sessionList(names []string) string {
	if len(names) == 0 {
		return "a session"
	}
	return strings.Join(names, ", ")
}
