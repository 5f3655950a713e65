package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/invopop/jsonschema"

	"github.com/betplan/betplan/limit"
)

// A PlanDiff is what a change to a plan does, taken from the two decoded
// plans, never from their text: a reviewer sees bets appear, disappear and
// change, and how the worst case moves.
type PlanDiff struct {
	Old      string      `json:"old"`
	New      string      `json:"new"`
	Plan     []Change    `json:"plan"`
	Bets     []BetChange `json:"bets"`
	Tips     []BetChange `json:"tips"`
	Before   WorstCase   `json:"worst_case_before"`
	After    WorstCase   `json:"worst_case_after"`
	Warnings []string    `json:"warnings"`
	// Account is true for a diff of the account file (betplan.yaml): Plan
	// holds its changes, and there are no bets, tips or worst case.
	Account bool `json:"account,omitempty"`
}

// A Change is one field that differs. An empty Old means the field was not
// set before; an empty New that it is not set now.
type Change struct {
	Field string `json:"field"`
	Old   string `json:"old,omitempty"`
	New   string `json:"new,omitempty"`
}

// Kinds of BetChange.
const (
	BetAdded   = "added"
	BetRemoved = "removed"
	BetChanged = "changed"
)

// A BetChange is one bet added, removed or changed, its fields with the
// defaults applied. NewLabel says the change alters the bet's label, so
// for exactly-once the bet is a new one: a bet already created under the
// old label is not recognised and the new one is created as well.
type BetChange struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Changes  []Change `json:"changes"`
	NewLabel string   `json:"new_label,omitempty"` // why the label changes; empty when it does not
}

// WorstCase is what a plan can put at risk at most on one session, as far
// as it is known offline: bets on a named race count once with what their
// amounts put at risk when those are known offline (a number, or an
// expression of vars and literals; a Fixed Profit bet at its odds floor);
// for_each_race bets and amounts known only at run time (expressions
// reading the run, Fixed Profit without check_odds) are bounded only by
// the limits.
type WorstCase struct {
	Bets        int          `json:"bets"`          // bets on one named race
	PerRaceBets int          `json:"per_race_bets"` // for_each_race bets: one per matching race
	StaticTotal float64      `json:"static_total"`  // what the amounts of Bets known offline put at risk, summed
	MaxStatic   float64      `json:"max_static"`    // the most one bet's amount known offline puts at risk
	ExprAmounts int          `json:"expr_amounts"`  // bets whose amount, or its risk, is known only at run time
	Limits      []LimitCheck `json:"limits"`
}

// A LimitCheck says whether one limit binds: the worst case reaches it, or
// part of the worst case is unknown offline so only the limit bounds it.
type LimitCheck struct {
	Limit string `json:"limit"`
	Value string `json:"value"`
	Binds bool   `json:"binds"`
	Why   string `json:"why,omitempty"`
}

// Changed reports whether the plans differ in anything the diff shows.
func (d *PlanDiff) Changed() bool { return len(d.Plan) > 0 || len(d.Bets) > 0 || len(d.Tips) > 0 }

// Count is the number of bets of each kind of change.
func (d *PlanDiff) Count(kind string) int {
	n := 0
	for _, b := range d.Bets {
		if b.Kind == kind {
			n++
		}
	}
	return n
}

// Diff compares two checked plans.
func Diff(old, new *Plan) *PlanDiff {
	d := &PlanDiff{Old: old.Filename, New: new.Filename, Plan: []Change{}, Bets: []BetChange{}, Tips: []BetChange{}, Warnings: []string{}}
	add := func(field, o, n string) {
		if o != n {
			d.Plan = append(d.Plan, Change{Field: field, Old: o, New: n})
		}
	}
	add("version", fmt.Sprint(old.Version), fmt.Sprint(new.Version))
	add("name", old.Name, new.Name)
	if old.Name != new.Name {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the plan is renamed from %s to %s: every bet's label changes, so every bet is a new one for exactly-once (bets already created under %s are not recognised and would be created again)", old.Name, new.Name, old.Name))
	}
	add("description", old.Description, new.Description)
	d.Plan = append(d.Plan, mapChanges("vars", old.Vars, new.Vars)...)
	d.Plan = append(d.Plan, limitChanges(old.Limits, new.Limits)...)
	d.Warnings = append(d.Warnings, loosenedLimits(old.Limits, new.Limits, planLimits)...)
	d.Plan = append(d.Plan, structChanges("defaults", old.Defaults, new.Defaults)...)
	d.Plan = append(d.Plan, raceChanges(old.Races, new.Races)...)
	d.Plan = append(d.Plan, structChanges("poll", withPollDefaults(old.Poll), withPollDefaults(new.Poll))...)
	// Alerts: a target dropped or an event no longer sent is what a
	// reviewer of an unattended plan needs to see.
	for i := range max(len(old.Notify), len(new.Notify)) {
		var o, n string
		if i < len(old.Notify) {
			o = old.Notify[i].words()
		}
		if i < len(new.Notify) {
			n = new.Notify[i].words()
		}
		add(fmt.Sprintf("notify[%d]", i), o, n)
	}
	add("heartbeat", RedactURL(old.Heartbeat), RedactURL(new.Heartbeat))

	d.Bets = append(d.Bets, itemChanges(old.Bets, new.Bets, func(b *Bet) string { return b.ID },
		func(ob, b *Bet) ([]Change, string) {
			ch := append(structChanges("", *ob, *b), varsAmountChanges(old.Vars, new.Vars, ob, b)...)
			return ch, labelChange(old.Name, new.Name, ob, b)
		})...)
	d.diffTips(old, new)
	d.Before, d.After = worstCase(old), worstCase(new)
	return d
}

// itemChanges lists the bets or tips added, changed and removed between
// two plans, matched by id: the new plan's in its order, then the ones it
// dropped. changed gives the changes of an item both plans have and why
// its journal key moves ("" when it does not); an item is listed when
// either is not empty.
func itemChanges[T any](old, new []*T, id func(*T) string, changed func(o, n *T) ([]Change, string)) []BetChange {
	var zero T
	var out []BetChange
	oldByID := map[string]*T{}
	for _, o := range old {
		oldByID[id(o)] = o
	}
	newIDs := map[string]bool{}
	for _, n := range new {
		newIDs[id(n)] = true
		o, ok := oldByID[id(n)]
		if !ok {
			out = append(out, BetChange{ID: id(n), Kind: BetAdded, Changes: structChanges("", zero, *n)})
			continue
		}
		if ch, why := changed(o, n); len(ch) > 0 || why != "" {
			out = append(out, BetChange{ID: id(n), Kind: BetChanged, Changes: ch, NewLabel: why})
		}
	}
	for _, o := range old {
		if !newIDs[id(o)] {
			out = append(out, BetChange{ID: id(o), Kind: BetRemoved, Changes: structChanges("", *o, zero)})
		}
	}
	return out
}

// varsAmountChanges is how a change of the plan's vars changes a bet's
// amount when the amount's expression stays as it was: the expression
// reads the vars, so the bet stakes something else though its text did
// not move. A known amount shows its dollars; one known only at run time
// shows the vars it reads.
func varsAmountChanges(oldVars, newVars map[string]any, o, n *Bet) []Change {
	oa, na := o.amount(), n.amount()
	if oa == nil || na == nil || oa.Expr == nil || na.Expr == nil || oa.Expr.Source != na.Expr.Source || o.AmountField() != n.AmountField() {
		return nil // no expression, or a change structChanges shows
	}
	var changed []string
	for _, name := range exprVars(na.Expr.Source) {
		if display(reflect.ValueOf(oldVars[name])) != display(reflect.ValueOf(newVars[name])) {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	text := func(a *Amount, vars map[string]any) string {
		var with []string
		for _, name := range changed {
			with = append(with, fmt.Sprintf("vars.%s = %s", name, display(reflect.ValueOf(vars[name]))))
		}
		s := a.Expr.Source + " with " + strings.Join(with, ", ")
		if a.Known {
			s = "$" + money(a.Value) + " (" + s + ")"
		}
		return s
	}
	return []Change{{Field: string(n.AmountField()), Old: text(oa, oldVars), New: text(na, newVars)}}
}

// exprVars lists the vars an expression reads, each once, in order.
func exprVars(src string) []string {
	tree, err := exprparser.Parse(src)
	if err != nil {
		return nil
	}
	var out []string
	ast.Find(tree.Node, func(n ast.Node) bool {
		if name, ok := varName(n); ok && !slices.Contains(out, name) {
			out = append(out, name)
		}
		return false
	})
	return out
}

// labelChange says why a bet's label differs between the plans: the label
// covers the plan name, the bet id and the race's identity (venue, code,
// event number), so a change to any of them makes the bet a new one; a
// changed for_each_race changes the set of races, and so of labels.
func labelChange(oldName, newName string, o, n *Bet) string {
	if oldName != newName {
		return "the plan name is part of the label"
	}
	if why := eventLabelChange(o, n); why != "" {
		return why
	}
	if (o.ForEachRace == nil) != (n.ForEachRace == nil) {
		return "the bet moves between a named race and for_each_race"
	}
	if o.ForEachRace != nil && n.ForEachRace != nil && strings.Join(strings.Fields(o.ForEachRace.Source), " ") != strings.Join(strings.Fields(n.ForEachRace.Source), " ") {
		return "for_each_race changes which races the bet is made on, and each race is a label: a race it newly matches is a new bet; a bet already created on a race it still matches is recognised"
	}
	if o.Race != nil && n.Race != nil {
		if FoldVenue(o.Race.Venue) != FoldVenue(n.Race.Venue) || !strings.EqualFold(o.Race.Code, n.Race.Code) || o.Race.EventNumber != n.Race.EventNumber {
			return "the race (venue, code, event number) is part of the label"
		}
	}
	return ""
}

func withPollDefaults(p Poll) Poll {
	if p.Interval == 0 {
		p.Interval = DefaultPollInterval
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultPollTimeout
	}
	return p
}

func raceChanges(o, n map[string]RaceRef) []Change {
	var out []Change
	for _, k := range unionKeys(o, n) {
		var os, ns string
		if r, ok := o[k]; ok {
			os = r.String()
		}
		if r, ok := n[k]; ok {
			ns = r.String()
		}
		if os != ns {
			out = append(out, Change{Field: "races." + k, Old: os, New: ns})
		}
	}
	return out
}

func mapChanges(prefix string, o, n map[string]any) []Change {
	var out []Change
	for _, k := range unionKeys(o, n) {
		os, ns := "", ""
		if v, ok := o[k]; ok {
			os = display(reflect.ValueOf(v))
		}
		if v, ok := n[k]; ok {
			ns = display(reflect.ValueOf(v))
		}
		if os != ns {
			out = append(out, Change{Field: prefix + "." + k, Old: os, New: ns})
		}
	}
	return out
}

func unionKeys[V any](o, n map[string]V) []string {
	var keys []string
	for k := range o {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// limitChanges compares two limits sections key by key, in a section's
// order, as structChanges compares a struct.
func limitChanges(o, n Limits) []Change {
	var out []Change
	if o.Period != n.Period {
		out = append(out, Change{Field: "limits.period", Old: string(o.Period), New: string(n.Period)})
	}
	for _, k := range limit.All() {
		if os, ns := limitText(o.Set, k), limitText(n.Set, k); os != ns {
			out = append(out, Change{Field: "limits." + k.Key, Old: os, New: ns})
		}
	}
	return out
}

// limitText is what s sets k to as a diff shows it ("50", "12.50", "3");
// "" when unset.
func limitText(s limit.Set, k *limit.Kind) string {
	v, ok := s.Get(k)
	switch {
	case !ok:
		return ""
	case k.Unit == limit.Bets:
		return strconv.Itoa(v.Count)
	}
	return money(v.Dollars)
}

// structChanges compares two values of one struct type field by field, in
// declaration order, naming each field as the plan file does. It walks
// the struct rather than listing fields, so a field added to the model
// shows up in the diff without code here.
func structChanges(prefix string, o, n any) []Change {
	ov, nv := reflect.ValueOf(o), reflect.ValueOf(n)
	t := ov.Type()
	out := []Change{}
	for i := range t.NumField() {
		f := t.Field(i)
		switch f.Name {
		case "ID", "Line", "Column", "AmountAt", "RaceKey":
			continue // the id names the bet; positions are not content; the key is shown with the race
		}
		name := snake(f.Name)
		if prefix != "" {
			name = prefix + "." + name
		}
		var os, ns string
		if f.Name == "Race" {
			os, ns = raceText(ov), raceText(nv)
		} else {
			os, ns = display(ov.Field(i)), display(nv.Field(i))
		}
		if os != ns {
			out = append(out, Change{Field: name, Old: os, New: ns})
		}
	}
	return out
}

// raceText shows a bet's race as "KEY: Venue (Code) Rn", or the race alone
// when inline.
func raceText(v reflect.Value) string {
	r := display(v.FieldByName("Race"))
	if k := v.FieldByName("RaceKey"); k.IsValid() && k.String() != "" && r != "" {
		return k.String() + ": " + r
	}
	return r
}

var durationType = reflect.TypeFor[time.Duration]()

// display is how a value of the model reads in a diff; "" is unset.
func display(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if v.Type() == durationType {
		if v.Int() == 0 {
			return ""
		}
		// 6h reads better than Go's 6h0m0s.
		d := time.Duration(v.Int()).String()
		if strings.HasSuffix(d, "m0s") {
			d = strings.TrimSuffix(d, "0s")
		}
		if strings.HasSuffix(d, "h0m") {
			d = strings.TrimSuffix(d, "0m")
		}
		return d
	}
	switch x := v.Interface().(type) {
	case *Expr:
		if x == nil {
			return ""
		}
		return x.Source
	case *Amount:
		if x == nil {
			return ""
		}
		return x.String()
	case *RaceRef:
		if x == nil {
			return ""
		}
		return x.String()
	case float64:
		return money(x)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return display(v.Elem())
	case reflect.Map, reflect.Slice:
		if v.Len() == 0 {
			return ""
		}
		b, err := json.Marshal(v.Interface()) // sorted keys: a stable, compact form
		if err != nil {
			return fmt.Sprint(v.Interface())
		}
		return string(b)
	case reflect.String:
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}

// snake turns a Go field name into the plan file's key: MaxStakePerBet is
// max_stake_per_bet.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

func worstCase(p *Plan) WorstCase {
	var w WorstCase
	runtimeMax := 0.0 // the most a run-time amount can give (math.Inf(1): no bound offline)
	for _, b := range p.Bets {
		a := b.amount()
		if b.ForEachRace != nil {
			w.PerRaceBets++
		} else {
			w.Bets++
		}
		if a == nil {
			continue
		}
		r, known := b.KnownRisk()
		if !known || !r.Bounded {
			w.ExprAmounts++
			runtimeMax = max(runtimeMax, b.AmountBound())
			if known {
				runtimeMax = math.Inf(1) // Fixed Profit with no odds floor, or a lay with no odds cap
			}
			continue
		}
		w.MaxStatic = max(w.MaxStatic, r.PerSession)
		if b.ForEachRace == nil {
			w.StaticTotal += r.PerSession
		}
	}
	l := p.Limits
	unknownCount := w.PerRaceBets > 0
	unknownAmount := w.ExprAmounts > 0
	if v, ok := l.Set.Get(limit.MaxStakePerBet); ok {
		c := LimitCheck{Limit: limit.MaxStakePerBet.Key, Value: "$" + money(v.Dollars)}
		switch {
		case w.MaxStatic >= v.Dollars:
			c.Binds, c.Why = true, "a static amount reaches it"
		case unknownAmount && runtimeMax >= v.Dollars:
			c.Binds, c.Why = true, "amounts known only at run time are bounded only by it"
		}
		w.Limits = append(w.Limits, c)
	}
	if v, ok := l.Set.Get(limit.MaxTotalStake); ok {
		c := LimitCheck{Limit: limit.MaxTotalStake.Key, Value: "$" + money(v.Dollars)}
		switch {
		case w.StaticTotal >= v.Dollars:
			c.Binds, c.Why = true, "the static total reaches it"
		case unknownCount || unknownAmount:
			c.Binds, c.Why = true, "for_each_race bets or amounts known only at run time are bounded only by it"
		}
		w.Limits = append(w.Limits, c)
	}
	if v, ok := l.Set.Get(limit.MaxBets); ok {
		c := LimitCheck{Limit: limit.MaxBets.Key, Value: fmt.Sprint(v.Count)}
		switch {
		case w.Bets >= v.Count:
			c.Binds, c.Why = true, "the named-race bets reach it"
		case unknownCount:
			c.Binds, c.Why = true, "for_each_race bets are bounded only by it"
		}
		w.Limits = append(w.Limits, c)
	}
	if w.Limits == nil {
		w.Limits = []LimitCheck{}
	}
	return w
}

// binding lists the limits that bind.
func (w WorstCase) binding() []string {
	var out []string
	for _, c := range w.Limits {
		if c.Binds {
			out = append(out, c.Limit)
		}
	}
	return slices.Clip(out)
}

// DiffSchemaID is the $id of the JSON Schema of `betplan diff --format json`.
const DiffSchemaID = "https://github.com/betplan/betplan/schema/diff.schema.json"

// DiffJSONSchema is the JSON Schema of `betplan diff --format json`,
// generated from PlanDiff so the two cannot drift apart.
func DiffJSONSchema() ([]byte, error) {
	return schemaJSON(&jsonschema.Reflector{}, &PlanDiff{}, DiffSchemaID, "betplan diff",
		"What a change to a plan does: `betplan diff --format json`.", nil)
}
