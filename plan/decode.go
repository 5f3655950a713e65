package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/limit"
)

// maxNodes bounds the values a plan may expand to, aliases included, so a
// billion-laughs document is refused instead of exhausting memory.
const maxNodes = 1 << 20

// maxAliased bounds the values reached through aliases: plans use a few
// anchors at most, and a bomb is refused quickly.
const maxAliased = 20_000

// decoder fills the YAML-shaped types from a yaml.Node tree strictly:
// unknown and duplicate keys and wrong types are errors at their position.
// yaml.v3's KnownFields does not survive Node.Decode, hence the walk.
type decoder struct {
	filename string
	diags    Diagnostics
	pos      map[string]*yaml.Node // field path (bets[0].stake) → its value
	keys     map[string]*yaml.Node // field path → its key
	// failed holds the paths whose value could not be decoded, so the
	// rules checked afterwards do not report the zero left in its place.
	failed  map[string]bool
	nodes   int
	bombed  bool
	alias   *yaml.Node // the outermost alias being expanded
	aliased int

	// diags holds at most MaxDiagnosticsPerFile and one (keep). added
	// counts every problem reported, errors every error, kept or
	// only counted past the cap: a stage asks them whether it added one.
	added, errors int
	// over counts the problems past the cap, by severity, and where the
	// first of them is; cut is the position past which a problem is only
	// counted (set once the cap is reached).
	overErrors, overWarnings int
	overFirst, cut           position
	// hold > 0 keeps the kept problems in place (a caller rewrites the
	// ones it added).
	hold int
	// built counts the diagnostics made, peak the most kept at once, for
	// the tests.
	built, peak int
}

// nodeDecoder is a field type that decodes itself, for fields that take
// more than one shape (a number or an expression, a key or a mapping).
type nodeDecoder interface {
	decodeNode(d *decoder, n *yaml.Node, path string)
}

func (d *decoder) add(sev Severity, n *yaml.Node, format string, args ...any) {
	var at position
	if n != nil {
		at = position{n.Line, n.Column}
	}
	if d.counted(sev, at) {
		return // past the cap: its words are never made
	}
	diag := Diagnostic{Severity: sev, Summary: fmt.Sprintf(format, args...), Filename: d.filename, Line: at.line, Column: at.col}
	if n != nil {
		diag.EndLine, diag.EndColumn = nodeEnd(n)
	}
	d.keep(diag)
}

// push reports a diagnostic made by the caller.
func (d *decoder) push(x Diagnostic) {
	if !d.counted(x.Severity, position{x.Line, x.Column}) {
		d.keep(x)
	}
}

// position is a diagnostic's line and column, as they sort.
type position struct{ line, col int }

func (a position) before(b position) bool {
	return a.line < b.line || (a.line == b.line && a.col < b.col)
}

// counted counts a problem and reports whether it falls past the cap:
// once MaxDiagnosticsPerFile problems are kept, one at or after the last
// of them is only counted, so a file of 690,000 duplicate keys costs 100
// diagnostics, not 690,000 (and their sort).
func (d *decoder) counted(sev Severity, at position) bool {
	d.added++
	if sev == SeverityError {
		d.errors++
	}
	if d.cut == (position{}) || at.before(d.cut) {
		return false
	}
	d.over(sev, at)
	return true
}

func (d *decoder) over(sev Severity, at position) {
	if d.overErrors+d.overWarnings == 0 || at.before(d.overFirst) {
		d.overFirst = at
	}
	if sev == SeverityError {
		d.overErrors++
	} else {
		d.overWarnings++
	}
}

// keep adds a diagnostic to those kept; past the cap, the last by
// position go to the counts.
func (d *decoder) keep(x Diagnostic) {
	d.built++
	d.diags = append(d.diags, x)
	d.peak = max(d.peak, len(d.diags))
	if len(d.diags) > MaxDiagnosticsPerFile && d.hold == 0 {
		d.trim()
	}
}

// trim sorts the kept diagnostics, drops repeats (a default's problem is
// found once per bet), and counts those past MaxDiagnosticsPerFile.
func (d *decoder) trim() {
	sortDiagnostics(d.diags)
	d.diags = slices.Compact(d.diags)
	if len(d.diags) <= MaxDiagnosticsPerFile {
		return
	}
	for _, x := range d.diags[MaxDiagnosticsPerFile:] {
		d.over(x.Severity, position{x.Line, x.Column})
	}
	clear(d.diags[MaxDiagnosticsPerFile:])
	d.diags = d.diags[:MaxDiagnosticsPerFile]
	last := d.diags[MaxDiagnosticsPerFile-1]
	d.cut = position{last.Line, last.Column}
}

// result is every diagnostic kept, sorted, and past the cap one more that
// says how many were left out.
func (d *decoder) result() Diagnostics {
	d.trim()
	diags := slices.Clip(d.diags)
	n := d.overErrors + d.overWarnings
	if n == 0 {
		return diags
	}
	sev := SeverityWarning
	if d.overErrors > 0 {
		sev = SeverityError
	}
	at := d.overFirst
	return append(diags, Diagnostic{
		Severity: sev, Filename: d.filename, Line: at.line, Column: at.col,
		EndLine: at.line, EndColumn: at.col + 1,
		Summary: fmt.Sprintf("and %d more problems in %s (%s, %s) not shown: fix the ones above first",
			n, d.filename, countOf(d.overErrors, "error"), countOf(d.overWarnings, "warning")),
	})
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.add(SeverityError, n, format, args...)
}

func (d *decoder) warnf(n *yaml.Node, format string, args ...any) {
	d.add(SeverityWarning, n, format, args...)
}

func (d *decoder) markFailed(path string) {
	if d.failed == nil {
		d.failed = map[string]bool{}
	}
	d.failed[path] = true
}

// nodeEnd is where a one-line scalar ends; other nodes end where they
// start (a caret marks the start).
func nodeEnd(n *yaml.Node) (int, int) {
	if n.Kind == yaml.ScalarNode && !strings.Contains(n.Value, "\n") {
		w := len([]rune(n.Value))
		switch n.Style {
		case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
			w += 2
		case yaml.LiteralStyle, yaml.FoldedStyle:
			return n.Line, n.Column + 1
		}
		return n.Line, n.Column + max(w, 1)
	}
	return n.Line, n.Column + 1
}

// resolve follows an alias and counts the node against the budget.
func (d *decoder) resolve(n *yaml.Node) (*yaml.Node, bool) {
	if d.bombed {
		return nil, false
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	d.nodes++
	if d.alias != nil {
		d.aliased++
	}
	if d.nodes > maxNodes || d.aliased > maxAliased {
		d.bombed = true
		at := n
		if d.alias != nil {
			at = d.alias
		}
		d.errorf(at, "the plan expands to too many values (more than %d in all or %d through aliases): refusing it as an alias bomb or an oversized plan", maxNodes, maxAliased)
		return nil, false
	}
	return n, true
}

// describe names what a node is, for "must be X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "nothing"
		case "!!str":
			return strconv.Quote(n.Value)
		}
		return n.Value
	}
	return "something else"
}

func lastSegment(path string) string {
	if i := strings.LastIndexAny(path, ".]"); i >= 0 && path[i] == '.' {
		return path[i+1:]
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

// decode fills v from n. what names the thing for messages ("bet").
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path, what string) {
	if n.Kind == yaml.AliasNode && d.alias == nil {
		d.alias = n
		defer func() { d.alias = nil }()
	}
	n, ok := d.resolve(n)
	if !ok {
		return
	}
	d.pos[path] = n
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && v.Kind() != reflect.Interface {
		return // absent
	}
	if v.Kind() == reflect.Pointer {
		switch v.Type().Elem().Kind() {
		case reflect.String, reflect.Int, reflect.Float64, reflect.Bool:
			// A scalar that fails to decode stays absent, so no second
			// error follows about its zero value.
			before := d.added
			tmp := reflect.New(v.Type().Elem())
			d.decode(n, tmp.Elem(), path, what)
			if d.added == before {
				v.Set(tmp)
			}
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path, what)
		return
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		v.Addr().Interface().(nodeDecoder).decodeNode(d, n, path)
		return
	}
	field := lastSegment(path)
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path, what)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.errorf(n, "%s must be a mapping of names to values, got %s", field, describe(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
		}
		d.eachPair(n, func(k, val *yaml.Node) {
			elem := reflect.New(v.Type().Elem()).Elem()
			p := path + "[" + k.Value + "]"
			if v.Type().Elem().Kind() == reflect.Interface {
				p = path + "." + k.Value
			}
			d.keys[p] = k
			d.decode(val, elem, p, strings.TrimSuffix(field, "s"))
			v.SetMapIndex(reflect.ValueOf(k.Value), elem)
		})
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "%s must be a list, got %s", field, describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.decode(c, s.Index(i), path+"["+strconv.Itoa(i)+"]", what)
		}
		v.Set(s)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!bool" {
			d.errorf(n, "%s must be a string, got %s", field, describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Int:
		i, err := strconv.Atoi(strings.ReplaceAll(n.Value, "_", ""))
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
			d.markFailed(path)
			if f, ok := scalarNumber(n); ok && math.Abs(f) >= math.MaxInt64 || errors.Is(err, strconv.ErrRange) || notFinite(n) {
				d.errorf(n, "%s %s is out of range: no whole number betplan reads is that large", field, n.Value)
				return
			}
			d.errorf(n, "%s must be a whole number, got %s", field, describe(n))
			return
		}
		v.SetInt(int64(i))
	case reflect.Float64:
		f, ok := scalarNumber(n)
		if !ok {
			d.markFailed(path)
			if notFinite(n) {
				hint := ""
				if k := limit.Lookup(field); k != nil && strings.HasPrefix(path, "limits.") {
					hint = ": " + k.Help()
				}
				d.errorf(n, "%s %s is not a finite number%s", field, n.Value, hint)
				return
			}
			d.errorf(n, "%s must be a number, got %s", field, describe(n))
			return
		}
		v.SetFloat(f)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.errorf(n, "%s must be true or false, got %s", field, describe(n))
			return
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	case reflect.Interface:
		if x := d.value(n, path); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		panic("plan: cannot decode into " + v.Type().String())
	}
}

// scalarNumber reads a finite YAML int or float.
func scalarNumber(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, false
	}
	var f float64
	if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// notFinite reports whether n is written as a number no float64 holds:
// 1e309, which YAML reads as a string since Go's strconv refuses it, or
// .inf and .nan.
func notFinite(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	switch n.Tag {
	case "!!float":
		var f float64
		return n.Decode(&f) == nil && (math.IsInf(f, 0) || math.IsNaN(f))
	case "!!str":
		s := strings.TrimSpace(n.Value)
		if !numberLike(s) {
			return false
		}
		_, err := strconv.ParseFloat(s, 64)
		return errors.Is(err, strconv.ErrRange)
	}
	return false
}

// numberLike reports whether s starts as a number does (a digit, a sign
// or a point), so that an expression such as vars.unit * 2 is never
// handed to strconv, whose refusal allocates.
func numberLike(s string) bool {
	return s != "" && strings.IndexByte("0123456789+-.", s[0]) >= 0
}

// value converts free YAML (vars, options) to Go values expressions can
// use: map[string]any, []any, string, int, float64, bool, nil.
func (d *decoder) value(n *yaml.Node, path string) any {
	if n.Kind == yaml.AliasNode && d.alias == nil {
		d.alias = n
		defer func() { d.alias = nil }()
	}
	n, ok := d.resolve(n)
	if !ok {
		return nil
	}
	d.pos[path] = n
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		d.eachPair(n, func(k, val *yaml.Node) {
			p := path + "." + k.Value
			d.keys[p] = k
			m[k.Value] = d.value(val, p)
		})
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = d.value(c, path+"["+strconv.Itoa(i)+"]")
		}
		return s
	}
	var x any
	if err := n.Decode(&x); err != nil {
		d.errorf(n, "%s: %v", lastSegment(path), err)
		return nil
	}
	if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		d.errorf(n, "%s must be a finite number, got %s", lastSegment(path), n.Value)
		return nil
	}
	return x
}

// eachPair walks a mapping's pairs, refusing duplicate, non-string and
// merge keys.
func (d *decoder) eachPair(n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		if k.Tag == "!!merge" {
			d.errorf(k, "merge keys (<<) are not supported: put shared bet fields in defaults")
			continue
		}
		if k.Kind != yaml.ScalarNode || k.Tag == "!!null" {
			d.errorf(k, "a key must be a name, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, "duplicate key %q (first at line %d)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		fn(k, v)
	}
}

type structField struct {
	index int
	name  string
}

var structFieldsCache = map[reflect.Type][]structField{}

func structFields(t reflect.Type) []structField {
	if fs, ok := structFieldsCache[t]; ok {
		return fs
	}
	var fs []structField
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			fs = append(fs, structField{i, name})
		}
	}
	structFieldsCache[t] = fs
	return fs
}

func init() {
	for _, t := range []reflect.Type{reflect.TypeFor[planDoc](), reflect.TypeFor[raceDoc](), reflect.TypeFor[betDoc](), reflect.TypeFor[pollDoc](),
		reflect.TypeFor[tipDoc](), reflect.TypeFor[prealertDoc](), reflect.TypeFor[notifyDoc]()} {
		structFields(t) // fill the cache before any concurrent Parse
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path, what string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, got %s", what, describe(n))
		return
	}
	fields := structFields(v.Type())
	d.eachPair(n, func(k, val *yaml.Node) {
		for _, f := range fields {
			if f.name == k.Value {
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				d.keys[p] = k
				d.decode(val, v.Field(f.index), p, childWhat(k.Value, what))
				return
			}
		}
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.name
		}
		hint := didYouMean(k.Value, names)
		if hint == "" {
			hint = " (fields: " + strings.Join(names, ", ") + ")"
		}
		d.errorf(k, "unknown field %q in %s%s", k.Value, what, hint)
	})
}

// raceField is a bet's race: a key of races or an inline race.
type raceField struct {
	Key    string
	Inline *raceDoc
	node   *yaml.Node
}

func (r *raceField) decodeNode(d *decoder, n *yaml.Node, path string) {
	r.node = n
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag != "!!bool":
		r.Key = n.Value
	case n.Kind == yaml.MappingNode:
		r.Inline = &raceDoc{}
		d.decodeStruct(n, reflect.ValueOf(r.Inline).Elem(), path, "race")
	default:
		d.errorf(n, "race must be a key of races or a mapping {venue, code, event_number}, got %s", describe(n))
	}
}

// exprField is an expression's source as written.
type exprField struct {
	Source string
	node   *yaml.Node
}

func (e *exprField) decodeNode(d *decoder, n *yaml.Node, path string) {
	e.node = n
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s must be an expression (a string), got %s", lastSegment(path), describe(n))
		return
	}
	e.Source = n.Value
	if n.Tag == "!!bool" {
		e.Source = strings.ToLower(n.Value)
	}
}

// amountField is dollars: a number, or an expression giving one.
type amountField struct {
	Value  float64
	Source string // an expression; "" for a number
	node   *yaml.Node
}

func (a *amountField) decodeNode(d *decoder, n *yaml.Node, path string) {
	a.node = n
	if f, ok := scalarNumber(n); ok {
		a.Value = f
		return
	}
	if notFinite(n) {
		d.markFailed(path)
		d.errorf(n, "%s %s is not a finite number: %s", lastSegment(path), n.Value, betAmountRange)
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		// A quoted number is a number; the rest is an expression.
		if s := strings.TrimSpace(n.Value); numberLike(s) {
			if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				a.Value = f
				return
			}
		}
		a.Source = n.Value
		return
	}
	d.markFailed(path)
	d.errorf(n, "%s must be a number or an expression, got %s", lastSegment(path), describe(n))
}

// durationField is a Go duration such as 30s.
type durationField struct {
	Value time.Duration
	node  *yaml.Node
}

func (t *durationField) decodeNode(d *decoder, n *yaml.Node, path string) {
	t.node = n
	field := lastSegment(path)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		d.errorf(n, "%s %s needs a unit: write %ss for seconds or %sm for minutes", field, n.Value, n.Value, n.Value)
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		d.errorf(n, "%s must be a duration such as 30s, 1m30s or 3h, got %s", field, describe(n))
		return
	}
	t.Value = dur
}

// childWhat names what a section holds, for messages.
func childWhat(key, what string) string {
	switch key {
	case "bets":
		return "bet"
	case "races":
		return "race"
	case "tips":
		return "tip"
	case "prealert":
		return key
	case "defaults", "limits", "poll", "options":
		return key
	}
	return what
}
