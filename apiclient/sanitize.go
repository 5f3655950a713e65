package apiclient

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Text from the service ends up on terminals, in logs and in reports. An
// escape sequence in it could retitle or clear a terminal, or forge a line
// of a report, so every body the client hands on goes through cleanBody
// first: text keeps its printable characters only.

// cleanLine is s as one line of printable text: escape sequences (CSI,
// OSC and the other ESC and C1 forms) are dropped whole, tabs and line
// breaks become spaces, and every other control character is dropped.
func cleanLine(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
			continue
		case r == 0x1b:
			i = skipEscape(s, i+size)
			continue
		case r >= 0x80 && r <= 0x9f:
			i = skipC1(s, r, i+size)
			continue
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s has no control characters and is valid UTF-8.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == 0xc2 && i+1 < len(s) && s[i+1] < 0xa0 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// skipEscape returns the index after the escape sequence whose ESC ended
// at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF and single-character forms: intermediates, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipC1 returns the index after the C1 control r (ending at i) and the
// sequence it opens, if any.
func skipC1(s string, r rune, i int) int {
	switch r {
	case 0x9b: // CSI
		return skipCSI(s, i)
	case 0x90, 0x98, 0x9d, 0x9e, 0x9f: // DCS, SOS, OSC, PM, APC
		return skipString(s, i)
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string up to and including its terminator:
// BEL, ESC \ or the C1 ST; an unterminated one runs to the end.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

// cleanBody is a response body with every text in it cleaned by
// cleanLine: each string of a JSON body (keys included), or the whole
// body when it is not JSON. A body that needs nothing is returned as is.
func cleanBody(b []byte) []byte {
	if plainASCII(b) {
		return b // no control character, escape or other byte to clean
	}
	if !json.Valid(b) {
		if s := string(b); !isClean(s) {
			cleaned := []byte(cleanLine(s))
			if json.Valid(cleaned) {
				return cleanBody(cleaned) // its strings may hold escapes
			}
			return cleaned
		}
		return b
	}
	var out []byte // nil until a string changes
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j, suspect := i+1, false
		for ; j < len(b) && b[j] != '"'; j++ {
			switch {
			case b[j] == '\\':
				j++
				suspect = suspect || j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] != '/'
			case b[j] < 0x20 || b[j] >= 0x7f:
				suspect = true
			}
		}
		lit := b[i:min(j+1, len(b))]
		i = j
		if !suspect {
			continue
		}
		var s string
		if json.Unmarshal(lit, &s) != nil {
			continue
		}
		cleaned := cleanLine(s)
		if cleaned == s {
			continue
		}
		out = append(out, b[last:i+1-len(lit)]...)
		out = appendJSONString(out, cleaned)
		last = i + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// appendJSONString appends s as a JSON string, without HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// plainASCII reports whether b holds printable ASCII only (0x20 to 0x7e)
// and no backslash: such a body needs no cleaning, as JSON or as text.
// It reads eight bytes at a time: every body the client receives passes
// here, and checking it as JSON first was a large part of a run's CPU.
func plainASCII(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(v uint64) bool { return (v-ones)&^v&highs != 0 }
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if x&highs != 0 || // 0x80 and above
			(x-0x20*ones)&^x&highs != 0 || // below 0x20
			hasZero(x^(0x7f*ones)) || hasZero(x^('\\'*ones)) {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return false
		}
	}
	return true
}
