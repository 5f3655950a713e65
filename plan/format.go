package plan

import (
	"bytes"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Format lays a plan out the one canonical way: keys in the documented
// order (the order of the plan's reference), 2-space indentation, quotes
// only where YAML needs them, one blank line between bets. Comments stay,
// and so do the blank lines a person put between top-level sections. A
// plan with errors is not formatted: its diagnostics come back instead.
func Format(filename string, src []byte) ([]byte, Diagnostics) {
	if _, diags := Parse(filename, src); diags.HasErrors() {
		return nil, diags
	}
	return layOut(src, reflect.TypeFor[planDoc]()), nil
}

// FormatConfig lays an account file out as Format does a plan; an
// account file with errors comes back as its diagnostics.
func FormatConfig(filename string, src []byte) ([]byte, Diagnostics) {
	if _, diags := ParseConfig(filename, src); diags.HasErrors() {
		return nil, diags
	}
	return layOut(src, reflect.TypeFor[configDoc]()), nil
}

// layOut formats a checked file whose YAML shape is t.
func layOut(src []byte, t reflect.Type) []byte {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return src // Parse accepted it, so this cannot happen; leave the file alone
	}
	root := doc.Content[0]
	srcLines := strings.Split(string(src), "\n")
	spaced := map[string]bool{} // top-level keys a blank line came before
	for i := 2; i < len(root.Content); i += 2 {
		if start := startLine(root.Content[i], nil); start >= 2 && strings.TrimSpace(srcLines[start-2]) == "" {
			spaced[root.Content[i].Value] = true
		}
	}
	// The comment heading the file's first key heads the file (its
	// modeline, its description), not that key: it stays on top.
	var header string
	if len(root.Content) > 0 {
		header, root.Content[0].HeadComment = root.Content[0].HeadComment, ""
	}
	canonical(root, t)
	if len(root.Content) > 0 && header != "" {
		first := root.Content[0]
		first.HeadComment = strings.TrimSuffix(header+"\n"+first.HeadComment, "\n")
	}

	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return src
	}
	enc.Close()
	return alignComments(spaceOut(out.Bytes(), spaced), srcLines)
}

// alignComments keeps a person's alignment of end-of-line comments: where
// the source had two or more consecutive lines whose comments started in
// one column, the same lines of the output have them in one column again
// (the source's column when the code still fits before it).
func alignComments(out []byte, srcLines []string) []byte {
	// Comments that were aligned in the source, with their column.
	aligned := map[string]int{}
	for i := 0; i < len(srcLines); {
		j, col := i, eolComment(srcLines[i])
		for col > 0 && j+1 < len(srcLines) && eolComment(srcLines[j+1]) == col {
			j++
		}
		if j > i {
			for k := i; k <= j; k++ {
				aligned[strings.TrimSpace(srcLines[k][col:])] = col
			}
		}
		i = j + 1
	}
	if len(aligned) == 0 {
		return out
	}
	lines := strings.Split(string(out), "\n")
	for i := 0; i < len(lines); {
		j, width, col := i, 0, 0
		for ; j < len(lines); j++ {
			c := eolComment(lines[j])
			want, ok := aligned[strings.TrimSpace(lines[j][max(c, 0):])]
			if c <= 0 || !ok {
				break
			}
			width, col = max(width, len(strings.TrimRight(lines[j][:c], " "))), max(col, want)
		}
		if j-i >= 2 {
			col = max(col, width+1)
			for k := i; k < j; k++ {
				c := eolComment(lines[k])
				code := strings.TrimRight(lines[k][:c], " ")
				lines[k] = code + strings.Repeat(" ", col-len(code)) + lines[k][c:]
			}
		}
		i = max(j, i+1)
	}
	return []byte(strings.Join(lines, "\n"))
}

// eolComment is the byte column of a line's end-of-line comment (a "#"
// after code and a space, outside quotes), or -1.
func eolComment(line string) int {
	at := -1
	unquoted(line, func(i int, ch byte) bool {
		if ch == '#' && i > 0 && line[i-1] == ' ' && strings.TrimSpace(line[:i]) != "" {
			at = i
			return false
		}
		return true
	})
	return at
}

// canonical orders the keys of a mapping as the fields of t are declared
// and lets the encoder choose quoting, recursing into the plan's parts.
func canonical(n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.ScalarNode:
		// Quoting is the encoder's job: it keeps quotes where a plain
		// scalar would read as another type ("3" stays a string).
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 && n.Tag == "!!str" {
			n.Style &^= yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle
		}
		return
	case yaml.SequenceNode:
		for _, c := range n.Content {
			canonical(c, t)
		}
		return
	case yaml.MappingNode:
	default:
		return
	}
	if t.Kind() == reflect.Map {
		for i := 1; i < len(n.Content); i += 2 {
			canonical(n.Content[i], t.Elem())
		}
		return
	}
	if t.Kind() != reflect.Struct {
		for i := 1; i < len(n.Content); i += 2 {
			canonical(n.Content[i], reflect.TypeFor[any]())
		}
		return
	}
	order := map[string]int{}
	fields := map[string]reflect.Type{}
	if l, ok := reflect.Zero(t).Interface().(keyLayout); ok {
		// Its keys are not its fields (a limits section's are the
		// kinds'): scalars, in the order it says.
		for i, name := range l.layoutKeys() {
			order[name], fields[name] = i, reflect.TypeFor[any]()
		}
	} else {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			order[name], fields[name] = i, f.Type
		}
	}
	type pair struct{ k, v *yaml.Node }
	pairs := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, pair{n.Content[i], n.Content[i+1]})
	}
	rank := func(p pair) int {
		if r, ok := order[p.k.Value]; ok {
			return r
		}
		return len(order) // unknown keys cannot pass Parse; keep them last
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return rank(a) - rank(b) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p.k, p.v)
		if ft, ok := fields[p.k.Value]; ok {
			canonical(p.v, fieldType(ft))
		}
	}
}

// keyLayout is a document type whose keys are not its fields: it says
// their order.
type keyLayout interface{ layoutKeys() []string }

// fieldType is the document type a field's value is laid out as: the
// YAML-shaped wrappers (raceField, amountField...) hold scalars or a race.
func fieldType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[raceField]() {
		return reflect.TypeFor[raceDoc]()
	}
	if t == reflect.TypeFor[eventField]() {
		return reflect.TypeFor[eventDoc]()
	}
	return t
}

// startLine is the first line of a node with its head comment: a blank
// line put before a section goes above the comment that heads it.
func startLine(n *yaml.Node, value *yaml.Node) int {
	line := n.Line
	for _, c := range []*yaml.Node{n, value} {
		if c != nil && c.HeadComment != "" {
			line = min(line, c.Line-strings.Count(c.HeadComment, "\n")-1)
		}
	}
	return line
}

// spaceOut puts the blank lines into the encoder's output: before each
// bet and each tip but the first, and before each top-level key a person spaced.
func spaceOut(out []byte, spaced map[string]bool) []byte {
	var doc yaml.Node
	if yaml.Unmarshal(out, &doc) != nil || len(doc.Content) != 1 {
		return out
	}
	root := doc.Content[0]
	before := map[int]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if i > 0 && spaced[k.Value] {
			before[startLine(k, nil)] = true
		}
		if (k.Value == "bets" || k.Value == "tips") && v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 {
			for j, bet := range v.Content {
				if j == 0 {
					continue
				}
				var first *yaml.Node
				if bet.Kind == yaml.MappingNode && len(bet.Content) > 0 {
					first = bet.Content[0]
				}
				before[startLine(bet, first)] = true
			}
		}
	}
	lines := strings.SplitAfter(string(out), "\n")
	var b strings.Builder
	for i, l := range lines {
		if before[i+1] && i > 0 && strings.TrimSpace(lines[i-1]) != "" {
			b.WriteString("\n")
		}
		b.WriteString(l)
	}
	return []byte(b.String())
}
