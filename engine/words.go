package engine

import "strings"

// plural and the like put counts into words; they sit below every file that writes a report line.

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
