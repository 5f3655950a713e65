package local

// validJSON reports whether b is one JSON value, as encoding/json.Valid
// does, without its state machine's call a byte: every line of every
// journal is checked each time one is read (history reads them all), and
// this is several times quicker. FuzzValidJSON holds it to json.Valid.
func validJSON(b []byte) bool {
	var buf [32]byte
	stack := buf[:0] // the open objects ('{') and arrays ('[')
	i := ws(b, 0)
	for {
		// A value begins at i.
		if i >= len(b) {
			return false
		}
		ok := true
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return false
			}
			i = ws(b, i+1)
			if i < len(b) && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = key(b, i); !ok {
					return false
				}
			}
			continue
		case c == '"':
			i, ok = str(b, i)
		case c == 't':
			i, ok = lit(b, i, "true")
		case c == 'f':
			i, ok = lit(b, i, "false")
		case c == 'n':
			i, ok = lit(b, i, "null")
		case c == '-' || c >= '0' && c <= '9':
			i, ok = num(b, i)
		default:
			return false
		}
		if !ok {
			return false
		}
		// After a value: close what it ends, or go on to the next.
		for {
			i = ws(b, i)
			if len(stack) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			top := stack[len(stack)-1]
			if b[i] == ',' {
				i = ws(b, i+1)
				if top == '{' {
					if i, ok = key(b, i); !ok {
						return false
					}
				}
				break
			}
			if top == '{' && b[i] == '}' || top == '[' && b[i] == ']' {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return false
		}
	}
}

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

func ws(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// key reads an object's key and its colon, and the white space after.
func key(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := str(b, i)
	if !ok {
		return i, false
	}
	i = ws(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return ws(b, i+1), true
}

// str reads a string from its opening quote.
func str(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return i, false
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

func lit(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// num reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func num(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}
