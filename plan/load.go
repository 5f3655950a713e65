package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// MaxFileSize is the largest plan Load and Parse accept.
const MaxFileSize = 4 << 20

// Load reads a plan file with ReadFile and parses it.
func Load(path string) (*Plan, Diagnostics) {
	p, _, diags := LoadSource(path)
	return p, diags
}

// LoadSource is Load that also returns the bytes it read, for the
// diagnostics' source lines.
func LoadSource(path string) (*Plan, []byte, Diagnostics) {
	return loadFile(path, "the plan", Parse)
}

// loadFile reads the file at path with ReadFile and hands it to parse; a
// file it cannot read is one error naming what (the plan, the account
// file), with no position.
func loadFile[T any](path, what string, parse func(string, []byte) (*T, Diagnostics)) (*T, []byte, Diagnostics) {
	data, err := ReadFile(path)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), path+": ")
		return nil, nil, Diagnostics{{Severity: SeverityError, Filename: path, Summary: "cannot read " + what + ": " + msg}}
	}
	v, diags := parse(path, data)
	return v, data, diags
}

// tooLarge is the error for data over MaxFileSize, naming what it is (the
// plan, the account file); nil when it is not.
func tooLarge(filename string, data []byte, what string) Diagnostics {
	if len(data) <= MaxFileSize {
		return nil
	}
	return Diagnostics{{Severity: SeverityError, Filename: filename, Line: 1, Column: 1,
		Summary: fmt.Sprintf("%s is larger than %d MiB: refusing to read it (is this the right file?)", what, MaxFileSize>>20)}}
}

// Parse decodes and checks a plan. The plan is nil when the diagnostics
// hold an error; warnings come with a plan.
func Parse(filename string, data []byte) (*Plan, Diagnostics) {
	if d := tooLarge(filename, data, "the plan"); d != nil {
		return nil, d
	}
	p, diags := parseData(filename, data)
	if diags.HasErrors() {
		return nil, diags
	}
	return p.plan, diags
}

// parseData is Parse past the size check, with the parser it ran.
func parseData(filename string, data []byte) (*parser, Diagnostics) {
	p := &parser{
		d:    decoder{filename: filename, pos: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}},
		c:    newCompiler(),
		src:  data,
		plan: &Plan{Filename: filename},
	}
	sum := sha256.Sum256(data)
	p.plan.Hash = "sha256:" + hex.EncodeToString(sum[:])
	p.parse()
	return p, p.d.result()
}

// parser carries one Parse through its stages; each stage is one file of
// the package (validate, check, resolve, merge, options, position).
type parser struct {
	d     decoder
	c     *compiler
	src   []byte
	lines [][]byte
	doc   planDoc
	root  *yaml.Node
	plan  *Plan
	// betExprs lists, bet by bet, where the expressions each bet runs were
	// written (its own or the defaults').
	betExprs []betExprs
	// sums are what the bets, in file order, add up to for the plan-wide
	// limits, those with an error included (checkStaticLimits).
	sums staticSums
	// badRaces are the keys of races whose entry has an error.
	badRaces map[string]bool
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) parse() {
	if p.decodeRoot(reflect.ValueOf(&p.doc).Elem(), "plan") {
		p.check()
	}
}

// decodeRoot decodes the one YAML document of the file into v; what names
// the file for messages ("plan", "account file"). False when nothing more
// can be checked.
func (p *parser) decodeRoot(v reflect.Value, what string) bool {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(p.src))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			p.d.push(Diagnostic{Severity: SeverityError, Filename: p.d.filename, Line: 1, Column: 1, Summary: "the " + what + " is empty"})
			return false
		}
		line, msg := 1, err.Error()
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		d := Diagnostic{Severity: SeverityError, Filename: p.d.filename, Line: line, Column: 1, Summary: "invalid YAML: " + msg}
		if l, c, b, ok := invalidUTF8(p.src); ok {
			// yaml.v3 names no position for bytes that are not UTF-8.
			d.Line, d.Column = l, c
			d.Summary = fmt.Sprintf("invalid YAML: byte 0x%02X is not UTF-8 text", b)
			d.Detail = "save the file as UTF-8: Latin-1 and Windows-1252 write é, £ and curly quotes as single bytes"
		} else if f, ok := locateYAMLFault(p.src); ok {
			d.Line, d.Column = f.line, f.col
			d.Summary, d.Detail = "invalid YAML: "+f.summary, f.hint
		}
		p.d.push(d)
		return false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.d.errorf(&extra, "the file holds more than one YAML document: a %s is one document", what)
	}
	p.root = &doc
	if len(doc.Content) == 0 {
		p.d.errorf(&doc, "the %s is empty", what)
		return false
	}
	if a := selfAlias(&doc, map[*yaml.Node]bool{}); a != nil {
		p.d.errorf(a, "alias *%s is inside its own anchor &%s: it would expand forever", a.Value, a.Value)
		return false
	}
	p.d.decode(doc.Content[0], v, "", what)
	return !p.d.bombed
}

// invalidUTF8 is where the first byte of src that is not UTF-8 is: its
// line and column (in characters, from 1) and the byte. A file that
// starts with a UTF-16 byte order mark is YAML's too, and has none.
func invalidUTF8(src []byte) (line, col int, b byte, ok bool) {
	if utf8.Valid(src) || bytes.HasPrefix(src, []byte{0xFE, 0xFF}) || bytes.HasPrefix(src, []byte{0xFF, 0xFE}) {
		return 0, 0, 0, false
	}
	line, col = 1, 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return line, col, src[i], true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += n
	}
	return 0, 0, 0, false
}

// selfAlias finds an alias inside the value its anchor names, such as
// "vars: &a {x: *a}", before anything expands it: expanded, it took
// hundreds of megabytes before the node budget refused it.
func selfAlias(n *yaml.Node, open map[*yaml.Node]bool) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		if open[n.Alias] {
			return n
		}
		return nil
	}
	open[n] = true
	defer delete(open, n)
	for _, c := range n.Content {
		if a := selfAlias(c, open); a != nil {
			return a
		}
	}
	return nil
}
