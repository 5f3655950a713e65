package plan

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"gopkg.in/yaml.v3"
)

// Tip is one pick a tipster publishes to the subscribers of a tip package
// (POST /pick/tipster/publish/), on one race: a named race, or each race
// for_each_race matches. Tips stake nothing of the tipster's: the
// subscribers' bots bet them, sized by amount_units.
type Tip struct {
	ID          string
	RaceKey     string   // the key in races; "" when inline or for_each_race
	Race        *RaceRef // nil when ForEachRace is set
	ForEachRace *Expr
	Market      string
	Selection   string
	AmountUnits float64
	Odds        float64 // the odds the tip is given at
	MaxOdds     float64
	Bookies     string // bookmaker ids joined by '&'
	UseBonus    bool
	When        *Expr // nil: publish at once
	Confidence  string
	Analysis    string
	Line        int // position of the tip in the file
	Column      int
}

// Matches reports whether the tip applies to the race of env: its
// for_each_race condition, true when it has none.
func (t *Tip) Matches(env *Env) (bool, error) { return t.ForEachRace.holds(env) }

// Ready reports whether the tip's when condition holds; true when it has
// none.
func (t *Tip) Ready(env *Env) (bool, error) { return t.When.holds(env) }

// Prealert asks for the package's pre-alert (which wakes the subscribers'
// bots) Before ahead of the first tip of each race.
type Prealert struct {
	Before time.Duration
}

// Confidence levels of a tip (service facts §9.1, the nested variant).
var confidences = []string{"Low", "Medium", "High"}

var bookiesRe = regexp.MustCompile(`^[1-9][0-9]*(&[1-9][0-9]*)*$`)

// The YAML shape of a tip and of the pre-alert (see yamldoc.go).
type tipDoc struct {
	ID          string     `yaml:"id" validate:"omitempty,max=40,betid" jsonschema:"required,pattern=^[A-Za-z0-9][A-Za-z0-9_-]*$,maxLength=40" jsonschema_description:"The tip's id, unique among the tips. The journal knows each published tip by plan name, tip id and race, so renaming it makes it a new tip."`
	Race        *raceField `yaml:"race" validate:"-" jsonschema_description:"A key of races, or an inline race {venue, code, event_number}. Exactly one of race and for_each_race."`
	ForEachRace *exprField `yaml:"for_each_race" validate:"-" jsonschema_description:"An expression over race (true or false): one tip per matching upcoming race."`
	Market      *string    `yaml:"market" validate:"omitempty,market" jsonschema:"required,enum=Fixed Win,enum=Fixed Place,enum=Top Fluc,enum=Tote Win,enum=Tote Place,enum=Best Tote Win,enum=Best Tote Place,enum=Mid Tote Win,enum=Mid Tote Place,enum=Best of Best,enum=Same Race Multi,enum=Betfair SP,enum=Lay Win,enum=Lay Place" jsonschema_description:"The market, as the service names it."`
	Selection   *string    `yaml:"selection" validate:"omitempty,selection" jsonschema:"required" jsonschema_description:"A runner number (\"3\"), or for Same Race Multi R:P pairs (\"2:1,6:3\")."`
	AmountUnits *float64   `yaml:"amount_units" validate:"omitempty,gt=0,lte=100" jsonschema:"required,exclusiveMinimum=0,maximum=100" jsonschema_description:"How many units subscribers stake (usually 1 to 5); each subscriber sizes a unit."`
	Odds        *float64   `yaml:"odds" validate:"omitempty,gt=1" jsonschema:"required,exclusiveMinimum=1" jsonschema_description:"The odds the tip is given at (decimal): the record's units won or lost are counted at them."`
	MaxOdds     *float64   `yaml:"max_odds" validate:"omitempty,gt=1" jsonschema:"required,exclusiveMinimum=1" jsonschema_description:"The highest odds subscribers' bots take (decimal), at least odds."`
	Bookies     *string    `yaml:"bookies" jsonschema:"required,pattern=^[1-9][0-9]*(&[1-9][0-9]*)*$" jsonschema_description:"The bookmakers subscribers bet at: ids joined by '&', e.g. \"41&42\"."`
	UseBonus    *bool      `yaml:"use_bonus" jsonschema_description:"Bet with bonus funds instead of cash. Default false."`
	When        *exprField `yaml:"when" validate:"-" jsonschema_description:"An expression (true or false) that must hold before the tip is published, e.g. race.minutes_to_start <= 15. Absent: publish at once."`
	Confidence  *string    `yaml:"confidence" jsonschema:"enum=Low,enum=Medium,enum=High" jsonschema_description:"How sure the tipster is: Low, Medium or High."`
	Analysis    *string    `yaml:"analysis" validate:"omitempty,max=2000" jsonschema:"maxLength=2000" jsonschema_description:"The tipster's reasoning, for subscribers."`
}

type prealertDoc struct {
	Before *durationField `yaml:"before" validate:"-" jsonschema:"required" jsonschema_description:"How long before the first tip of a race the pre-alert goes out, e.g. 20m (the service advises 10 to 30 minutes)."`
}

// selectionProblem says what is wrong with a selection for a market, or
// "" when it fits: one runner number, or R:P pairs for Same Race Multi.
// sel already has the shape selRe allows.
func selectionProblem(market, sel string) string {
	switch {
	case market == MarketSameRaceMulti && !srmRe.MatchString(sel):
		return fmt.Sprintf(`selection %q must be R:P pairs such as "2:1,6:3" for Same Race Multi`, sel)
	case market != MarketSameRaceMulti && !runnerRe.MatchString(sel):
		return fmt.Sprintf(`selection %q must be one runner number such as "3" (R:P pairs are for Same Race Multi only)`, sel)
	}
	return ""
}

// greyhoundRunners is the highest runner number of a greyhound race: eight
// boxes, and two reserves who run as 9 and 10 when a dog is scratched.
const greyhoundRunners = 10

// runnerProblem says why a selection (one runner, or R:P pairs) names a
// runner that cannot run in a race of code, or "".
func runnerProblem(code, sel string) string {
	if code != "Greyhounds" {
		return ""
	}
	for _, pair := range strings.Split(sel, ",") {
		runner, _, _ := strings.Cut(pair, ":")
		n, err := strconv.Atoi(runner)
		if err != nil || n <= greyhoundRunners {
			continue
		}
		what := fmt.Sprintf("selection %q is", sel)
		if runner != sel {
			what = fmt.Sprintf("runner %d of selection %q is", n, sel)
		}
		return fmt.Sprintf("%s out of range for a greyhound race: dogs run from boxes 1 to 8, and the reserves as %d and %d", what, greyhoundRunners-1, greyhoundRunners)
	}
	return ""
}

// raceCode is the racing code of the races a bet or tip runs on: its
// named race's, or the code its for_each_race requires of every race it
// matches; "" when that is not known offline.
func (p *parser) raceCode(race *RaceRef, forEach *Expr) string {
	if race != nil {
		return race.Code
	}
	if forEach == nil {
		return ""
	}
	_, tree, err := p.c.compile(forEach.Source, kindBool)
	if err != nil {
		return ""
	}
	return requiredCode(tree)
}

// checkPrealert reads prealert: {before}.
func (p *parser) checkPrealert() {
	doc := p.doc.Prealert
	if doc == nil {
		return
	}
	if doc.Before == nil || doc.Before.node == nil {
		if p.d.pos["prealert.before"] == nil {
			p.d.errorf(p.at("prealert"), "prealert is missing before: how long ahead of a race's first tip to send it, e.g. before: 20m")
		}
		return
	}
	before := doc.Before.Value
	switch {
	case doc.Before.node.Tag == "!!int" || !validDuration(doc.Before.node.Value):
		return // reported when it was decoded
	case before < time.Minute:
		p.d.errorf(doc.Before.node, "before must be at least 1m, got %s: subscribers' bots need time to wake", before)
		return
	case before > 6*time.Hour:
		p.d.errorf(doc.Before.node, "before must be at most 6h, got %s", before)
		return
	}
	if len(p.doc.Tips) == 0 {
		p.d.warnf(p.keyAt("prealert"), "prealert has no effect: the plan has no tips")
	}
	p.plan.Prealert = &Prealert{Before: before}
}

// checkTips checks every tip and adds the good ones to the plan.
func (p *parser) checkTips() {
	seen := map[string]*yaml.Node{}
	for i := range p.doc.Tips {
		path := "tips[" + strconv.Itoa(i) + "]"
		doc := &p.doc.Tips[i]
		t := p.checkTip(doc, path)
		if id := doc.ID; id != "" {
			if first, dup := seen[id]; dup {
				p.d.errorf(p.at(path+".id"), "duplicate tip id %q (first at line %d): ids must be unique, the journal knows each published tip by it", id, first.Line)
			} else {
				seen[id] = p.at(path + ".id")
			}
		}
		if t != nil {
			p.plan.Tips = append(p.plan.Tips, t)
		}
	}
}

func (p *parser) checkTip(doc *tipDoc, path string) *Tip {
	n := p.at(path)
	before := p.d.errors
	p.validateStruct(doc, path, "tip")
	name := "tip " + doc.ID
	if doc.ID == "" {
		name = "tip"
		if p.d.pos[path+".id"] == nil {
			p.d.errorf(n, "tip is missing id")
		}
	}
	// The race and the conditions read as a bet's do.
	p.d.hold++
	from := len(p.d.diags)
	r := p.resolveBet(&betDoc{Race: doc.Race, ForEachRace: doc.ForEachRace, When: doc.When}, path)
	for i := from; i < len(p.d.diags); i++ {
		p.d.diags[i].Summary = strings.Replace(p.d.diags[i].Summary, "the bet would never be created", "the tip would never be published", 1)
	}
	p.d.hold--
	t := &Tip{ID: doc.ID, Line: n.Line, Column: n.Column, When: r.when,
		Market: deref(doc.Market), Selection: deref(doc.Selection), Bookies: deref(doc.Bookies),
		Confidence: deref(doc.Confidence), Analysis: deref(doc.Analysis)}
	t.RaceKey, t.Race, t.ForEachRace = p.raceOf(r, n, name, "")

	// The publish call's flat variant requires every field (facts §9.1).
	written := func(field string) bool { return p.d.pos[path+"."+field] != nil }
	need := func(set bool, field, example string) {
		if !set && !written(field) {
			p.d.errorf(n, "%s has no %s: the service requires it on every tip, e.g. %s", name, field, example)
		}
	}
	need(doc.Market != nil, "market", "market: Fixed Win")
	need(doc.Selection != nil, "selection", `selection: "3"`)
	need(doc.AmountUnits != nil, "amount_units", "amount_units: 1")
	need(doc.Odds != nil, "odds", "odds: 3.5")
	need(doc.MaxOdds != nil, "max_odds", "max_odds: 5")
	need(doc.Bookies != nil, "bookies", `bookies: "41&42"`)
	if doc.Selection != nil && doc.Market != nil && selRe.MatchString(*doc.Selection) && slices.Contains(markets, *doc.Market) {
		msg := selectionProblem(*doc.Market, *doc.Selection)
		if msg == "" {
			msg = runnerProblem(p.raceCode(t.Race, t.ForEachRace), *doc.Selection)
		}
		if msg != "" {
			p.d.errorf(p.at(path+".selection"), "%s", msg)
		}
	}
	if doc.Bookies != nil && !bookiesRe.MatchString(*doc.Bookies) {
		p.d.errorf(p.at(path+".bookies"), `bookies %q must be bookmaker ids joined by '&', e.g. "41&42"`, *doc.Bookies)
	}
	if doc.Confidence != nil && !slices.Contains(confidences, *doc.Confidence) {
		p.d.errorf(p.at(path+".confidence"), "unknown confidence %q%s (confidence: %s)", *doc.Confidence, didYouMean(*doc.Confidence, confidences), strings.Join(confidences, ", "))
	}
	if doc.AmountUnits != nil {
		t.AmountUnits = *doc.AmountUnits
	}
	if doc.Odds != nil {
		t.Odds = *doc.Odds
	}
	if doc.MaxOdds != nil {
		t.MaxOdds = *doc.MaxOdds
	}
	if doc.UseBonus != nil {
		t.UseBonus = *doc.UseBonus
	}
	if t.Odds > 1 && t.MaxOdds > 1 && t.MaxOdds < t.Odds {
		p.d.errorf(p.at(path+".max_odds"), "max_odds %v is below odds %v: subscribers' bots could never take the tip at its own odds", t.MaxOdds, t.Odds)
	}
	if doc.Analysis != nil && strings.TrimSpace(*doc.Analysis) == "" && written("analysis") {
		p.d.warnf(p.at(path+".analysis"), "analysis is empty: leave it out, or tell subscribers why")
	}
	if p.d.errors > before {
		return nil
	}
	return t
}

// JSONSchemaExtend says what struct tags cannot: a plan has bets, tips or
// both.
func (planDoc) JSONSchemaExtend(s *jsonschema.Schema) {
	s.AnyOf = []*jsonschema.Schema{{Required: []string{"bets"}}, {Required: []string{"tips"}}}
}

// JSONSchemaExtend adds the selection's pattern, which has commas a struct
// tag cannot hold.
func (tipDoc) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("selection"); ok {
		p.Type = "string"
		p.Pattern = selRe.String()
	}
}

// diffTips adds the tips added, removed and changed, and the pre-alert.
func (d *PlanDiff) diffTips(old, new *Plan) {
	var ob, nb string
	if old.Prealert != nil {
		ob = display(reflect.ValueOf(old.Prealert.Before))
	}
	if new.Prealert != nil {
		nb = display(reflect.ValueOf(new.Prealert.Before))
	}
	if ob != nb {
		d.Plan = append(d.Plan, Change{Field: "prealert.before", Old: ob, New: nb})
	}
	if old.Name != new.Name && len(old.Tips) > 0 && len(new.Tips) > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the plan is renamed from %s to %s: its journal, the only record of which tips were published, starts afresh, so every tip would be published again", old.Name, new.Name))
	}
	d.Tips = append(d.Tips, itemChanges(old.Tips, new.Tips, func(t *Tip) string { return t.ID },
		func(ot, t *Tip) ([]Change, string) {
			why := ""
			switch {
			case old.Name != new.Name:
				why = "the plan name keys the journal"
			case (ot.ForEachRace == nil) != (t.ForEachRace == nil):
				why = "the tip moves between a named race and for_each_race"
			case ot.Race != nil && t.Race != nil && (FoldVenue(ot.Race.Venue) != FoldVenue(t.Race.Venue) || !strings.EqualFold(ot.Race.Code, t.Race.Code) || ot.Race.EventNumber != t.Race.EventNumber):
				why = "the race (venue, code, event number) is part of the tip's journal key"
			}
			return structChanges("", *ot, *t), why
		})...)
}
