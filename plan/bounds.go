package plan

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
)

// What one evaluation may cost. A plan's expression runs on every poll
// of every race it matches: one that asks for a terabyte would take the
// whole run down with it, and every later run at the same point. expr's
// own budget counts the elements of the lists an evaluation makes (a
// million in all) and one repeat's count, not the size of the string
// that repeat, replace, join or + would build: those are replaced below
// by versions that check the size before building anything.
const (
	// MaxBuiltString is the longest string one expression may build.
	MaxBuiltString = 1 << 20
	// MaxEvalTime is how long one evaluation may run.
	MaxEvalTime = 2 * time.Second
)

// errTooLong is why a string was not built.
type errTooLong struct {
	what string
	size float64
}

func (e *errTooLong) Error() string {
	return fmt.Sprintf("%s would build a string of %s bytes, more than the %d an expression may build", e.what, formatBytes(e.size), MaxBuiltString)
}

func formatBytes(n float64) string {
	if n < 1e15 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%g", n)
}

// boundedBuilders replace expr's string builders with ones that refuse a
// result over MaxBuiltString before allocating it.
var boundedBuilders = []expr.Option{
	expr.DisableBuiltin("repeat"),
	expr.Function("repeat", func(p ...any) (any, error) {
		s, ok := p[0].(string)
		n, nok := p[1].(int)
		if !ok || !nok {
			return nil, fmt.Errorf("repeat: takes a string and a count, got %v and %v", p[0], p[1])
		}
		if n < 0 {
			return nil, fmt.Errorf("repeat: the count must be 0 or more, got %d", n)
		}
		if size := float64(len(s)) * float64(n); size > MaxBuiltString {
			return nil, &errTooLong{"repeat", size}
		}
		return strings.Repeat(s, n), nil
	}, new(func(string, int) string)),
	expr.DisableBuiltin("replace"),
	expr.Function("replace", func(p ...any) (any, error) {
		s, ok1 := p[0].(string)
		old, ok2 := p[1].(string)
		repl, ok3 := p[2].(string)
		n, ok4 := -1, true
		if len(p) == 4 {
			n, ok4 = p[3].(int)
		}
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, errors.New("replace: takes three strings and an optional count")
		}
		k := strings.Count(s, old)
		if n >= 0 && n < k {
			k = n
		}
		if size := float64(len(s)) + float64(k)*(float64(len(repl))-float64(len(old))); size > MaxBuiltString {
			return nil, &errTooLong{"replace", size}
		}
		return strings.Replace(s, old, repl, n), nil
	}, new(func(string, string, string) string), new(func(string, string, string, int) string)),
	expr.DisableBuiltin("join"),
	expr.Function("join", func(p ...any) (any, error) {
		glue, ok := "", true
		if len(p) == 2 {
			glue, ok = p[1].(string)
		}
		if !ok {
			return nil, fmt.Errorf("join: the separator %v is not a string", p[1])
		}
		var parts []string
		switch x := p[0].(type) {
		case []string:
			parts = x
		case []any:
			parts = make([]string, 0, len(x))
			for _, v := range x {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("join: %v is not a string", v)
				}
				parts = append(parts, s)
			}
		default:
			return nil, fmt.Errorf("join: %T is not a list of strings", p[0])
		}
		size := float64(len(glue)) * float64(max(len(parts)-1, 0))
		for _, s := range parts {
			size += float64(len(s))
		}
		if size > MaxBuiltString {
			return nil, &errTooLong{"join", size}
		}
		return strings.Join(parts, glue), nil
	}, new(func([]any, string) string), new(func([]any) string), new(func([]string, string) string), new(func([]string) string)),
	expr.Function(boundedPlus, func(p ...any) (any, error) {
		a, aok := p[0].(string)
		b, bok := p[1].(string)
		if !aok || !bok {
			return runtime.Add(p[0], p[1]), nil
		}
		if size := float64(len(a)) + float64(len(b)); size > MaxBuiltString {
			return nil, &errTooLong{"+", size}
		}
		return a + b, nil
	}, new(func(string, string) string), new(func(any, any) any)),
	expr.Patch(plusPatcher{}),
}

// boundedPlus is the + of strings, and of values whose type only the run
// knows; no plan can name it.
const boundedPlus = "$plus"

// plusPatcher sends every + that may join two strings to boundedPlus: a
// reduce that doubles a string 64 times would otherwise ask for 2^64
// bytes. A + of a string and a number is left to the checker, which
// refuses it.
type plusPatcher struct{}

func (plusPatcher) Visit(node *ast.Node) {
	b, ok := (*node).(*ast.BinaryNode)
	if !ok || b.Operator != "+" || !mayBeString(b.Left.Type()) || !mayBeString(b.Right.Type()) {
		return
	}
	call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: boundedPlus}, Arguments: []ast.Node{b.Left, b.Right}}
	call.SetType(b.Type())
	ast.Patch(node, call)
}

// mayBeString reports whether a value of type t may be a string: a string,
// or a type only the run knows (a var, an element of a list).
func mayBeString(t reflect.Type) bool {
	return t == nil || t.Kind() == reflect.String || t.Kind() == reflect.Interface
}

// errEvalTime is why an evaluation was abandoned.
var errEvalTime = fmt.Errorf("took longer than %s: an expression must be quick", MaxEvalTime)

// run evaluates program with env within MaxEvalTime. An evaluation that
// overruns is abandoned to finish on its own; its allocations are bounded
// by the budgets above.
func run(program *vm.Program, env *Env) (any, error) {
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := expr.Run(program, env)
		done <- result{v, err}
	}()
	t := time.NewTimer(MaxEvalTime)
	defer t.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-t.C:
		return nil, errEvalTime
	}
}

// unboundedBuilds finds the string builders whose constant arguments
// already ask for more than MaxBuiltString, such as
// repeat(repeat("x", 999999), 1000000): the run would refuse them every
// time, so validate does.
func unboundedBuilds(n ast.Node) []finding {
	var out []finding
	ast.Find(n, func(n ast.Node) bool {
		name, _ := callOf(n)
		if name == "" {
			return false
		}
		if _, err := constString(n); err != nil {
			var tl *errTooLong
			if errors.As(err, &tl) {
				out = append(out, finding{"this " + tl.Error() + ": it can never be evaluated", leftmost(n)})
			}
		}
		return false
	})
	if len(out) > 1 {
		out = out[:1] // the outermost names the problem; its parts repeat it
	}
	return out
}

// callOf is the name and arguments of a call of a function by its name.
func callOf(n ast.Node) (string, []ast.Node) {
	switch x := n.(type) {
	case *ast.BuiltinNode:
		return x.Name, x.Arguments
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			return id.Value, x.Arguments
		}
	}
	return "", nil
}

// constString is the length of the string n gives when it is built from
// literals only; ok is false otherwise. err says when building it would
// be refused.
func constString(n ast.Node) (int, error) {
	switch x := n.(type) {
	case *ast.StringNode:
		return len(x.Value), nil
	case *ast.BuiltinNode, *ast.CallNode:
		name, args := callOf(x)
		if name != "repeat" || len(args) != 2 {
			return -1, nil
		}
		l, err := constString(args[0])
		if err != nil || l < 0 {
			return l, err
		}
		k, ok := args[1].(*ast.IntegerNode)
		if !ok {
			return -1, nil
		}
		if size := float64(l) * float64(k.Value); size > MaxBuiltString {
			return -1, &errTooLong{"repeat", size}
		}
		return l * k.Value, nil
	case *ast.BinaryNode:
		if x.Operator != "+" {
			return -1, nil
		}
		a, err := constString(x.Left)
		if err != nil || a < 0 {
			return a, err
		}
		b, err := constString(x.Right)
		if err != nil || b < 0 {
			return b, err
		}
		if size := float64(a) + float64(b); size > MaxBuiltString {
			return -1, &errTooLong{"+", size}
		}
		return a + b, nil
	}
	return -1, nil
}
