package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
)

// lint is what varsFindings and unboundedBuilds find in src, worked out
// once per distinct source: the plan's vars are the same for all its
// expressions, and a generated plan repeats a few thousand times.
func (c *compiler) lint(src string, kind exprKind, tree ast.Node, vars map[string]any) []finding {
	key := compileKey{src, kind}
	if fs, ok := c.lints[key]; ok {
		return fs
	}
	fs := append(unboundedBuilds(tree), varsFindings(src, kind, vars)...)
	fs = append(fs, fixedValues(tree)...)
	c.lints[key] = fs
	return fs
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
	for _, c := range conjuncts(n) {
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

// switchedOff finds a part of a condition, joined to the rest by &&, that
// reads nothing but the plan's vars and literals and is false with the
// vars the plan sets: vars.go > 0 with go: 0 is the usual way to switch a
// bet off, which validate says (a warning) rather than refuses. Worked
// out once per source.
func (c *compiler) switchedOff(src string, tree ast.Node, vars map[string]any) (finding, bool) {
	if f, ok := c.offs[src]; ok {
		return f, f.msg != ""
	}
	var out finding
	for _, part := range conjuncts(tree) {
		if !offlineOnly(part) {
			continue
		}
		var used []string
		seen := map[string]bool{}
		ast.Find(part, func(n ast.Node) bool {
			if name, ok := varName(n); ok && !seen[name] {
				seen[name] = true
				if v, has := vars[name]; has {
					used = append(used, fmt.Sprintf("vars.%s = %s", name, formatValue(v)))
				}
			}
			return false
		})
		if len(used) == 0 {
			continue
		}
		program, err := expr.Compile(part.String(), append(baseOptions[:len(baseOptions):len(baseOptions)], expr.AsBool())...)
		if err != nil {
			continue
		}
		if v, err := run(program, &Env{Vars: vars}); err == nil && v == false {
			out = finding{fmt.Sprintf("switched off: %s is always false with %s, so the bet would never be created", part.String(), strings.Join(used, ", ")), leftmost(part)}
			break
		}
	}
	if c.offs == nil {
		c.offs = map[string]finding{}
	}
	c.offs[src] = out
	return out, out.msg != ""
}

// conjuncts are the conditions a condition joins with && (or and), or
// the condition itself.
func conjuncts(n ast.Node) []ast.Node {
	var out []ast.Node
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
			walk(b.Left)
			walk(b.Right)
			return
		}
		out = append(out, n)
	}
	walk(n)
	return out
}

// requiredCode is the racing code a for_each_race condition requires of
// every race it matches, race.code == "Greyhounds" among the conditions
// it joins with &&; "" when it requires none.
func requiredCode(tree ast.Node) string {
	for _, c := range conjuncts(tree) {
		b, ok := c.(*ast.BinaryNode)
		if !ok || b.Operator != "==" {
			continue
		}
		field, lit := b.Left, b.Right
		if memberPath(field) != "race.code" {
			field, lit = lit, field
		}
		if s, ok := lit.(*ast.StringNode); ok && memberPath(field) == "race.code" {
			return s.Value
		}
	}
	return ""
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

// number is the value of a numeric literal, negated or not.
func number(n ast.Node) (float64, bool) { return numeric(n, nil, false) }

// literalChecks finds string literals compared with race.venue that
// the service may not know (a code it cannot be is fixedValues' error).
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
		case "event.sport":
			if msg := sportWarning(s.Value); msg != "" {
				out = append(out, finding{msg, s.Location().From})
			}
		}
	}
	eachComparison(n, func(field, value ast.Node) {
		if p := memberPath(field); p != "" {
			check(p, value)
		}
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// eachComparison calls fn with each field and the value it is compared
// with in tree: both sides of == and !=, and each element of the array
// literal on the right of in and not in. The checks of literals compared
// with a field (literalChecks, fixedValues) walk the tree through it.
func eachComparison(tree ast.Node, fn func(field, value ast.Node)) {
	ast.Find(tree, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok {
			return false
		}
		switch b.Operator {
		case "==", "!=":
			fn(b.Left, b.Right)
			fn(b.Right, b.Left)
		case "in", "not in":
			if a, ok := b.Right.(*ast.ArrayNode); ok {
				for _, e := range a.Nodes {
					fn(b.Left, e)
				}
			}
		}
		return false
	})
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
func constantValue(n ast.Node, vars map[string]any) (float64, bool) { return numeric(n, vars, true) }

// numeric is the one reading of a number from an expression's tree: a
// literal, negated or not; with arith also unary plus and +, - and * on
// what it reads; and a var of vars, a number (nil vars: none).
func numeric(n ast.Node, vars map[string]any, arith bool) (float64, bool) {
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
		if x.Operator != "-" && !arith {
			return 0, false
		}
		v, ok := numeric(x.Node, vars, arith)
		switch x.Operator {
		case "-":
			return -v, ok
		case "+":
			return v, ok
		}
	case *ast.BinaryNode:
		if !arith {
			return 0, false
		}
		l, lok := numeric(x.Left, vars, arith)
		r, rok := numeric(x.Right, vars, arith)
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

// fixedValues finds a comparison of a field that takes one of a fixed set
// of values (a race's code, a bet's status, a bet's result) with a string
// it can never be: such a condition never matches (or always does), so a
// plan that writes race.code == "Greyhound" is wrong, not doubtful.
func fixedValues(tree ast.Node) []finding {
	betPtrs := betPointers(tree)
	var out []finding
	check := func(field, lit ast.Node) {
		s, ok := lit.(*ast.StringNode)
		if !ok {
			return
		}
		if msg := fixedValueProblem(fixedField(field, betPtrs), field.String(), s.Value); msg != "" {
			out = append(out, finding{msg, s.Location().From})
		}
	}
	eachComparison(tree, check)
	sort.SliceStable(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// fixedValueProblem says why field (written as src) can never be v, or "".
func fixedValueProblem(field, src, v string) string {
	switch field {
	case "code":
		if !slices.Contains(codes, v) {
			return fmt.Sprintf("%s can never be %q (codes: %s)%s", src, v, strings.Join(codes, ", "), didYouMean(v, codes))
		}
	case "status":
		if !slices.Contains(betStatuses, v) {
			return fmt.Sprintf("%s can never be %q (a bet's status is one of %s)%s", src, v, strings.Join(betStatuses, ", "), didYouMean(v, betStatuses))
		}
	case "result":
		if v != "" && !finishingOrder(v) {
			return fmt.Sprintf("%s can never be %q: a result is the race's finishing order, runner numbers joined by /, such as \"4/1/7\" (\"\" before the race is resulted); whether the bet won is .won or .lost", src, v)
		}
	}
	return ""
}

// finishingOrder is whether s reads like a race's result: "4/1/7".
func finishingOrder(s string) bool {
	for _, part := range strings.Split(s, "/") {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// fixedField is "code" when n is a race's code, "status" or "result"
// when it is a bet's, and "" otherwise.
func fixedField(n ast.Node, betPtrs map[ast.Node]bool) string {
	if c, ok := n.(*ast.ChainNode); ok {
		n = c.Node
	}
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Method {
		return ""
	}
	prop, ok := m.Property.(*ast.StringNode)
	if !ok {
		return ""
	}
	switch prop.Value {
	case "code":
		if memberPath(m.Node) == "race" {
			return "code"
		}
		if r, ok := m.Node.(*ast.MemberNode); ok && !r.Method {
			if s, ok := r.Property.(*ast.StringNode); ok && s.Value == "race" && isBet(r.Node, betPtrs) {
				return "code"
			}
		}
	case "status", "result":
		if isBet(m.Node, betPtrs) {
			return prop.Value
		}
	}
	return ""
}

// isBet is whether n is one bet of the plan: bets.x, bets.x[i],
// first(bets.x), or the # of a predicate over bets.x.
func isBet(n ast.Node, betPtrs map[ast.Node]bool) bool {
	if betPtrs[n] {
		return true
	}
	if isBetsEntry(n) {
		return true
	}
	switch x := n.(type) {
	case *ast.MemberNode:
		if _, str := x.Property.(*ast.StringNode); !str && !x.Method {
			return isBetsEntry(x.Node)
		}
	case *ast.BuiltinNode:
		switch x.Name {
		case "first", "last", "find", "findLast":
			return len(x.Arguments) > 0 && isBetsEntry(x.Arguments[0])
		}
	}
	return false
}

// isBetsEntry is whether n is bets.x (or bets["x"]).
func isBetsEntry(n ast.Node) bool {
	p := memberPath(n)
	return strings.HasPrefix(p, "bets.") && !strings.Contains(p[len("bets."):], ".")
}

// betPointers are the # nodes that stand for a bet: those of a predicate
// over bets.x (any(bets.x, .status == "placed")), not of a predicate
// nested in it.
func betPointers(tree ast.Node) map[ast.Node]bool {
	out := map[ast.Node]bool{}
	ast.Find(tree, func(n ast.Node) bool {
		b, ok := n.(*ast.BuiltinNode)
		if !ok || len(b.Arguments) < 2 || !isBetsEntry(b.Arguments[0]) {
			return false
		}
		pred, ok := b.Arguments[1].(*ast.PredicateNode)
		if !ok {
			return false
		}
		nested := map[ast.Node]bool{}
		ast.Find(pred.Node, func(n ast.Node) bool {
			if inner, ok := n.(*ast.PredicateNode); ok {
				ast.Find(inner.Node, func(n ast.Node) bool {
					if _, ok := n.(*ast.PointerNode); ok {
						nested[n] = true
					}
					return false
				})
			}
			return false
		})
		ast.Find(pred.Node, func(n ast.Node) bool {
			if p, ok := n.(*ast.PointerNode); ok && p.Name == "" && !nested[n] {
				out[n] = true
			}
			return false
		})
		return false
	})
	return out
}
