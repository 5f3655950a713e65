package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

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
	folds map[compileKey]folded
	offs  map[string]finding // switchedOff's, by source
}

// folded is an amount worked out offline (foldAmount).
type folded struct {
	v     float64
	known bool
	err   error
}

// fold is foldAmount, once per distinct source and field: a generated
// plan repeats the same amount in every bet.
func (c *compiler) fold(e *Expr, tree ast.Node, field AmountField, vars map[string]any) (float64, bool, error) {
	key := compileKey{string(field) + "\x00" + e.Source, kindNumber}
	if f, ok := c.folds[key]; ok {
		return f.v, f.known, f.err
	}
	v, known, err := foldAmount(e, tree, field, vars)
	if c.folds == nil {
		c.folds = map[compileKey]folded{}
	}
	c.folds[key] = folded{v, known, err}
	return v, known, err
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
		return &exprError{msg: rewrite(err.Error(), resultRewrites)}
	}
	if lit, kind, ok := outOfRangeLiteral(fe.Message); ok {
		// expr places the error at the literal's last character.
		col := max(0, fe.Column-(utf8.RuneCountInString(lit)-1))
		msg := lit + " is not a finite number"
		if kind == "integer" {
			msg = "the whole number " + lit + " is out of range"
		}
		return &exprError{msg: msg, line: fe.Line, column: col, hasPos: fe.Line > 0}
	}
	msg := envTypeWords.Replace(rewrite(fe.Message, compileRewrites))
	return &exprError{msg: msg, line: fe.Line, column: fe.Column, hasPos: fe.Line > 0}
}

// outOfRangeLiteral reads expr's message about a number literal that Go's
// strconv refuses as out of range, such as 1e309: the literal as written
// and its kind, float or integer.
func outOfRangeLiteral(msg string) (lit, kind string, ok bool) {
	for _, k := range []string{"float", "integer"} {
		rest, found := strings.CutPrefix(msg, "invalid "+k+" literal: ")
		if !found {
			continue
		}
		_, rest, found = strings.Cut(rest, `parsing "`)
		lit, tail, quoted := strings.Cut(rest, `": `)
		if !found || !quoted || tail != strconv.ErrRange.Error() {
			return "", "", false
		}
		return lit, k, true
	}
	return "", "", false
}

// messageRewrite turns one of expr's messages, known by its prefix, into
// a sentence about the plan; rest is what follows the prefix.
type messageRewrite struct {
	prefix string
	say    func(rest string) string
}

// resultRewrites are the messages about what an expression gives.
var resultRewrites = []messageRewrite{
	{"expected bool, but got ", func(got string) string { return "must be true or false, but it gives " + typeWord(got) }},
	{"expected float64, but got ", func(got string) string { return "must give a number, but it gives " + typeWord(got) }},
}

// compileRewrites are the messages about the names an expression uses.
var compileRewrites = []messageRewrite{
	{"unknown name ", func(name string) string {
		return fmt.Sprintf("unknown name %s%s (names are race, event, now, vars, sessions, plan, bets and the functions %s)",
			name, didYouMean(name, topNames), strings.Join(helperNames, ", "))
	}},
	{"type plan.RaceEnv has no field ", fieldOf("race has", raceNames)},
	{"type plan.SessionEnv has no field ", fieldOf("a session has", sessionNames)},
	{"type plan.EventEnv has no field ", fieldOf("event has", eventNames)},
	{"type plan.MarketEnv has no field ", fieldOf("a market has", marketNames)},
	{"type plan.SelectionEnv has no field ", fieldOf("a selection has", pickNames)},
	{"type plan.PlanEnv has no field ", fieldOf("plan has", planNames)},
}

func fieldOf(has string, names []string) func(string) string {
	return func(name string) string { return fmt.Sprintf("%s no field %s%s", has, name, orList(name, names)) }
}

// rewrite applies the first rewrite whose prefix msg has.
func rewrite(msg string, rewrites []messageRewrite) string {
	for _, r := range rewrites {
		if rest, ok := strings.CutPrefix(msg, r.prefix); ok {
			return r.say(rest)
		}
	}
	return msg
}

// envTypeWords names the environment's Go types as a plan's author knows
// them.
var envTypeWords = strings.NewReplacer(
	"plan.EventEnv", "event",
	"plan.MarketEnv", "market",
	"plan.SelectionEnv", "selection",
	"plan.RaceEnv", "race",
	"plan.SessionEnv", "session",
	"plan.PlanEnv", "plan",
	"plan.Env", "environment",
)

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
