package plan

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// raceOf is the race a bet or tip runs on, from what r read: a race (a
// key of races, or inline) or for_each_race, exactly one of them. A
// missing race's error ends with orElse, the other ways the item allows.
func (p *parser) raceOf(r resolvedBet, n *yaml.Node, name, orElse string) (key string, race *RaceRef, forEach *Expr) {
	switch {
	case r.raceSet && r.forEachSet:
		p.d.errorf(p.keyAt(r.forEachPath), "%s has both race and for_each_race: use one", name)
	case r.raceSet:
		return r.raceKey, r.race, nil
	case r.forEachSet:
		return "", nil, r.forEach
	default:
		p.d.errorf(n, "%s has no race: set race (a key of races or {venue, code, event_number}) or for_each_race%s", name, orElse)
	}
	return "", nil, nil
}

// checkBet merges the defaults into one bet and checks the result.
func (p *parser) checkBet(doc *betDoc, path string, def resolvedBet) *Bet {
	n := p.at(path)
	before := p.d.errors
	event := isEventBet(doc, def)
	p.validateStruct(ruleDoc(doc, event), path, "bet")
	if !event {
		p.raceDefaults(doc)
	}
	own := p.resolveBet(doc, path)
	if doc.ID == "" && p.d.pos[path+".id"] == nil {
		p.d.errorf(n, "bet is missing id")
	}
	b := &Bet{ID: doc.ID, Line: n.Line, Column: n.Column}
	name := "bet " + doc.ID
	if doc.ID == "" {
		name = "bet"
	}

	// Race: the bet's own race or for_each_race wins over the defaults'.
	race := own
	if !own.raceSet && !own.forEachSet && !own.eventSet {
		race = def
	}
	if race.eventSet {
		p.eventBet(b, race, name)
	} else {
		b.RaceKey, b.Race, b.ForEachRace = p.raceOf(race, n, name, ", or event for a sports event")
	}
	p.checkHandicap(b, own, def, name, event)

	pick := func(a, b *string) *string {
		if a != nil {
			return a
		}
		return b
	}
	sel := pick(own.selection, def.selection)
	typ := pick(own.typ, def.typ)
	market := pick(own.market, def.market)
	b.Selection, b.Type, b.Market = deref(sel), deref(typ), deref(market)
	b.TargetSession = deref(pick(own.targetSession, def.targetSession))
	b.When = own.when
	whenPath := own.whenPath
	if b.When == nil && doc.When == nil {
		b.When, whenPath = def.when, def.whenPath
	}
	b.Options = mergeOptions(def.options, own.options)
	if b.Options != nil {
		p.checkOptionPairs(b.Options, func(k string) string {
			if _, ok := own.options[k]; ok {
				return own.optionsPath + "." + k
			}
			return def.optionsPath + "." + k
		})
	}

	written := func(field string) bool { return p.d.pos[path+"."+field] != nil }
	if typ == nil && !written("type") {
		p.d.errorf(n, "%s has no type: set type (%s) here or in defaults", name, strings.Join(types, ", "))
	}
	if market == nil && !written("market") && !event {
		p.d.errorf(n, "%s has no market: set market (e.g. Fixed Win) here or in defaults", name)
	}
	if event {
		marketPath, selPath := own.marketPath, own.selectionPath
		if own.market == nil {
			marketPath = def.marketPath
		}
		if own.selection == nil {
			selPath = def.selectionPath
		}
		p.checkEventPick(n, name, market, sel, marketPath, selPath, written)
	} else if sel == nil && !written("selection") {
		p.d.errorf(n, "%s has no selection: set the runner number, e.g. selection: \"3\"", name)
	} else if sel != nil && market != nil && selRe.MatchString(*sel) {
		selPath := own.selectionPath
		if own.selection == nil {
			selPath = def.selectionPath
		}
		msg := selectionProblem(*market, *sel)
		if msg == "" {
			msg = runnerProblem(p.raceCode(b.Race, b.ForEachRace), *sel)
		}
		if msg != "" {
			p.d.errorf(p.at(selPath), "%s", msg)
		}
	}

	// Amounts: the field the type uses is required, the other refused.
	stake, stakePath, stakeBad := own.stake, own.stakePath, own.stakeBad
	if doc.Stake == nil {
		stake, stakePath, stakeBad = def.stake, def.stakePath, def.stakeBad
	}
	profit, profitPath, profitBad := own.profit, own.profitPath, own.profitBad
	if doc.TargetProfit == nil {
		profit, profitPath, profitBad = def.profit, def.profitPath, def.profitBad
	}
	if typ != nil && slices.Contains(types, *typ) {
		if AmountFieldFor(*typ) == AmountTargetProfit {
			if doc.Stake != nil {
				p.d.errorf(p.keyAt(path+".stake"), "%s is Fixed Profit, which takes target_profit, not stake", name)
			}
			if profit == nil && doc.TargetProfit == nil {
				p.d.errorf(n, "%s is Fixed Profit and needs target_profit (dollars of profit)", name)
			}
			b.TargetProfit = profit
		} else {
			if doc.TargetProfit != nil {
				p.d.errorf(p.keyAt(path+".target_profit"), "%s is %s, which takes stake, not target_profit", name, *typ)
			}
			if stake == nil && doc.Stake == nil {
				p.d.errorf(n, "%s is %s and needs stake (dollars per session)", name, *typ)
			}
			b.Stake = stake
		}
	}
	if a, ap := b.amount(), stakePath; a != nil {
		if b.AmountField() == AmountTargetProfit {
			ap = profitPath
		}
		if n := p.at(ap); n != nil {
			b.AmountAt.Line, b.AmountAt.Column = n.Line, n.Column
			b.AmountAt.EndLine, b.AmountAt.EndColumn = nodeEnd(n)
		}
		p.checkBetRisk(b, a, name, ap)
	}
	p.checkLayCap(b, n, name)
	p.checkTargetNames(b, doc, name, event)
	if typ != nil && *typ != TypeFixedWager {
		if on, _ := b.Options[OptionEnsureTotalWager].(bool); on {
			at := own.optionsPath + "." + OptionEnsureTotalWager
			if _, ok := own.options[OptionEnsureTotalWager]; !ok {
				at = def.optionsPath + "." + OptionEnsureTotalWager
			}
			p.d.errorf(p.keyAt(at), "%s is %s: option %s makes a Fixed Wager stake the total across sessions and the service documents it for Fixed Wager only; remove it or make the bet Fixed Wager", name, *typ, OptionEnsureTotalWager)
		}
	}

	// The expressions the bet runs, wherever they were written, for the
	// checks of what they read of other bets (checkBetReads).
	uses := betExprs{id: doc.ID, forEach: race.forEachSet && !race.raceSet}
	if race.forEachSet {
		uses.paths = append(uses.paths, race.forEachPath)
	}
	if whenPath != "" {
		uses.paths = append(uses.paths, whenPath)
	}
	if stake != nil && stake.Expr != nil && b.AmountField() == AmountStake {
		uses.paths = append(uses.paths, stakePath)
	}
	if profit != nil && profit.Expr != nil && b.AmountField() == AmountTargetProfit {
		uses.paths = append(uses.paths, profitPath)
	}
	p.betExprs = append(p.betExprs, uses)

	// What the bet adds to the plan-wide limits. A bet with an error
	// counts by the parts of it that were read: its race, its amount,
	// whether it has a when; a part in error counts for nothing.
	amountBad := stakeBad
	if b.AmountField() == AmountTargetProfit {
		amountBad = profitBad
	}
	t := betTally{id: b.ID, named: (race.raceSet || race.eventSet) && !race.forEachSet}
	if !amountBad {
		t.risk, t.known = b.KnownRisk()
	}
	if t.named && t.known && b.Race != nil && !race.raceBad && whenPath == "" {
		t.race = b.Race
	}
	p.sums.add(t)

	if p.d.errors > before {
		return nil
	}
	return b
}

func mergeOptions(def, own map[string]any) map[string]any {
	if def == nil && own == nil {
		return nil
	}
	out := make(map[string]any, len(def)+len(own))
	for k, v := range def {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}
