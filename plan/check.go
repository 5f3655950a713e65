package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

func (p *parser) check() {
	doc := &p.doc
	pl := p.plan
	top := *doc
	top.Defaults = nil // checked below, whose market and selection may serve event bets
	p.validateStruct(&top, "", "the plan")

	switch {
	case p.d.pos["version"] == nil:
		p.d.errorf(p.rootNode(), "the plan is missing version: add version: 1 at the top")
	case doc.Version != 1:
		p.d.errorf(p.at("version"), "version %d is not supported: this betplan reads version 1", doc.Version)
	}
	if len(doc.Bets) == 0 {
		if n := p.d.pos["bets"]; n != nil && n.Kind == yaml.SequenceNode {
			p.d.errorf(n, "the plan has no bets")
		} else if n == nil && p.d.pos["tips"] == nil {
			p.d.errorf(p.rootNode(), "the plan is missing bets (or tips)")
		}
	}
	if n := p.d.pos["tips"]; n != nil && n.Kind == yaml.SequenceNode && len(doc.Tips) == 0 {
		p.d.errorf(n, "the plan has no tips")
	}
	pl.Version, pl.Name, pl.Description, pl.Vars = doc.Version, doc.Name, doc.Description, doc.Vars
	if pl.Vars == nil {
		pl.Vars = map[string]any{}
	}
	p.checkLimits()
	p.checkPoll()
	p.checkRaces()
	p.checkPrealert()
	p.checkTips()

	var defaults resolvedBet
	if doc.Defaults != nil {
		p.validateStruct(ruleDoc(doc.Defaults, true), "defaults", "defaults") // market and selection: see raceDefaults
		if doc.Defaults.ID != "" {
			p.d.errorf(p.keyAt("defaults.id"), "defaults cannot set id: every bet has its own")
		}
		defaults = p.resolveBet(doc.Defaults, "defaults")
		pl.Defaults = defaults.display()
	}
	seen := map[string]*yaml.Node{}
	var staticTotal float64
	staticCount := 0
	for i := range doc.Bets {
		path := "bets[" + strconv.Itoa(i) + "]"
		b := p.checkBet(&doc.Bets[i], path, defaults)
		// Every problem at once: a duplicate id is reported even when the
		// bet has other errors.
		if id := doc.Bets[i].ID; id != "" {
			if first, dup := seen[id]; dup {
				p.d.errorf(p.at(path+".id"), "duplicate bet id %q (first at line %d): ids must be unique, they make each bet's label", id, first.Line)
			} else {
				seen[id] = p.at(path + ".id")
			}
		}
		if b == nil {
			continue
		}
		if b.ForEachRace == nil {
			staticCount++
			if a := b.amount(); a != nil && a.Expr == nil {
				staticTotal += a.Value
			}
		}
		pl.Bets = append(pl.Bets, b)
	}
	l := pl.Limits
	if l.MaxTotalStake != nil && staticTotal > *l.MaxTotalStake+1e-9 {
		p.d.warnf(p.at("limits.max_total_stake"), "the fixed amounts of the bets add up to $%s, above max_total_stake $%s: the bets past the limit will be refused", money(staticTotal), money(*l.MaxTotalStake))
	}
	if l.MaxBets != nil && staticCount > *l.MaxBets {
		p.d.warnf(p.at("limits.max_bets"), "the plan has %d bets on named races, above max_bets %d: the bets past the limit will be refused", staticCount, *l.MaxBets)
	}
}

func (p *parser) checkLimits() {
	doc := p.doc.Limits
	if doc == nil && len(p.doc.Bets) == 0 && p.d.pos["tips"] != nil {
		return // tips stake nothing of the tipster's
	}
	if doc == nil {
		p.d.warnf(p.at("name"), "the plan has no limits: add limits (max_stake_per_bet, max_total_stake, max_bets) so a mistake cannot spend more than you mean")
		return
	}
	before := p.d.diags.Errors()
	p.validateStruct(doc, "limits", "limits")
	if p.d.diags.Errors() > before {
		return // an invalid limit would only add confusing errors to bets
	}
	p.plan.Limits = Limits{MaxStakePerBet: doc.MaxStakePerBet, MaxTotalStake: doc.MaxTotalStake, MaxBets: doc.MaxBets}
	var missing []string
	if doc.MaxStakePerBet == nil {
		missing = append(missing, "max_stake_per_bet")
	}
	if doc.MaxTotalStake == nil {
		missing = append(missing, "max_total_stake")
	}
	if doc.MaxBets == nil {
		missing = append(missing, "max_bets")
	}
	if len(missing) > 0 {
		p.d.warnf(p.keyAt("limits"), "limits has no %s: without it nothing bounds what the plan may spend", strings.Join(missing, " or "))
	}
	if doc.MaxStakePerBet != nil && doc.MaxTotalStake != nil && *doc.MaxStakePerBet > *doc.MaxTotalStake {
		p.d.warnf(p.at("limits.max_stake_per_bet"), "max_stake_per_bet $%s is above max_total_stake $%s", money(*doc.MaxStakePerBet), money(*doc.MaxTotalStake))
	}
}

func (p *parser) checkPoll() {
	p.plan.Poll = Poll{Interval: DefaultPollInterval, Timeout: DefaultPollTimeout}
	doc := p.doc.Poll
	if doc == nil {
		return
	}
	if doc.Interval != nil && doc.Interval.node != nil && doc.Interval.Value != 0 {
		p.plan.Poll.Interval = doc.Interval.Value
		if doc.Interval.Value < 1e9 {
			p.d.errorf(doc.Interval.node, "interval must be at least 1s, got %s: the service would be polled too often", doc.Interval.Value)
		}
	} else if doc.Interval != nil && doc.Interval.node != nil && doc.Interval.node.Tag != "!!int" && doc.Interval.Value == 0 && validDuration(doc.Interval.node.Value) {
		p.d.errorf(doc.Interval.node, "interval must be at least 1s, got 0s")
	}
	if doc.Timeout != nil && doc.Timeout.node != nil && doc.Timeout.Value != 0 {
		p.plan.Poll.Timeout = doc.Timeout.Value
		if doc.Timeout.Value < 0 {
			p.d.errorf(doc.Timeout.node, "timeout must be positive, got %s", doc.Timeout.Value)
		} else if doc.Timeout.Value < p.plan.Poll.Interval {
			p.d.errorf(doc.Timeout.node, "timeout %s is shorter than the poll interval %s", doc.Timeout.Value, p.plan.Poll.Interval)
		}
	}
}

func validDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

func (p *parser) checkRaces() {
	p.plan.Races = make(map[string]RaceRef, len(p.doc.Races))
	for _, key := range sortedKeys(p.doc.Races) {
		r := p.doc.Races[key]
		path := "races[" + key + "]"
		p.validateStruct(&r, path, "race "+key)
		p.warnVenue(r.Venue, path+".venue")
		p.plan.Races[key] = RaceRef(r)
	}
}

func (p *parser) warnVenue(venue, path string) {
	if venue != "" && !knownVenue(venue) {
		p.d.warnf(p.at(path), "venue %q is not a venue betplan knows%s", venue, didYouMean(venue, venues))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
