package plan

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"gopkg.in/yaml.v3"
)

// EventRef names one sports event: by the service's id, or by sport and a
// name matched against the service's event list. With an id, a sport or
// name also written must agree with the event the id names.
type EventRef struct {
	ID    string
	Sport string
	Name  string
}

func (e EventRef) String() string {
	var parts []string
	if e.ID != "" {
		parts = append(parts, "event "+e.ID)
	}
	if e.Name != "" {
		parts = append(parts, e.Name)
	}
	s := strings.Join(parts, " ")
	if e.Sport != "" {
		s += " (" + e.Sport + ")"
	}
	return strings.TrimSpace(s)
}

// Handicap is a line: the points (or games) added to a selection's score
// on a line market, e.g. -12.5.
type Handicap float64

func (h Handicap) String() string { return strconv.FormatFloat(float64(h), 'f', -1, 64) }

// IsEvent reports whether the bet is on a sports event rather than a race.
func (b *Bet) IsEvent() bool { return b.Event != nil }

// Sports the service is known to list (service facts §10 names AFL and NBA;
// the spec adds Tennis). Another sport is legal, and warned about as a
// likely typo.
var sports = []string{"AFL", "NRL", "NBA", "NFL", "Tennis", "Soccer", "Cricket", "Rugby Union", "Basketball", "Baseball", "Ice Hockey"}

// Sports returns the sports validate knows.
func Sports() []string { return slices.Clone(sports) }

// sportRacing is the service's sports value of races.
const sportRacing = "RACING"

// sportWarning says why a sport is suspect, or "".
func sportWarning(sport string) string {
	for _, s := range sports {
		if strings.EqualFold(s, sport) {
			return ""
		}
	}
	return fmt.Sprintf("sport %q is not a sport betplan knows%s (sports: %s)", sport, didYouMean(sport, sports), strings.Join(sports, ", "))
}

// FoldEvent is the form in which event names compare: case, spacing,
// full stops and "vs" for "v" do not matter ("St. Kilda vs Carlton" is
// "st kilda v carlton").
func FoldEvent(s string) string {
	f := strings.Fields(strings.ToLower(strings.ReplaceAll(s, ".", " ")))
	for i, w := range f {
		if w == "vs" {
			f[i] = "v"
		}
	}
	return strings.Join(f, " ")
}

// eventDoc is the YAML shape of a bet's event.
type eventDoc struct {
	ID    string `yaml:"id" jsonschema_description:"The event's id as the service lists it (GET /event/list/)."`
	Sport string `yaml:"sport" jsonschema_description:"The sport as the service names it, e.g. AFL, NBA, Tennis."`
	Name  string `yaml:"name" jsonschema_description:"The event's name, matched against the service's event list ignoring case, spacing and vs/v, e.g. Collingwood v Carlton."`
}

func init() { structFields(reflect.TypeFor[eventDoc]()) } // filled before any concurrent Parse

// eventField is a bet's event as written: a mapping of eventDoc's keys.
type eventField struct {
	eventDoc
	node *yaml.Node
}

func (e *eventField) decodeNode(d *decoder, n *yaml.Node, path string) {
	e.node = n
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "event must be a mapping, {id: ...} or {sport: ..., name: ...}, got %s", describe(n))
		return
	}
	d.decodeStruct(n, reflect.ValueOf(&e.eventDoc).Elem(), path, "event")
}

// maxHandicap bounds a line: points or games, far inside it.
const maxHandicap = 1000

// resolveEvent reads the event and handicap a bet (or the defaults) writes.
func (p *parser) resolveEvent(b *betDoc, path string, r *resolvedBet) {
	if b.Handicap != nil {
		r.handicap, r.handicapPath = b.Handicap, path+".handicap"
		if h := float64(*b.Handicap); h <= -maxHandicap || h >= maxHandicap {
			p.d.errorf(p.at(r.handicapPath), "handicap %s is out of range: a line is points or games, within ±%d", p.at(r.handicapPath).Value, maxHandicap)
		}
	}
	if b.Event == nil || b.Event.node == nil {
		return
	}
	r.eventSet, r.eventPath = true, path+".event"
	if b.Event.node.Kind != yaml.MappingNode {
		return // reported when it was decoded
	}
	e := EventRef{ID: strings.TrimSpace(b.Event.ID), Sport: strings.TrimSpace(b.Event.Sport), Name: strings.TrimSpace(b.Event.Name)}
	written := func(k string) bool { return p.d.pos[r.eventPath+"."+k] != nil }
	ok := true
	switch {
	case e.ID == "" && e.Sport == "" && e.Name == "":
		what := "is empty"
		if written("id") || written("sport") || written("name") {
			what = "has only empty fields"
		}
		p.d.errorf(b.Event.node, "event %s: give its id, or its sport and name, e.g. {sport: AFL, name: Collingwood v Carlton}", what)
		ok = false
	case e.ID == "" && e.Sport == "":
		p.d.errorf(p.keyAt(r.eventPath+".name"), "event name %q needs sport (e.g. AFL, NBA, Tennis) to be matched against the event list, or give the event's id", e.Name)
		ok = false
	case e.ID == "" && e.Name == "":
		p.d.errorf(p.keyAt(r.eventPath+".sport"), "event needs name (or id): which %s event to bet on, e.g. Collingwood v Carlton", e.Sport)
		ok = false
	}
	if strings.EqualFold(e.Sport, sportRacing) {
		p.d.errorf(p.at(r.eventPath+".sport"), "sport %s is the service's word for races: name a race with race: (or for_each_race:), not event:", e.Sport)
		ok = false
	} else if e.Sport != "" {
		if msg := sportWarning(e.Sport); msg != "" {
			p.d.warnf(p.at(r.eventPath+".sport"), "%s", msg)
		}
	}
	if ok {
		r.event = &e
	}
}

// eventBet makes b a bet on t's event; a race or for_each_race beside it
// is an error.
func (p *parser) eventBet(b *Bet, t resolvedBet, name string) {
	switch {
	case t.raceSet:
		p.d.errorf(p.keyAt(t.eventPath), "%s has both race and event: use one", name)
	case t.forEachSet:
		p.d.errorf(p.keyAt(t.eventPath), "%s has both for_each_race and event: use one (for_each_race is for races)", name)
	}
	b.Event = t.event
}

// isEventBet reports whether the bet doc, with the defaults def, is a bet
// on an event: its own event, or the defaults' when it names no race.
func isEventBet(doc *betDoc, def resolvedBet) bool {
	if doc.Event != nil {
		return true
	}
	return doc.Race == nil && doc.ForEachRace == nil && def.eventSet
}

// ruleDoc is what the struct rules check of a bet (or the defaults): an
// event bet's market and selection are names of the event's, not racing
// values, and the defaults' are checked where a racing bet takes them up
// (raceDefaults), since defaults may serve event bets too.
func ruleDoc(doc *betDoc, event bool) *betDoc {
	if !event {
		return doc
	}
	c := *doc
	c.Market, c.Selection = nil, nil
	return &c
}

// raceDefaults checks the market and selection a racing bet takes from the
// defaults by the racing rules, at the defaults' positions.
func (p *parser) raceDefaults(doc *betDoc) {
	d := p.doc.Defaults
	if d == nil {
		return
	}
	var inherited betDoc
	if doc.Market == nil {
		inherited.Market = d.Market
	}
	if doc.Selection == nil {
		inherited.Selection = d.Selection
	}
	if inherited.Market != nil || inherited.Selection != nil {
		p.validateStruct(&inherited, "defaults", "defaults")
	}
}

// checkEventPick checks an event bet's market and selection: names the
// event lists, so any non-empty text but a racing market's name.
func (p *parser) checkEventPick(n *yaml.Node, name string, market, sel *string, marketPath, selPath string, written func(string) bool) {
	switch {
	case market == nil && !written("market"):
		p.d.errorf(n, "%s has no market: name one of the event's markets, e.g. market: Head To Head", name)
	case market != nil && strings.TrimSpace(*market) == "":
		p.d.errorf(p.at(marketPath), "market cannot be empty")
	case market != nil && slices.Contains(markets, *market):
		p.d.errorf(p.at(marketPath), "%s is on an event: %q is a racing market; name one of the event's markets, e.g. Head To Head, Line, Total Points", name, *market)
	}
	switch {
	case sel == nil && !written("selection"):
		p.d.errorf(n, "%s has no selection: name the team, player or side to back as the event lists it, e.g. selection: Collingwood", name)
	case sel != nil && strings.TrimSpace(*sel) == "":
		p.d.errorf(p.at(selPath), "selection cannot be empty")
	}
}

// checkHandicap refuses a handicap on a bet that is not on an event.
func (p *parser) checkHandicap(b *Bet, own, def resolvedBet, name string, event bool) {
	h, at := own.handicap, own.handicapPath
	if h == nil {
		h, at = def.handicap, def.handicapPath
	}
	if h == nil {
		return
	}
	if !event {
		p.d.errorf(p.keyAt(at), "%s: handicap is a line on a sports market: it is for bets on an event, not on races", name)
		return
	}
	b.Handicap = h
}

// at is where an expression field is written; nil when it is absent.
func (e *exprField) at() *yaml.Node {
	if e == nil {
		return nil
	}
	return e.node
}

// at is where an amount field is written; nil when it is absent.
func (a *amountField) at() *yaml.Node {
	if a == nil {
		return nil
	}
	return a.node
}

// checkTargetNames refuses, in a bet's expressions, the names of what the
// bet is not on: race in a bet on an event, event in a bet on races. Each
// would read as zero and make a condition such as race.minutes_to_start
// <= 10 true at once.
func (p *parser) checkTargetNames(b *Bet, doc *betDoc, name string, event bool) {
	def := p.doc.Defaults
	if def == nil {
		def = &betDoc{}
	}
	// Where a field is written: the bet's own key, else the defaults'.
	node := func(own, dflt *yaml.Node) *yaml.Node {
		if own != nil {
			return own
		}
		return dflt
	}
	var nodes []*yaml.Node
	if b.When != nil {
		nodes = append(nodes, node(doc.When.at(), def.When.at()))
	}
	if b.Stake != nil && b.Stake.Expr != nil {
		nodes = append(nodes, node(doc.Stake.at(), def.Stake.at()))
	}
	if b.TargetProfit != nil && b.TargetProfit.Expr != nil {
		nodes = append(nodes, node(doc.TargetProfit.at(), def.TargetProfit.at()))
	}
	if b.ForEachRace != nil {
		nodes = append(nodes, node(doc.ForEachRace.at(), def.ForEachRace.at()))
	}
	wrong := "event"
	if event {
		wrong = "race"
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		rd, ok := p.c.readsOf(n.Value)
		if !ok {
			continue
		}
		at := rd.eventAt
		if wrong == "race" {
			at = rd.raceAt
		}
		if at >= 0 {
			var msg string
			if wrong == "race" {
				msg = fmt.Sprintf("the expression reads race, but %s is on an event, not a race: race is never set for it; use event (%s)", name, strings.Join(eventNames, ", "))
			} else {
				msg = fmt.Sprintf("the expression reads event, but %s is on a race: event is set only for bets on a sports event (event:); use race", name)
			}
			p.errAt(n, finding{msg, at})
		}
	}
}

// JSONSchema is the schema of a bet's event.
func (eventField) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("id", &jsonschema.Schema{
		OneOf:       []*jsonschema.Schema{{Type: "string", MinLength: uint64p(1)}, {Type: "integer"}},
		Description: "The event's id as the service lists it (GET /event/list/).",
	})
	props.Set("sport", &jsonschema.Schema{Type: "string", MinLength: uint64p(1), Examples: toAny(sports),
		Description: "The sport as the service names it, e.g. AFL, NBA, Tennis."})
	props.Set("name", &jsonschema.Schema{Type: "string", MinLength: uint64p(1),
		Description: "The event's name, matched against the service's event list ignoring case, spacing and vs/v, e.g. Collingwood v Carlton."})
	return &jsonschema.Schema{
		Type:                 "object",
		Description:          "A sports event: {id}, or {sport, name} matched against the service's event list.",
		Properties:           props,
		AdditionalProperties: jsonschema.FalseSchema,
		AnyOf:                []*jsonschema.Schema{{Required: []string{"id"}}, {Required: []string{"sport", "name"}}},
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// eventRules puts the racing values of market and selection where they
// apply: a bet (or the defaults) naming a race or for_each_race, and a bet
// naming no event when the defaults name none either. Elsewhere market and
// selection are the names a sports event lists. A handicap is for event
// bets only.
func eventRules(s *jsonschema.Schema) {
	racingProps := jsonschema.NewProperties()
	racingProps.Set("market", &jsonschema.Schema{Enum: toAny(markets)})
	racingProps.Set("selection", &jsonschema.Schema{Pattern: selRe.String()})
	racingProps.Set("handicap", jsonschema.FalseSchema)
	s.Definitions["racingBet"] = &jsonschema.Schema{
		Description: "The racing values of a bet's market and selection; no handicap.",
		Properties:  racingProps,
	}
	racing := &jsonschema.Schema{Ref: "#/$defs/racingBet"}
	if bet, ok := s.Definitions["betDoc"]; ok {
		if p, ok := bet.Properties.Get("market"); ok {
			p.Type, p.MinLength, p.Examples = "string", uint64p(1), toAny(markets)
		}
		bet.AllOf = append(bet.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Required: []string{"race"}}, {Required: []string{"for_each_race"}}}},
			Then: racing,
		})
	}
	if doc, ok := s.Definitions["planDoc"]; ok {
		defaultsEvent := jsonschema.NewProperties()
		defaultsEvent.Set("defaults", &jsonschema.Schema{Required: []string{"event"}})
		bets := jsonschema.NewProperties()
		bets.Set("bets", &jsonschema.Schema{Items: &jsonschema.Schema{
			If:   &jsonschema.Schema{Not: &jsonschema.Schema{Required: []string{"event"}}},
			Then: racing,
		}})
		doc.AllOf = append(doc.AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Not: &jsonschema.Schema{Required: []string{"defaults"}, Properties: defaultsEvent}},
			Then: &jsonschema.Schema{Properties: bets},
		})
	}
}

// eventLabelChange says why an event bet's label differs between two
// versions of it: the label covers the event it resolves to (its id and
// date), so naming another event, or moving between a race and an event,
// makes the bet a new one.
func eventLabelChange(o, n *Bet) string {
	switch {
	case (o.Event == nil) != (n.Event == nil):
		return "the bet moves between a race and a sports event"
	case o.Event == nil:
		return ""
	case o.Event.ID != n.Event.ID || FoldEvent(o.Event.Name) != FoldEvent(n.Event.Name) || !strings.EqualFold(o.Event.Sport, n.Event.Sport):
		return "the event (its id, or its sport and name) decides the label: it may name another event"
	}
	return ""
}
