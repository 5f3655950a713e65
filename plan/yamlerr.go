package plan

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlFault is where a YAML syntax error really is, when yaml.v3 names only
// the start of the block it was parsing (its "context" line): a bet field
// indented by three spaces is reported at the `bets:` line above it, a tab
// in the indentation at the line before it.
type yamlFault struct {
	line, col int
	summary   string
	hint      string
}

// locateYAMLFault looks for the line that breaks the document: a tab in
// the indentation, a line indented deeper than a line that opens no block,
// a line that lines up with no enclosing key, or a flow collection ({ or
// [) left open at the end of its line. A candidate counts only when the
// lines before it parse and the document up to it does not, so a guess is
// never reported in place of yaml's own position.
func locateYAMLFault(src []byte) (yamlFault, bool) {
	lines := bytes.SplitAfter(src, []byte("\n"))
	cands := yamlCandidates(lines)
	if len(cands) > maxYAMLCandidates {
		cands = cands[:maxYAMLCandidates] // each costs two parses of a prefix
	}
	for _, f := range cands {
		if parsesYAML(lines[:f.line-1]) && !parsesYAML(lines[:f.line]) {
			return f, true
		}
	}
	return yamlFault{}, false
}

// maxYAMLCandidates bounds the work on a broken file.
const maxYAMLCandidates = 8

func parsesYAML(lines [][]byte) bool {
	var n yaml.Node
	err := yaml.Unmarshal(bytes.Join(lines, nil), &n)
	return err == nil
}

// yamlCandidates walks the block structure by indentation, in order.
func yamlCandidates(lines [][]byte) []yamlFault {
	var out []yamlFault
	var levels []int // columns (0-based) of the open block entries
	opens := true    // the line before opens a block (ends in ':' or '-')
	scalarAt := -1   // inside a block scalar whose header line is at this indent
	for i := 0; i < len(lines); i++ {
		n := i + 1
		text := strings.TrimRight(string(lines[i]), "\r\n")
		indent := len(text) - len(strings.TrimLeft(text, " \t"))
		lead, body := text[:indent], text[indent:]
		if body == "" || body[0] == '#' {
			continue
		}
		if scalarAt >= 0 {
			if indent > scalarAt && !strings.Contains(lead, "\t") {
				continue
			}
			scalarAt = -1
		}
		if t := strings.IndexByte(lead, '\t'); t >= 0 {
			out = append(out, yamlFault{line: n, col: t + 1,
				summary: "a tab in the indentation",
				hint:    "YAML indents with spaces only: replace the tab with spaces"})
			return out
		}
		c := indent
		switch {
		case len(levels) == 0:
			levels = append(levels, c)
		case c > levels[len(levels)-1]:
			if !opens {
				out = append(out, yamlFault{line: n, col: c + 1,
					summary: fmt.Sprintf("this line is indented %d spaces, deeper than the line above, which opens no block", c),
					hint:    fmt.Sprintf("line it up with the key above it, at %d spaces", levels[len(levels)-1])})
			}
			levels = append(levels, c)
		default:
			deeper := levels[len(levels)-1]
			for len(levels) > 0 && levels[len(levels)-1] > c {
				deeper = levels[len(levels)-1]
				levels = levels[:len(levels)-1]
			}
			if len(levels) == 0 || levels[len(levels)-1] != c {
				hint := fmt.Sprintf("to go on with the block above, indent it %d spaces, as its lines are", deeper)
				out = append(out, yamlFault{line: n, col: c + 1,
					summary: fmt.Sprintf("this line is indented %d spaces, which lines up with no key above it", c),
					hint:    hint})
				levels = append(levels, c)
			}
		}
		// "- " items: the item's content is a block at its own column.
		for body == "-" || strings.HasPrefix(body, "- ") {
			if body == "-" {
				body = ""
				break
			}
			rest := strings.TrimLeft(body[1:], " ")
			c += len(body) - len(rest)
			levels = append(levels, c)
			body = rest
		}
		value := stripYAMLComment(body)
		if open := unclosedFlow(value); open >= 0 {
			// A flow collection may go on over the next lines; it is
			// left open when a line that is not its continuation comes
			// first.
			joined, j := value, i+1
			for ; j < len(lines) && unclosedFlow(joined) >= 0; j++ {
				next := strings.TrimRight(string(lines[j]), "\r\n")
				ni := len(next) - len(strings.TrimLeft(next, " "))
				if strings.TrimSpace(next) != "" && ni <= indent {
					break
				}
				joined += " " + stripYAMLComment(strings.TrimSpace(next))
			}
			if unclosedFlow(joined) >= 0 {
				out = append(out, yamlFault{line: n, col: c + open + 1,
					summary: fmt.Sprintf("the `%c` opened here is not closed", value[open]),
					hint:    fmt.Sprintf("close it with `%s` on this line, or write the fields as a block, one a line", closerOf(value[open]))})
			} else {
				i, value = j-1, joined
			}
		}
		opens = value == "" || strings.HasSuffix(value, ":")
		if isBlockScalarHeader(value) {
			scalarAt = indent
		}
	}
	return out
}

// unquoted calls fn with each byte of s outside quoted text, in order,
// until fn returns false.
func unquoted(s string, fn func(i int, ch byte) bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		default:
			if !fn(i, ch) {
				return
			}
		}
	}
}

// stripYAMLComment cuts a trailing " #" comment outside quotes.
func stripYAMLComment(s string) string {
	end := len(s)
	unquoted(s, func(i int, ch byte) bool {
		if ch == '#' && (i == 0 || s[i-1] == ' ') {
			end = i
			return false
		}
		return true
	})
	return strings.TrimRight(s[:end], " ")
}

// unclosedFlow is the index of the first { or [ of s (outside quotes) that
// is not closed by the end of s, or -1.
func unclosedFlow(s string) int {
	var stack []int
	unquoted(s, func(i int, ch byte) bool {
		switch {
		case ch == '{' || ch == '[':
			stack = append(stack, i)
		case (ch == '}' || ch == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
		return true
	})
	if len(stack) == 0 {
		return -1
	}
	return stack[0]
}

func closerOf(open byte) string {
	if open == '[' {
		return "]"
	}
	return "}"
}

// isBlockScalarHeader reports whether a value starts a block scalar (|, >,
// with optional chomping and indentation indicators).
func isBlockScalarHeader(v string) bool {
	if i := strings.LastIndex(v, ": "); i >= 0 {
		v = v[i+2:]
	}
	v = strings.TrimSpace(v)
	if v == "" || (v[0] != '|' && v[0] != '>') {
		return false
	}
	return strings.Trim(v[1:], "+-0123456789") == ""
}
