package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"gopkg.in/yaml.v3"
)

// resolvedBet is a bet's or the defaults' fields after compiling, each
// with the path it came from so merged values keep their own positions.
type resolvedBet struct {
	raceKey       string
	race          *RaceRef
	raceSet       bool
	forEach       *Expr
	forEachSet    bool
	event         *EventRef // see event.go
	eventSet      bool
	eventPath     string
	handicap      *Handicap
	handicapPath  string
	selection     *string
	typ           *string
	market        *string
	targetSession *string
	stake         *Amount
	stakePath     string
	profit        *Amount
	profitPath    string
	when          *Expr
	whenPath      string
	options       map[string]any
	optionsPath   string
	racePath      string
	forEachPath   string
	selectionPath string
	typePath      string
	marketPath    string

	// raceBad, stakeBad and profitBad say the race or amount written had
	// an error: the plan-wide limits do not count what it would be.
	raceBad, stakeBad, profitBad bool
}

func (r resolvedBet) display() BetDefaults {
	return BetDefaults{RaceKey: r.raceKey, Race: r.race, ForEachRace: r.forEach, Event: r.event, Handicap: r.handicap, Selection: deref(r.selection),
		Type: deref(r.typ), Market: deref(r.market), TargetSession: deref(r.targetSession),
		Stake: r.stake, TargetProfit: r.profit, When: r.when, Options: r.options}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// resolveBet compiles a bet's (or the defaults') own fields.
func (p *parser) resolveBet(b *betDoc, path string) resolvedBet {
	var r resolvedBet
	if b.Race != nil && b.Race.node != nil {
		r.raceSet, r.racePath = true, path+".race"
		before := p.d.errors
		switch {
		case b.Race.Inline != nil:
			inline := *b.Race.Inline
			p.validateStruct(&inline, path+".race", "race")
			p.warnVenue(inline.Venue, path+".race.venue")
			r.race = &RaceRef{Venue: inline.Venue, Code: inline.Code, EventNumber: inline.EventNumber}
		case b.Race.Key != "":
			ref, ok := p.plan.Races[b.Race.Key]
			if !ok {
				keys := sortedKeys(p.plan.Races)
				hint := didYouMean(b.Race.Key, keys)
				if hint == "" && len(keys) > 0 {
					hint = " (races: " + strings.Join(keys, ", ") + ")"
				} else if len(keys) == 0 {
					hint = ": the plan has no races; write the race inline as {venue, code, event_number}"
				}
				p.d.errorf(b.Race.node, "unknown race %q%s", b.Race.Key, hint)
			} else {
				r.raceKey, r.race = b.Race.Key, &ref
				r.raceBad = p.badRaces[b.Race.Key]
			}
		}
		r.raceBad = r.raceBad || r.race == nil || p.d.errors > before || p.d.failed[r.racePath+".event_number"]
	}
	if b.ForEachRace != nil && b.ForEachRace.node != nil {
		r.forEachSet, r.forEachPath = true, path+".for_each_race"
		if tree := p.compileField(b.ForEachRace.node, "for_each_race", kindBool, &r.forEach); tree != nil {
			for _, f := range literalChecks(tree) {
				p.warnAt(b.ForEachRace.node, f)
			}
			if f, ok := neverTrue(tree); ok {
				f.msg = strings.Replace(f.msg, "the bet would never be created", "no race would ever match", 1)
				p.warnAt(b.ForEachRace.node, f)
			} else if f, ok := p.c.switchedOff(b.ForEachRace.node.Value, tree, p.plan.Vars); ok {
				f.msg = strings.Replace(f.msg, "the bet would never be created", "no race would ever match", 1)
				p.warnAt(b.ForEachRace.node, f)
			}
		}
	}
	if b.When != nil && b.When.node != nil {
		r.whenPath = path + ".when"
		if tree := p.compileField(b.When.node, "when", kindBool, &r.when); tree != nil {
			for _, f := range literalChecks(tree) {
				p.warnAt(b.When.node, f)
			}
			if f, ok := neverTrue(tree); ok {
				p.warnAt(b.When.node, f)
			} else if f, ok := p.c.switchedOff(b.When.node.Value, tree, p.plan.Vars); ok {
				p.warnAt(b.When.node, f)
			}
		}
	}
	r.selection, r.selectionPath = b.Selection, path+".selection"
	r.typ, r.typePath = b.Type, path+".type"
	r.market, r.marketPath = b.Market, path+".market"
	r.targetSession = b.TargetSession
	before := p.d.errors
	r.stakePath, r.profitPath = path+".stake", path+".target_profit"
	r.stake = p.amount(b.Stake, AmountStake, r.stakePath)
	r.stakeBad = p.d.errors > before
	before = p.d.errors
	r.profit = p.amount(b.TargetProfit, AmountTargetProfit, r.profitPath)
	r.profitBad = p.d.errors > before
	if b.Options != nil {
		r.options, r.optionsPath = b.Options, path+".options"
		p.checkOptions(b.Options, path+".options")
	}
	p.resolveEvent(b, path, &r)
	return r
}

func (p *parser) amount(f *amountField, field AmountField, path string) *Amount {
	if f == nil || f.node == nil || p.d.failed[path] {
		return nil // absent, or reported when it was read
	}
	if f.Source == "" {
		switch {
		case f.Value <= 0:
			p.d.errorf(f.node, "%s must be more than 0, got %s", field, f.node.Value)
		case f.Value > MaxBetAmount:
			p.d.errorf(f.node, "%s %s is out of range: %s", field, f.node.Value, betAmountRange)
		case !isCents(f.Value):
			p.d.errorf(f.node, "%s %s has more than two decimals: amounts are dollars and cents", field, f.node.Value)
		}
		return &Amount{Value: f.Value}
	}
	var e *Expr
	tree := p.compileField(f.node, string(field), kindNumber, &e)
	if tree == nil {
		return nil
	}
	if v, ok := constantValue(tree, p.plan.Vars); ok && !(v <= MaxBetAmount) {
		p.errAt(f.node, finding{fmt.Sprintf("%s: the amount %s is always %s: %s", field, f.node.Value, strconv.FormatFloat(v, 'g', -1, 64), betAmountRange), 0})
		return nil
	}
	v, known, err := p.c.fold(e, tree, field, p.plan.Vars)
	if err != nil {
		p.d.errorf(f.node, "%v: every run would fail the bet", err)
		return nil
	}
	if known {
		return &Amount{Expr: e, Known: true, Value: v, Max: v}
	}
	return &Amount{Expr: e, Max: amountMax(tree, p.plan.Vars)}
}

// compileField compiles an expression written at n, reporting an error at
// the position inside the expression.
func (p *parser) compileField(n *yaml.Node, field string, kind exprKind, out **Expr) ast.Node {
	e, tree, err := p.c.compile(n.Value, kind)
	if err != nil {
		var ee *exprError
		if !errors.As(err, &ee) {
			ee = &exprError{msg: err.Error()}
		}
		what := "expression"
		if kind == kindNumber {
			what = "amount"
		}
		msg := fmt.Sprintf("%s: invalid %s %q: %s", field, what, n.Value, ee.msg)
		if strings.Contains(strings.TrimSpace(n.Value), "\n") {
			msg = fmt.Sprintf("%s: invalid %s: %s", field, what, ee.msg)
		}
		if kind == kindNumber && strings.HasPrefix(ee.msg, "unknown name ") {
			msg = fmt.Sprintf("%s must be a number or an expression giving one; %q is neither: %s", field, n.Value, ee.msg)
		}
		if ee.hasPos {
			line, col := p.exprPos(n, ee.line, ee.column)
			p.d.push(Diagnostic{Severity: SeverityError, Summary: msg, Filename: p.d.filename, Line: line, Column: col, EndLine: line, EndColumn: col + 1})
		} else {
			p.d.errorf(n, "%s", msg)
		}
		return nil
	}
	if fs := p.c.lint(n.Value, kind, tree, p.plan.Vars); len(fs) > 0 {
		what := "expression"
		if kind == kindNumber {
			what = "amount"
		}
		for _, f := range fs {
			f.msg = fmt.Sprintf("%s: invalid %s: %s", field, what, f.msg)
			p.errAt(n, f)
		}
		return nil
	}
	*out = e
	return tree
}

func (p *parser) errAt(n *yaml.Node, f finding) {
	l, c := offsetPos(n.Value, f.from)
	line, col := p.exprPos(n, l, c)
	p.d.push(Diagnostic{Severity: SeverityError, Summary: f.msg, Filename: p.d.filename, Line: line, Column: col, EndLine: line, EndColumn: col + 1})
}

func (p *parser) warnAt(n *yaml.Node, f finding) {
	l, c := offsetPos(n.Value, f.from)
	line, col := p.exprPos(n, l, c)
	p.d.push(Diagnostic{Severity: SeverityWarning, Summary: f.msg, Filename: p.d.filename, Line: line, Column: col, EndLine: line, EndColumn: col + 1})
}
