package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Expr is a compiled condition or amount. It is safe for concurrent use.
type Expr struct {
	Source  string
	program *vm.Program
	idents  []identProgram // what Explain shows
}

type identProgram struct {
	path    string
	program *vm.Program
}

// String is the expression's source.
func (e *Expr) String() string {
	if e == nil {
		return ""
	}
	return e.Source
}

// exprKind is what an expression must give.
type exprKind int

const (
	kindBool exprKind = iota
	kindNumber
)

func (k exprKind) option() expr.Option {
	if k == kindBool {
		return expr.AsBool()
	}
	return expr.AsFloat64()
}

var baseOptions = func() []expr.Option {
	opts := append([]expr.Option{expr.Env(Env{}), expr.MaxNodes(2000)}, boundedBuilders...)
	for _, h := range helpers {
		opts = append(opts, expr.Function(h.name, h.fn, h.types...))
	}
	return opts
}()

// exprError is a compile error at a position inside the expression's
// source: line from 1, column from 0, in runes.
type exprError struct {
	msg          string
	line, column int
	hasPos       bool
}

func (e *exprError) Error() string { return e.msg }

// compiler compiles each distinct source once per parse: a generated plan
// repeats the same few conditions many times.
type compiler struct {
	cache map[compileKey]compiled
	lints map[compileKey][]finding
	reads map[string]exprReads
}

type compileKey struct {
	src  string
	kind exprKind
}

type compiled struct {
	expr *Expr
	tree ast.Node
	err  error
}

func newCompiler() *compiler {
	return &compiler{cache: map[compileKey]compiled{}, lints: map[compileKey][]finding{}, reads: map[string]exprReads{}}
}

// lint is what varsFindings and unboundedBuilds find in src, worked out
// once per distinct source: the plan's vars are the same for all its
// expressions, and a generated plan repeats a few thousand times.
func (c *compiler) lint(src string, kind exprKind, tree ast.Node, vars map[string]any) []finding {
	key := compileKey{src, kind}
	if fs, ok := c.lints[key]; ok {
		return fs
	}
	fs := append(unboundedBuilds(tree), varsFindings(src, kind, vars)...)
	c.lints[key] = fs
	return fs
}

func (c *compiler) compile(src string, kind exprKind) (*Expr, ast.Node, error) {
	key := compileKey{src, kind}
	if r, ok := c.cache[key]; ok {
		return r.expr, r.tree, r.err
	}
	e, tree, err := c.compileNew(src, kind)
	c.cache[key] = compiled{e, tree, err}
	return e, tree, err
}

func (c *compiler) compileNew(src string, kind exprKind) (*Expr, ast.Node, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil, &exprError{msg: "the expression is empty"}
	}
	program, err := expr.Compile(src, append(baseOptions[:len(baseOptions):len(baseOptions)], kind.option())...)
	if err != nil {
		return nil, nil, explainCompileError(err, kind)
	}
	tree, err := exprparser.Parse(src)
	if err != nil {
		return nil, nil, explainCompileError(err, kind)
	}
	e := &Expr{Source: src, program: program}
	for _, path := range identifiers(tree.Node) {
		key := compileKey{"\x00" + path, kind}
		r, ok := c.cache[key]
		if !ok {
			p, err := expr.Compile(path, baseOptions...)
			r = compiled{expr: &Expr{Source: path, program: p}, err: err}
			c.cache[key] = r
		}
		if r.err == nil {
			e.idents = append(e.idents, identProgram{path, r.expr.program})
		}
	}
	return e, tree.Node, nil
}

// explainCompileError turns expr's messages into sentences about the plan's
// names, with did-you-mean where a name is misspelt.
func explainCompileError(err error, kind exprKind) error {
	var fe *file.Error
	if !errors.As(err, &fe) {
		msg := err.Error()
		if got, ok := strings.CutPrefix(msg, "expected bool, but got "); ok {
			msg = "must be true or false, but it gives " + typeWord(got)
		} else if got, ok := strings.CutPrefix(msg, "expected float64, but got "); ok {
			msg = "must give a number, but it gives " + typeWord(got)
		}
		return &exprError{msg: msg}
	}
	msg := fe.Message
	switch {
	case strings.HasPrefix(msg, "unknown name "):
		name := strings.TrimPrefix(msg, "unknown name ")
		msg = fmt.Sprintf("unknown name %s%s (names are race, event, now, vars, sessions, plan, bets and the functions %s)",
			name, didYouMean(name, topNames), strings.Join(helperNames, ", "))
	case strings.HasPrefix(msg, "type plan.RaceEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.RaceEnv has no field ")
		msg = fmt.Sprintf("race has no field %s%s", name, orList(name, raceNames))
	case strings.HasPrefix(msg, "type plan.SessionEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.SessionEnv has no field ")
		msg = fmt.Sprintf("a session has no field %s%s", name, orList(name, sessionNames))
	case strings.HasPrefix(msg, "type plan.EventEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.EventEnv has no field ")
		msg = fmt.Sprintf("event has no field %s%s", name, orList(name, eventNames))
	case strings.HasPrefix(msg, "type plan.MarketEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.MarketEnv has no field ")
		msg = fmt.Sprintf("a market has no field %s%s", name, orList(name, marketNames))
	case strings.HasPrefix(msg, "type plan.SelectionEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.SelectionEnv has no field ")
		msg = fmt.Sprintf("a selection has no field %s%s", name, orList(name, pickNames))
	case strings.HasPrefix(msg, "type plan.PlanEnv has no field "):
		name := strings.TrimPrefix(msg, "type plan.PlanEnv has no field ")
		msg = fmt.Sprintf("plan has no field %s%s", name, orList(name, planNames))
	}
	msg = strings.ReplaceAll(msg, "plan.EventEnv", "event")
	msg = strings.ReplaceAll(msg, "plan.MarketEnv", "market")
	msg = strings.ReplaceAll(msg, "plan.SelectionEnv", "selection")
	msg = strings.ReplaceAll(msg, "plan.RaceEnv", "race")
	msg = strings.ReplaceAll(msg, "plan.SessionEnv", "session")
	msg = strings.ReplaceAll(msg, "plan.PlanEnv", "plan")
	msg = strings.ReplaceAll(msg, "plan.Env", "environment")
	return &exprError{msg: msg, line: fe.Line, column: fe.Column, hasPos: fe.Line > 0}
}

func orList(name string, names []string) string {
	if s := didYouMean(name, names); s != "" {
		return s
	}
	return " (fields: " + strings.Join(names, ", ") + ")"
}

func typeWord(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "float64", "int", "int64":
		return "a number"
	}
	if strings.HasPrefix(goType, "[]") {
		return "a list"
	}
	if strings.HasPrefix(goType, "map") {
		return "a map"
	}
	return goType
}

func runEnv(env *Env) *Env {
	if env == nil {
		return &Env{}
	}
	return env
}

func (e *Expr) evalBool(env *Env) (bool, error) {
	v, err := run(e.program, runEnv(env))
	if err != nil {
		return false, fmt.Errorf("%q: %s", e.Source, runtimeMessage(err))
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%q gave %v, not true or false", e.Source, v)
	}
	return b, nil
}

func (e *Expr) evalFloat(env *Env) (float64, error) {
	v, err := run(e.program, runEnv(env))
	if err != nil {
		return 0, fmt.Errorf("%q: %s", e.Source, runtimeMessage(err))
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("%q gave %v, not a number", e.Source, v)
}

func runtimeMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

// Explain shows the values of the names the expression uses, e.g.
// "race.minutes_to_start = 0.5, vars.unit = 5".
func (e *Expr) Explain(env *Env) string {
	if e == nil {
		return ""
	}
	parts := make([]string, 0, len(e.idents))
	for _, id := range e.idents {
		v, err := run(id.program, runEnv(env))
		if err != nil {
			parts = append(parts, id.path+" = ?")
			continue
		}
		parts = append(parts, id.path+" = "+formatValue(v))
	}
	return strings.Join(parts, ", ")
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(x)
	case float64:
		if math.Abs(x) < 1e15 {
			return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format(time.RFC3339)
	case []string:
		return "[" + strings.Join(x, ",") + "]"
	case []SessionEnv:
		return fmt.Sprintf("%d sessions", len(x))
	case []MarketEnv:
		return fmt.Sprintf("%d markets", len(x))
	case []BetEnv:
		return fmt.Sprintf("%d bets", len(x))
	case BetEnv:
		return "a bet " + x.Status
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return fmt.Sprintf("%d items", rv.Len())
	}
	return fmt.Sprint(v)
}

// identifiers are the environment paths an expression reads, such as
// race.minutes_to_start and vars.unit, in order of first use.
func identifiers(n ast.Node) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		if p := memberPath(n); p != "" {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return
		}
		switch x := n.(type) {
		case *ast.UnaryNode:
			walk(x.Node)
		case *ast.BinaryNode:
			walk(x.Left)
			walk(x.Right)
		case *ast.CallNode:
			for _, a := range x.Arguments {
				walk(a)
			}
		case *ast.BuiltinNode:
			for _, a := range x.Arguments {
				walk(a)
			}
		case *ast.MemberNode:
			walk(x.Node)
			walk(x.Property)
		case *ast.ConditionalNode:
			walk(x.Cond)
			walk(x.Exp1)
			walk(x.Exp2)
		case *ast.ArrayNode:
			for _, a := range x.Nodes {
				walk(a)
			}
		case *ast.SliceNode:
			walk(x.Node)
		case *ast.ChainNode:
			walk(x.Node)
		}
	}
	walk(n)
	return out
}

// memberPath is "race.venue" for race.venue, "now" for now, or "" when n
// is not a plain path from the environment.
func memberPath(n ast.Node) string {
	switch x := n.(type) {
	case *ast.IdentifierNode:
		switch x.Value {
		case "race", "event", "now", "vars", "sessions", "plan", "bets":
			return x.Value
		}
	case *ast.MemberNode:
		s, ok := x.Property.(*ast.StringNode)
		if !ok || x.Method {
			return ""
		}
		if base := memberPath(x.Node); base != "" && base != "sessions" && base != "event.markets" {
			return base + "." + s.Value
		}
	case *ast.ChainNode:
		return memberPath(x.Node)
	}
	return ""
}

// leftmost is where the source of n starts.
func leftmost(n ast.Node) int {
	switch x := n.(type) {
	case *ast.BinaryNode:
		return leftmost(x.Left)
	case *ast.MemberNode:
		return leftmost(x.Node)
	case *ast.ChainNode:
		return leftmost(x.Node)
	}
	return n.Location().From
}

// finding is a warning about part of an expression, at a rune offset.
type finding struct {
	msg  string
	from int
}

// neverTrue finds a when whose constant parts contradict each other, such
// as race.minutes_to_start < 5 && race.minutes_to_start > 10, or false.
func neverTrue(n ast.Node) (finding, bool) {
	type bound struct {
		lo, hi         float64
		loIncl, hiIncl bool
		eq             *string
	}
	bounds := map[string]*bound{}
	var conj []ast.Node
	var flatten func(ast.Node)
	flatten = func(n ast.Node) {
		if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
			flatten(b.Left)
			flatten(b.Right)
			return
		}
		conj = append(conj, n)
	}
	flatten(n)
	for _, c := range conj {
		if b, ok := c.(*ast.BoolNode); ok && !b.Value {
			return finding{"this condition is always false: the bet would never be created", leftmost(c)}, true
		}
		b, ok := c.(*ast.BinaryNode)
		if !ok {
			continue
		}
		op := b.Operator
		path, lit := memberPath(b.Left), b.Right
		if path == "" {
			path, lit = memberPath(b.Right), b.Left
			op = flip(op)
		}
		if path == "" {
			continue
		}
		bd := bounds[path]
		if bd == nil {
			bd = &bound{lo: math.Inf(-1), hi: math.Inf(1), loIncl: true, hiIncl: true}
			bounds[path] = bd
		}
		if s, ok := lit.(*ast.StringNode); ok && op == "==" {
			if bd.eq != nil && *bd.eq != s.Value {
				return finding{fmt.Sprintf("%s cannot be both %q and %q: the bet would never be created", path, *bd.eq, s.Value), leftmost(c)}, true
			}
			bd.eq = &s.Value
			continue
		}
		v, ok := number(lit)
		if !ok {
			continue
		}
		switch op {
		case "<", "<=":
			if v < bd.hi || (v == bd.hi && op == "<") {
				bd.hi, bd.hiIncl = v, op == "<="
			}
		case ">", ">=":
			if v > bd.lo || (v == bd.lo && op == ">") {
				bd.lo, bd.loIncl = v, op == ">="
			}
		case "==":
			if v > bd.lo || (v == bd.lo && !bd.loIncl) {
				bd.lo, bd.loIncl = v, true
			}
			if v < bd.hi || (v == bd.hi && !bd.hiIncl) {
				bd.hi, bd.hiIncl = v, true
			}
		default:
			continue
		}
		if bd.lo > bd.hi || (bd.lo == bd.hi && !(bd.loIncl && bd.hiIncl)) {
			return finding{fmt.Sprintf("%s can never be %s and %s at once: the bet would never be created",
				path, side(">", bd.lo, bd.loIncl), side("<", bd.hi, bd.hiIncl)), leftmost(c)}, true
		}
	}
	return finding{}, false
}

func side(op string, v float64, incl bool) string {
	if incl {
		op += "="
	}
	return op + " " + strconv.FormatFloat(v, 'f', -1, 64)
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

func number(n ast.Node) (float64, bool) {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return float64(x.Value), true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.UnaryNode:
		if x.Operator == "-" {
			v, ok := number(x.Node)
			return -v, ok
		}
	}
	return 0, false
}

// literalChecks finds string literals compared with race.venue or
// race.code that the service would not know.
func literalChecks(n ast.Node) []finding {
	var out []finding
	check := func(path string, lit ast.Node) {
		s, ok := lit.(*ast.StringNode)
		if !ok {
			return
		}
		switch path {
		case "race.venue":
			if !knownVenue(s.Value) {
				out = append(out, finding{fmt.Sprintf("venue %q is not a venue betplan knows%s", s.Value, didYouMean(s.Value, venues)), s.Location().From})
			}
		case "race.code":
			if !slices.Contains(codes, s.Value) {
				out = append(out, finding{fmt.Sprintf("code %q is not a racing code%s (codes: %s)", s.Value, didYouMean(s.Value, codes), strings.Join(codes, ", ")), s.Location().From})
			}
		case "event.sport":
			if msg := sportWarning(s.Value); msg != "" {
				out = append(out, finding{msg, s.Location().From})
			}
		}
	}
	ast.Find(n, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return false
		}
		switch b.Operator {
		case "==", "!=":
			if p := memberPath(b.Left); p != "" {
				check(p, b.Right)
			} else if p := memberPath(b.Right); p != "" {
				check(p, b.Left)
			}
		case "in", "not in":
			if a, ok := b.Right.(*ast.ArrayNode); ok {
				if p := memberPath(b.Left); p != "" {
					for _, e := range a.Nodes {
						check(p, e)
					}
				}
			}
		}
		return false
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// varsFindings checks what an expression reads from vars against the
// plan's vars, which are known before the run: a name the plan does not
// define, a division by a constant zero, and a var whose value has a type
// the expression cannot use (checked by compiling the expression again
// with each var replaced by its value).
func varsFindings(src string, kind exprKind, vars map[string]any) []finding {
	tree, err := exprparser.Parse(src)
	if err != nil {
		return nil
	}
	var out []finding
	names := sortedKeys(vars)
	known := true
	ast.Find(tree.Node, func(n ast.Node) bool {
		name, ok := varName(n)
		if !ok {
			return false
		}
		if _, has := vars[name]; !has {
			known = false
			msg := fmt.Sprintf("unknown name vars.%s: the plan has no vars; add vars: {%s: ...} at the top", name, name)
			if len(names) > 0 {
				msg = fmt.Sprintf("unknown name vars.%s%s", name, orList(name, names))
				msg = strings.Replace(msg, "(fields: ", "(vars: ", 1)
			}
			out = append(out, finding{msg, leftmost(n)})
		}
		return false
	})
	ast.Find(tree.Node, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok || (b.Operator != "/" && b.Operator != "%") {
			return false
		}
		if v, ok := constantValue(b.Right, vars); ok && v == 0 {
			msg := "divides by zero"
			if _, literal := number(b.Right); !literal {
				msg += fmt.Sprintf(": %s is always 0", b.Right.String())
			}
			out = append(out, finding{msg, leftmost(b.Right)})
		}
		return false
	})
	if !known || len(out) > 0 {
		return out
	}
	// The expression printed back must compile as the source did, or a
	// failure below would be the printer's, not the plan's.
	opts := append(baseOptions[:len(baseOptions):len(baseOptions)], kind.option())
	if _, err := expr.Compile(tree.Node.String(), opts...); err != nil {
		return nil
	}
	var used []string
	ast.Walk(&tree.Node, varPatcher{vars: vars, used: &used})
	if len(used) == 0 {
		return nil
	}
	if _, err := expr.Compile(tree.Node.String(), opts...); err != nil {
		var ee *exprError
		if errors.As(explainCompileError(err, kind), &ee) {
			out = append(out, finding{fmt.Sprintf("%s (with %s)", ee.msg, strings.Join(used, ", ")), 0})
		}
	}
	return out
}

// varName is "unit" for vars.unit.
func varName(n ast.Node) (string, bool) {
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Method {
		return "", false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "vars" {
		return "", false
	}
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// constantValue is the value of n when it reads nothing but numbers and
// vars: a literal, a var, or arithmetic on them.
func constantValue(n ast.Node, vars map[string]any) (float64, bool) {
	if name, ok := varName(n); ok {
		switch v := vars[name].(type) {
		case float64:
			return v, true
		case int:
			return float64(v), true
		}
		return 0, false
	}
	switch x := n.(type) {
	case *ast.IntegerNode:
		return float64(x.Value), true
	case *ast.FloatNode:
		return x.Value, true
	case *ast.UnaryNode:
		v, ok := constantValue(x.Node, vars)
		switch x.Operator {
		case "-":
			return -v, ok
		case "+":
			return v, ok
		}
	case *ast.BinaryNode:
		l, lok := constantValue(x.Left, vars)
		r, rok := constantValue(x.Right, vars)
		if !lok || !rok {
			return 0, false
		}
		switch x.Operator {
		case "+":
			return l + r, true
		case "-":
			return l - r, true
		case "*":
			return l * r, true
		}
	}
	return 0, false
}

// varPatcher replaces each vars.X of a scalar value by that value.
type varPatcher struct {
	vars map[string]any
	used *[]string
}

func (v varPatcher) Visit(node *ast.Node) {
	name, ok := varName(*node)
	if !ok {
		return
	}
	var lit ast.Node
	switch x := v.vars[name].(type) {
	case string:
		lit = &ast.StringNode{Value: x}
	case bool:
		lit = &ast.BoolNode{Value: x}
	case float64:
		lit = &ast.FloatNode{Value: x}
	case int:
		lit = &ast.IntegerNode{Value: x}
	default:
		return
	}
	ast.Patch(node, lit)
	*v.used = append(*v.used, fmt.Sprintf("vars.%s = %s", name, formatValue(v.vars[name])))
}
