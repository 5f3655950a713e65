package plan

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	exprparser "github.com/expr-lang/expr/parser"
)

// Unmatched says what a for_each_race condition needs that none of the
// races of envs has (the caller found that none matches): the parts it
// joins with && that no race meets, each with the values the races have
// of what it reads ("it needs race.code == \"Greyhounds\", which none
// has (race.code: \"Galloping\", \"Harness\")"); or, when each part
// meets some race, the parts no race meets at once, with how many meet
// each. Only the races read from the service can say this: offline the
// plan names no meeting a for_each_race bet runs over.
func (e *Expr) Unmatched(envs []*Env) string {
	if e == nil {
		return ""
	}
	if len(envs) == 0 {
		return "the service lists no upcoming race now"
	}
	parts := e.parts()
	var none, some []string
	for _, part := range parts {
		n := 0
		for _, env := range envs {
			if ok, err := part.evalBool(env); err == nil && ok {
				n++
			}
		}
		if n > 0 {
			some = append(some, fmt.Sprintf("%s (%s)", part.Source, countOf(n, "race")))
			continue
		}
		what := part.Source + ", which none has"
		if have := part.valuesOf(envs); have != "" {
			what += " (" + have + ")"
		}
		none = append(none, what)
	}
	switch {
	case len(none) > 0:
		return "it needs " + strings.Join(none, "; and ")
	case len(some) > 1:
		return "it needs " + joinAnd(some) + " at once, which none has"
	}
	return "none meets it"
}

// parts are the conditions e joins with && (or and), each compiled on its
// own, in order; e itself when it joins none or a part does not compile
// alone.
func (e *Expr) parts() []*Expr {
	tree, err := exprparser.Parse(e.Source)
	if err != nil {
		return []*Expr{e}
	}
	nodes := conjuncts(tree.Node)
	if len(nodes) < 2 {
		return []*Expr{e}
	}
	c := newCompiler()
	out := make([]*Expr, 0, len(nodes))
	for _, n := range nodes {
		part, _, err := c.compile(n.String(), kindBool)
		if err != nil {
			return []*Expr{e}
		}
		out = append(out, part)
	}
	return out
}

// valuesShown is how many distinct values of a name Unmatched lists.
const valuesShown = 6

// valuesOf says what values the names e reads take over envs: the
// distinct strings or true/false, or the range of a number
// ("race.event_number: 1 to 10"); names of other kinds are left out.
func (e *Expr) valuesOf(envs []*Env) string {
	var out []string
	for _, id := range e.idents {
		if id.path == "vars" || strings.HasPrefix(id.path, "vars.") {
			continue // the same for every race
		}
		var words []string
		seen := map[string]bool{}
		lo, hi, numbers := math.Inf(1), math.Inf(-1), true
		for _, env := range envs {
			v, err := expr.Run(id.program, env)
			if err != nil {
				continue
			}
			switch x := v.(type) {
			case int:
				lo, hi = min(lo, float64(x)), max(hi, float64(x))
			case float64:
				lo, hi = min(lo, x), max(hi, x)
			case string, bool:
				numbers = false
				if w := formatValue(x); !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			default:
				numbers, words = false, nil
			}
		}
		switch {
		case numbers && lo <= hi:
			r := formatValue(lo)
			if hi > lo {
				r += " to " + formatValue(hi)
			}
			out = append(out, id.path+": "+r)
		case len(words) > 0:
			slices.Sort(words)
			out = append(out, id.path+": "+CutList(words, valuesShown))
		}
	}
	return strings.Join(out, "; ")
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
