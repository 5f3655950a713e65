package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
)

// betExprs is where the expressions of one bet were written.
type betExprs struct {
	id      string
	forEach bool
	paths   []string // when, for_each_race, stake or target_profit: the bet's own or the defaults'
}

// betRead is a bets.ID the expression reads, and the field it reads of
// it, if any.
type betRead struct {
	id, field string
	from      int // rune offset of bets.ID in the source
	fieldFrom int
}

// betReads lists what an expression reads from bets: bets.ID and
// bets["ID"], with the field read of each when it is written next to it.
func betReads(tree ast.Node) []betRead {
	var out []betRead
	ast.Find(tree, func(n ast.Node) bool {
		m, ok := n.(*ast.MemberNode)
		if !ok {
			return false
		}
		if inner, ok := m.Node.(*ast.MemberNode); ok {
			if id, ok := betRef(inner); ok {
				if f, ok := m.Property.(*ast.StringNode); ok && !m.Method {
					out = append(out, betRead{id: id, field: f.Value, from: leftmost(inner), fieldFrom: f.Location().From})
				}
				return false
			}
		}
		if id, ok := betRef(m); ok {
			out = append(out, betRead{id: id, from: leftmost(m)})
		}
		return false
	})
	// A read with its field and the same read without (visited as the
	// inner node) are one.
	var keep []betRead
	withField := map[int]bool{}
	for _, r := range out {
		if r.field != "" {
			withField[r.from] = true
		}
	}
	for _, r := range out {
		if r.field == "" && withField[r.from] {
			continue
		}
		keep = append(keep, r)
	}
	return keep
}

// betRef is "r3" for bets.r3 or bets["r3"].
func betRef(m *ast.MemberNode) (string, bool) {
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "bets" || m.Method {
		return "", false
	}
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// readsOutcomes reports whether an expression reads plan or bets.
func readsOutcomes(tree ast.Node) bool {
	return ast.Find(tree, func(n ast.Node) bool {
		id, ok := n.(*ast.IdentifierNode)
		return ok && (id.Value == "plan" || id.Value == "bets")
	}) != nil
}

// checkBetReads checks, once every bet is known, what each bet's
// expressions read of the others: a bet id the plan has, never the bet's
// own, and of a bet on one race only its fields. ids holds every bet id
// written, with its position.
func (p *parser) checkBetReads(ids map[string]bool) {
	forEach := map[string]bool{}
	for _, u := range p.betExprs {
		if u.forEach {
			forEach[u.id] = true
		}
	}
	reported := map[string]bool{} // a defaults' expression is read once per bet
	for _, u := range p.betExprs {
		for _, path := range u.paths {
			n := p.d.pos[path]
			if n == nil {
				continue
			}
			rd, ok := p.c.readsOf(n.Value)
			if !ok {
				continue // already reported when it was compiled
			}
			if rd.outcomes {
				p.plan.ReadsOutcomes = true
			}
			for _, r := range rd.bets {
				var msg string
				at := r.from
				switch {
				case r.id == u.id:
					msg = fmt.Sprintf("bet %s reads itself (bets.%s): a bet can read the plan's other bets; for its own race use race, for the plan's totals plan", u.id, r.id)
					if strings.HasPrefix(path, "defaults.") {
						msg = fmt.Sprintf("bet %s takes this expression from defaults and so reads itself (bets.%s): give bet %s its own %s", u.id, r.id, u.id, lastSegment(path))
					}
				case !ids[r.id]:
					msg = fmt.Sprintf("unknown bet %q%s", r.id, orList(r.id, sortedKeys(ids)))
					msg = strings.Replace(msg, "(fields: ", "(bets: ", 1)
				case r.field != "" && forEach[r.id]:
					msg = fmt.Sprintf("bets.%s is a list: bet %s is a for_each_race bet, one instance per race; use e.g. len(bets.%s) or any(bets.%s, .%s)", r.id, r.id, r.id, r.id, r.field)
					at = r.fieldFrom
				case r.field != "" && !slices.Contains(betNames, r.field):
					msg = fmt.Sprintf("a bet has no field %s%s", r.field, orList(r.field, betNames))
					at = r.fieldFrom
				default:
					continue
				}
				key := fmt.Sprintf("%s|%d|%s", path, at, msg)
				if reported[key] {
					continue
				}
				reported[key] = true
				p.errAt(n, finding{msg: lastSegment(path) + ": " + msg, from: at})
			}
		}
	}
}

// exprReads is what one expression reads of the plan's bets.
type exprReads struct {
	outcomes bool
	bets     []betRead
	// raceAt and eventAt are where the expression first reads race and
	// event, or -1.
	raceAt, eventAt int
}

// readsOf parses src once per plan, however many bets share it; ok is
// false when it does not parse.
func (c *compiler) readsOf(src string) (exprReads, bool) {
	if rd, ok := c.reads[src]; ok {
		return rd, true
	}
	tree, err := exprparser.Parse(src)
	if err != nil {
		return exprReads{}, false
	}
	rd := exprReads{outcomes: readsOutcomes(tree.Node), bets: betReads(tree.Node), raceAt: -1, eventAt: -1}
	for _, name := range []string{"race", "event"} {
		first := ast.Find(tree.Node, func(x ast.Node) bool {
			id, ok := x.(*ast.IdentifierNode)
			return ok && id.Value == name
		})
		if first == nil {
			continue
		}
		if name == "race" {
			rd.raceAt = first.Location().From
		} else {
			rd.eventAt = first.Location().From
		}
	}
	c.reads[src] = rd
	return rd, true
}
