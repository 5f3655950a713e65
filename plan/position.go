package plan

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
)

func (p *parser) rootNode() *yaml.Node {
	if p.root != nil && len(p.root.Content) > 0 {
		return p.root.Content[0]
	}
	return &yaml.Node{Line: 1, Column: 1}
}

// at is the node of a path, or of its nearest ancestor that was written.
func (p *parser) at(path string) *yaml.Node {
	for path != "" {
		if n, ok := p.d.pos[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p.rootNode()
}

// keyAt is the key node of a path, or the value's when there is none.
func (p *parser) keyAt(path string) *yaml.Node {
	if k, ok := p.d.keys[path]; ok {
		return k
	}
	return p.at(path)
}

// exprPos maps a position inside a scalar's value (line from 1, column
// from 0, in runes) to the file: the value of a quoted scalar starts after
// the quote, a block scalar's on the next line after its indentation, and
// a value's later lines each start at their own indentation.
func (p *parser) exprPos(n *yaml.Node, line, col int) (int, int) {
	if p.lines == nil {
		p.lines = bytes.Split(p.src, []byte("\n"))
	}
	srcLine, srcCol := n.Line, n.Column
	switch n.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		srcCol++
	case yaml.LiteralStyle, yaml.FoldedStyle:
		srcLine++
		for srcLine <= len(p.lines) && len(bytes.TrimSpace(p.lines[srcLine-1])) == 0 {
			srcLine++
		}
		srcCol = indentCol(p.lines, srcLine)
	}
	if n.Style == yaml.LiteralStyle {
		// Each value line is one source line.
		return srcLine + line - 1, srcCol + col
	}
	// Other styles fold lines into spaces: walk the source lines.
	offset := runeOffset(n.Value, line, col)
	l, c := srcLine, srcCol
	for l <= len(p.lines) {
		text := []rune(string(p.lines[l-1]))
		rest := len(text) - (c - 1)
		if rest < 0 {
			rest = 0
		}
		if offset <= rest || l == len(p.lines) {
			return l, c + offset
		}
		next := l + 1
		if next > len(p.lines) || (n.Style == yaml.FoldedStyle && len(bytes.TrimSpace(p.lines[next-1])) == 0) {
			return l, c + offset
		}
		offset -= rest + 1
		if offset < 0 {
			return l, c + rest
		}
		l, c = next, indentCol(p.lines, next)
	}
	return srcLine, srcCol + col
}

// indentCol is the column (from 1) of the first non-space of a line.
func indentCol(lines [][]byte, l int) int {
	if l < 1 || l > len(lines) {
		return 1
	}
	s := string(lines[l-1])
	return len([]rune(s)) - len([]rune(strings.TrimLeft(s, " \t"))) + 1
}

// offsetPos is the line (from 1) and column (from 0) of a rune offset.
func offsetPos(src string, from int) (line, col int) {
	line = 1
	i := 0
	for _, r := range src {
		if i == from {
			break
		}
		if r == '\n' {
			line++
			col = 0
		} else {
			col++
		}
		i++
	}
	return line, col
}

// runeOffset is the rune offset in src of a line (from 1) and column (from 0).
func runeOffset(src string, line, col int) int {
	off, l := 0, 1
	for _, r := range src {
		if l == line {
			break
		}
		if r == '\n' {
			l++
		}
		off++
	}
	return off + col
}
