package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/go-playground/validator/v10"
	"gopkg.in/yaml.v3"
)

// MaxFileSize is the largest plan Load and Parse accept.
const MaxFileSize = 4 << 20

// Load reads a plan file, refusing one over MaxFileSize, and parses it.
func Load(path string) (*Plan, Diagnostics) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Diagnostics{{Severity: SeverityError, Filename: path, Summary: "cannot read the plan: " + errors.Unwrap(err).Error()}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, Diagnostics{{Severity: SeverityError, Filename: path, Summary: "cannot read the plan: " + err.Error()}}
	}
	return Parse(path, data)
}

// Parse decodes and checks a plan. The plan is nil when the diagnostics
// hold an error; warnings come with a plan.
func Parse(filename string, data []byte) (*Plan, Diagnostics) {
	if len(data) > MaxFileSize {
		return nil, Diagnostics{{Severity: SeverityError, Filename: filename, Line: 1, Column: 1,
			Summary: fmt.Sprintf("the plan is larger than %d MiB: refusing to read it (is this the right file?)", MaxFileSize>>20)}}
	}
	p := &parser{
		d:    decoder{filename: filename, pos: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}},
		c:    newCompiler(),
		src:  data,
		plan: &Plan{Filename: filename},
	}
	sum := sha256.Sum256(data)
	p.plan.Hash = "sha256:" + hex.EncodeToString(sum[:])
	p.parse()
	diags := p.d.diags
	sortDiagnostics(diags)
	diags = slices.Compact(diags) // a default's problem is found once per bet
	if diags.HasErrors() {
		return nil, diags
	}
	return p.plan, diags
}

type parser struct {
	d     decoder
	c     *compiler
	src   []byte
	lines [][]byte
	doc   planDoc
	root  *yaml.Node
	plan  *Plan
}

var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func (p *parser) parse() {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(p.src))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			p.d.diags = append(p.d.diags, Diagnostic{Severity: SeverityError, Filename: p.d.filename, Line: 1, Column: 1, Summary: "the plan is empty"})
			return
		}
		line, msg := 1, err.Error()
		if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		msg = strings.TrimPrefix(msg, "yaml: ")
		p.d.diags = append(p.d.diags, Diagnostic{Severity: SeverityError, Filename: p.d.filename, Line: line, Column: 1, Summary: "invalid YAML: " + msg})
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.d.errorf(&extra, "the file holds more than one YAML document: a plan is one document")
	}
	p.root = &doc
	if len(doc.Content) == 0 {
		p.d.errorf(&doc, "the plan is empty")
		return
	}
	p.d.decode(doc.Content[0], reflect.ValueOf(&p.doc).Elem(), "", "plan")
	if p.d.bombed {
		return
	}
	p.check()
}

func (p *parser) rootNode() *yaml.Node {
	if p.root != nil && len(p.root.Content) > 0 {
		return p.root.Content[0]
	}
	return &yaml.Node{Line: 1, Column: 1}
}

// at is the node of a path, or of its nearest ancestor that was written.
func (p *parser) at(path string) *yaml.Node {
	for path != "" {
		if n, ok := p.d.pos[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p.rootNode()
}

// keyAt is the key node of a path, or the value's when there is none.
func (p *parser) keyAt(path string) *yaml.Node {
	if k, ok := p.d.keys[path]; ok {
		return k
	}
	return p.at(path)
}

var (
	validate  = newValidator()
	nameRe    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	betIDRe   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	runnerRe  = regexp.MustCompile(`^[1-9][0-9]*$`)
	srmRe     = regexp.MustCompile(`^[1-9][0-9]*:[1-9][0-9]*(,[1-9][0-9]*:[1-9][0-9]*)*$`)
	selRe     = regexp.MustCompile(`^[0-9]+(:[0-9]+(,[0-9]+:[0-9]+)*)?$`)
	nonSlugRe = regexp.MustCompile(`[^a-z0-9]+`)
)

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		return name
	})
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	str := func(fn func(string) bool) validator.Func {
		return func(fl validator.FieldLevel) bool { return fn(fl.Field().String()) }
	}
	must(v.RegisterValidation("planname", str(nameRe.MatchString)))
	must(v.RegisterValidation("betid", str(betIDRe.MatchString)))
	must(v.RegisterValidation("selection", str(selRe.MatchString)))
	must(v.RegisterValidation("bettype", str(func(s string) bool { return slices.Contains(types, s) })))
	must(v.RegisterValidation("market", str(func(s string) bool { return slices.Contains(markets, s) })))
	must(v.RegisterValidation("racecode", str(func(s string) bool { return slices.Contains(codes, s) })))
	must(v.RegisterValidation("cents", func(fl validator.FieldLevel) bool { return isCents(fl.Field().Float()) }))
	return v
}

// isCents reports whether v has at most two decimals.
func isCents(v float64) bool {
	c := v * 100
	return math.Abs(c-math.Round(c)) < 1e-6
}

// validateStruct runs the struct rules of one piece of the plan and turns
// each failure into a sentence at the field's position.
func (p *parser) validateStruct(s any, path, what string) {
	err := validate.Struct(s)
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return
	}
	for _, fe := range ves {
		ns := fe.Namespace()
		if i := strings.IndexByte(ns, '.'); i >= 0 {
			ns = ns[i+1:]
		}
		full := ns
		if path != "" {
			full = path + "." + ns
		}
		field := fe.Field()
		val := fe.Value()
		if rv := reflect.ValueOf(val); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			val = rv.Elem().Interface()
		}
		var msg string
		switch fe.Tag() {
		case "required":
			if written, ok := p.d.pos[full]; ok {
				if fe.Kind() == reflect.Int {
					p.d.errorf(written, "%s must be at least 1, got %v", field, val)
				} else {
					p.d.errorf(written, "%s cannot be empty", field)
				}
				continue
			}
			n := p.at(path)
			if path == "" {
				n = p.rootNode()
			}
			p.d.errorf(n, "%s is missing %s", what, field)
			continue
		case "planname":
			s := val.(string)
			slug := strings.Trim(nonSlugRe.ReplaceAllString(strings.ToLower(s), "-"), "-")
			msg = fmt.Sprintf("name %q must be lowercase letters, digits and '-' (it is part of every bet's label)", s)
			if slug != "" {
				msg += fmt.Sprintf(`; for example "%s"`, slug)
			}
		case "betid":
			msg = fmt.Sprintf("id %q may hold only letters, digits, '-' and '_', starting with a letter or digit (it is part of the bet's label)", val)
		case "selection":
			msg = fmt.Sprintf(`selection %q must be a runner number such as "3", or R:P pairs such as "2:1,6:3" for Same Race Multi`, val)
		case "bettype":
			msg = fmt.Sprintf("unknown type %q%s (types: %s)", val, didYouMean(val.(string), types), strings.Join(types, ", "))
		case "market":
			msg = fmt.Sprintf("unknown market %q%s", val, orList(val.(string), markets))
		case "racecode":
			msg = fmt.Sprintf("unknown code %q%s (codes: %s)", val, didYouMean(val.(string), codes), strings.Join(codes, ", "))
		case "cents":
			msg = fmt.Sprintf("%s %v has more than two decimals: amounts are dollars and cents", field, val)
		case "gt":
			msg = fmt.Sprintf("%s must be more than %s, got %v", field, fe.Param(), val)
		case "min", "gte":
			if fe.Kind() == reflect.String {
				msg = fmt.Sprintf("%s must have at least %s characters", field, fe.Param())
			} else {
				msg = fmt.Sprintf("%s must be at least %s, got %v", field, fe.Param(), val)
			}
		case "max", "lte":
			if fe.Kind() == reflect.String {
				msg = fmt.Sprintf("%s is longer than %s characters", field, fe.Param())
			} else {
				msg = fmt.Sprintf("%s must be at most %s, got %v", field, fe.Param(), val)
			}
		default:
			msg = fmt.Sprintf("%s is not valid (%s)", field, fe.Tag())
		}
		p.d.errorf(p.at(full), "%s", msg)
	}
}

func (p *parser) check() {
	doc := &p.doc
	pl := p.plan
	p.validateStruct(doc, "", "the plan")

	switch {
	case p.d.pos["version"] == nil:
		p.d.errorf(p.rootNode(), "the plan is missing version: add version: 1 at the top")
	case doc.Version != 1:
		p.d.errorf(p.at("version"), "version %d is not supported: this betplan reads version 1", doc.Version)
	}
	if len(doc.Bets) == 0 {
		if n := p.d.pos["bets"]; n != nil && n.Kind == yaml.SequenceNode {
			p.d.errorf(n, "the plan has no bets")
		} else if n == nil {
			p.d.errorf(p.rootNode(), "the plan is missing bets")
		}
	}
	pl.Version, pl.Name, pl.Description, pl.Vars = doc.Version, doc.Name, doc.Description, doc.Vars
	if pl.Vars == nil {
		pl.Vars = map[string]any{}
	}
	p.checkLimits()
	p.checkPoll()
	p.checkRaces()

	var defaults resolvedBet
	if doc.Defaults != nil {
		p.validateStruct(doc.Defaults, "defaults", "defaults")
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
		if b == nil {
			continue
		}
		if b.ID != "" {
			if first, dup := seen[b.ID]; dup {
				p.d.errorf(p.at(path+".id"), "duplicate bet id %q (first at line %d): ids must be unique, they make each bet's label", b.ID, first.Line)
			} else {
				seen[b.ID] = p.at(path + ".id")
			}
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
	_, err := parseDuration(s)
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

// resolvedBet is a bet's or the defaults' fields after compiling, each
// with the path it came from so merged values keep their own positions.
type resolvedBet struct {
	raceKey       string
	race          *RaceRef
	raceSet       bool
	forEach       *Expr
	forEachSet    bool
	selection     *string
	typ           *string
	market        *string
	targetSession *string
	stake         *Amount
	stakePath     string
	profit        *Amount
	profitPath    string
	when          *Expr
	options       map[string]any
	optionsPath   string
	racePath      string
	forEachPath   string
	selectionPath string
	typePath      string
	marketPath    string
}

func (r resolvedBet) display() BetDefaults {
	return BetDefaults{RaceKey: r.raceKey, Race: r.race, ForEachRace: r.forEach, Selection: deref(r.selection),
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
			}
		}
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
			}
		}
	}
	if b.When != nil && b.When.node != nil {
		if tree := p.compileField(b.When.node, "when", kindBool, &r.when); tree != nil {
			for _, f := range literalChecks(tree) {
				p.warnAt(b.When.node, f)
			}
			if f, ok := neverTrue(tree); ok {
				p.warnAt(b.When.node, f)
			}
		}
	}
	r.selection, r.selectionPath = b.Selection, path+".selection"
	r.typ, r.typePath = b.Type, path+".type"
	r.market, r.marketPath = b.Market, path+".market"
	r.targetSession = b.TargetSession
	r.stake, r.stakePath = p.amount(b.Stake, "stake"), path+".stake"
	r.profit, r.profitPath = p.amount(b.TargetProfit, "target_profit"), path+".target_profit"
	if b.Options != nil {
		r.options, r.optionsPath = b.Options, path+".options"
		p.checkOptions(b.Options, path+".options")
	}
	return r
}

func (p *parser) amount(f *amountField, field string) *Amount {
	if f == nil || f.node == nil {
		return nil
	}
	if f.Source == "" {
		switch {
		case f.Value <= 0:
			p.d.errorf(f.node, "%s must be more than 0, got %s", field, f.node.Value)
		case !isCents(f.Value):
			p.d.errorf(f.node, "%s %s has more than two decimals: amounts are dollars and cents", field, f.node.Value)
		}
		return &Amount{Value: f.Value}
	}
	var e *Expr
	if p.compileField(f.node, field, kindNumber, &e) == nil {
		return nil
	}
	return &Amount{Expr: e}
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
			p.d.diags = append(p.d.diags, Diagnostic{Severity: SeverityError, Summary: msg, Filename: p.d.filename, Line: line, Column: col, EndLine: line, EndColumn: col + 1})
		} else {
			p.d.errorf(n, "%s", msg)
		}
		return nil
	}
	*out = e
	return tree
}

func (p *parser) warnAt(n *yaml.Node, f finding) {
	l, c := offsetPos(n.Value, f.from)
	line, col := p.exprPos(n, l, c)
	p.d.diags = append(p.d.diags, Diagnostic{Severity: SeverityWarning, Summary: f.msg, Filename: p.d.filename, Line: line, Column: col, EndLine: line, EndColumn: col + 1})
}

// exprPos maps a position inside a scalar's value (line from 1, column
// from 0, in runes) to the file: the value of a quoted scalar starts after
// the quote, a block scalar's on the next line after its indentation, and
// a value's later lines each start at their own indentation.
func (p *parser) exprPos(n *yaml.Node, line, col int) (int, int) {
	if p.lines == nil {
		p.lines = bytes.Split(p.src, []byte("\n"))
	}
	srcLine, srcCol := n.Line, n.Column
	switch n.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		srcCol++
	case yaml.LiteralStyle, yaml.FoldedStyle:
		srcLine++
		for srcLine <= len(p.lines) && len(bytes.TrimSpace(p.lines[srcLine-1])) == 0 {
			srcLine++
		}
		srcCol = indentCol(p.lines, srcLine)
	}
	if n.Style == yaml.LiteralStyle {
		// Each value line is one source line.
		return srcLine + line - 1, srcCol + col
	}
	// Other styles fold lines into spaces: walk the source lines.
	offset := runeOffset(n.Value, line, col)
	l, c := srcLine, srcCol
	for l <= len(p.lines) {
		text := []rune(string(p.lines[l-1]))
		rest := len(text) - (c - 1)
		if rest < 0 {
			rest = 0
		}
		if offset <= rest || l == len(p.lines) {
			return l, c + offset
		}
		next := l + 1
		if next > len(p.lines) || (n.Style == yaml.FoldedStyle && len(bytes.TrimSpace(p.lines[next-1])) == 0) {
			return l, c + offset
		}
		offset -= rest + 1
		if offset < 0 {
			return l, c + rest
		}
		l, c = next, indentCol(p.lines, next)
	}
	return srcLine, srcCol + col
}

// indentCol is the column (from 1) of the first non-space of a line.
func indentCol(lines [][]byte, l int) int {
	if l < 1 || l > len(lines) {
		return 1
	}
	s := string(lines[l-1])
	return len([]rune(s)) - len([]rune(strings.TrimLeft(s, " \t"))) + 1
}

func (p *parser) checkOptions(opts map[string]any, path string) {
	for _, k := range sortedKeys(opts) {
		v := opts[k]
		kp := path + "." + k
		spec, ok := options[k]
		if !ok {
			if field, isField := betFieldsNotOptions[k]; isField {
				if field != "" {
					p.d.errorf(p.keyAt(kp), "%s is not an option: write it as the bet's %s field", k, field)
				} else {
					p.d.errorf(p.keyAt(kp), "%s is not an option a plan may set: betplan sets it", k)
				}
				continue
			}
			p.d.errorf(p.keyAt(kp), "unknown option %q%s", k, orOptions(k))
			continue
		}
		good := false
		switch spec.kind {
		case optBool:
			_, good = v.(bool)
		case optNumber:
			switch x := v.(type) {
			case int:
				good = true
			case float64:
				good = !math.IsNaN(x) && !math.IsInf(x, 0)
			}
		case optInt:
			_, good = v.(int)
		case optString:
			_, good = v.(string)
		}
		if !good {
			p.d.errorf(p.at(kp), "option %s must be %s, got %s", k, spec.kind, describe(p.at(kp)))
		}
	}
}

// checkOptionPairs checks the options that go together, on a bet's merged
// options; at gives the position of an option, the bet's own or the
// defaults'.
func (p *parser) checkOptionPairs(opts map[string]any, at func(k string) string) {
	num := func(k string) (float64, bool) {
		switch x := opts[k].(type) {
		case int:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	for _, pair := range [][2]string{{"odds", "check_odds"}, {"max_odds", "check_max_odds"}} {
		v, has := num(pair[0])
		check, isBool := opts[pair[1]].(bool)
		if _, set := opts[pair[1]]; set && !isBool {
			continue // already an error of its own
		}
		if has && v <= 1 {
			p.d.errorf(p.at(at(pair[0])), "option %s must be more than 1 (decimal odds), got %v", pair[0], v)
		}
		if has && !check {
			p.d.warnf(p.keyAt(at(pair[0])), "option %s has no effect without %s: true", pair[0], pair[1])
		}
		if check && !has {
			p.d.errorf(p.keyAt(at(pair[1])), "option %s is true but %s is not set", pair[1], pair[0])
		}
	}
	if lo, ok := num("odds"); ok {
		if hi, ok := num("max_odds"); ok && lo > hi {
			p.d.errorf(p.at(at("max_odds")), "option max_odds %v is below odds %v: no price could satisfy both", hi, lo)
		}
	}
}

func orOptions(k string) string {
	if s := didYouMean(k, optionNames()); s != "" {
		return s
	}
	return " (see the options of the plan schema)"
}

// checkBet merges the defaults into one bet and checks the result.
func (p *parser) checkBet(doc *betDoc, path string, def resolvedBet) *Bet {
	n := p.at(path)
	before := p.d.diags.Errors()
	p.validateStruct(doc, path, "bet")
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
	if !own.raceSet && !own.forEachSet {
		race = def
	}
	switch {
	case race.raceSet && race.forEachSet:
		p.d.errorf(p.keyAt(race.forEachPath), "%s has both race and for_each_race: use one", name)
	case race.raceSet:
		b.RaceKey, b.Race = race.raceKey, race.race
	case race.forEachSet:
		b.ForEachRace = race.forEach
	default:
		p.d.errorf(n, "%s has no race: set race (a key of races or {venue, code, event_number}) or for_each_race", name)
	}

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
	if b.When == nil && doc.When == nil {
		b.When = def.when
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
	if market == nil && !written("market") {
		p.d.errorf(n, "%s has no market: set market (e.g. Fixed Win) here or in defaults", name)
	}
	if sel == nil && !written("selection") {
		p.d.errorf(n, "%s has no selection: set the runner number, e.g. selection: \"3\"", name)
	} else if sel != nil && market != nil && selRe.MatchString(*sel) {
		selPath := own.selectionPath
		if own.selection == nil {
			selPath = def.selectionPath
		}
		if *market == MarketSameRaceMulti && !srmRe.MatchString(*sel) {
			p.d.errorf(p.at(selPath), `selection %q must be R:P pairs such as "2:1,6:3" for Same Race Multi`, *sel)
		} else if *market != MarketSameRaceMulti && !runnerRe.MatchString(*sel) {
			p.d.errorf(p.at(selPath), `selection %q must be one runner number such as "3" (R:P pairs are for Same Race Multi only)`, *sel)
		}
	}

	// Amounts: the field the type uses is required, the other refused.
	stake, stakePath := own.stake, own.stakePath
	if doc.Stake == nil {
		stake, stakePath = def.stake, def.stakePath
	}
	profit, profitPath := own.profit, own.profitPath
	if doc.TargetProfit == nil {
		profit, profitPath = def.profit, def.profitPath
	}
	if typ != nil && slices.Contains(types, *typ) {
		if *typ == TypeFixedProfit {
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
	if a, ap := b.amount(), stakePath; a != nil && a.Expr == nil {
		if b.Type == TypeFixedProfit {
			ap = profitPath
		}
		if err := p.plan.Limits.CheckBet(a.Value); err != nil && a.Value > 0 {
			p.d.errorf(p.at(ap), "%s: %s %s is above limits.max_stake_per_bet (%s)", name, b.AmountField(), money(a.Value), money(*p.plan.Limits.MaxStakePerBet))
		}
	}
	if p.d.diags.Errors() > before {
		return nil
	}
	return b
}

func (b *Bet) amount() *Amount {
	if b.Type == TypeFixedProfit {
		return b.TargetProfit
	}
	return b.Stake
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
