package plan

import (
	"regexp"
	"strings"

	"github.com/betplan/betplan/limit"
)

// Rule is a kind of diagnostic: a stable id that code scanning (SARIF) and
// CI annotations show, with the help a reader needs to fix it.
type Rule struct {
	ID   string
	Name string
	Help string
	// match recognises the rule's diagnostics by their summary; the first
	// rule that matches wins, the last matches everything.
	match *regexp.Regexp
}

// Rules lists every rule, in the order they are tried.
var Rules = []Rule{
	{"BP001", "yaml-syntax", "The file is not valid YAML, or holds what a plan cannot (several documents, merge keys, an alias bomb). Fix the line named; YAML indents with spaces.",
		regexp.MustCompile(`^(invalid YAML|merge keys|the file holds more than one YAML document|the plan expands to too many values|the (plan|account file) is empty|the (plan|account file) is larger than)`)},
	{"BP002", "unknown-field", "A key the plan format does not have, usually a misspelling: the message suggests the nearest key.",
		regexp.MustCompile(`^unknown field|is not an option`)},
	{"BP003", "duplicate", "Bet and tip ids, and keys of a mapping, must be unique: an id is part of each bet's label, which makes it exactly-once.",
		regexp.MustCompile(`^duplicate `)},
	{"BP004", "unknown-name", "A race code, market, bet type, option, race key or confidence the service does not know: the message lists what it takes.",
		regexp.MustCompile(`^unknown (code|market|type|option|race|confidence|sport|event)|is not a (venue|sport) betplan knows`)},
	{"BP005", "out-of-range", "A number too large (or small) for what it means: an amount above its range or not a finite number (1e309), a runner a race of its code cannot have (above 10 on a greyhound race: eight boxes and two reserves).",
		regexp.MustCompile(`out of range|is not a finite number`)},
	{"BP006", "limit", "A limit is invalid, or the plan's own bets already break one.",
		regexp.MustCompile(`(^limits|\blimits\.|^(` + strings.Join(limit.Keys(limit.Anywhere), "|") + `)\b|^period|no limits|above max_)`)},
	{"BP007", "missing", "A field the plan, a bet or a tip needs is missing.",
		regexp.MustCompile(`(^the (plan|account file) is missing|^the plan has no |\bhas no \w+[:(]| needs (stake|target_profit)|^tip is missing|^bet is missing)`)},
	{"BP008", "expression", "An expression (when, for_each_race, an amount) does not compile, reads an unknown name, has the wrong type, divides by zero or can never be true (a part false with the plan's own vars switches the bet off); with the service's races (plan, validate --online), a for_each_race that matches none of them.",
		regexp.MustCompile(`(invalid (amount|condition|expression)|expression|can never be|cannot be both|always (true|false)|divides by zero|^when|^for_each_race|for_each_race matches none)`)},
	{"BP009", "version", "The plan's format version.",
		regexp.MustCompile(`^version`)},
	{"BP011", "notify", "A notify target or heartbeat is invalid: an event name alerts do not have, a URL its service cannot read, http:// off loopback, or a ${NAME} that is not a variable name.",
		regexp.MustCompile(`^(notify|heartbeat|unknown alert event|duplicate event)`)},
	{"BP010", "invalid-value", "A value of the wrong type or shape: the message says what the field takes.",
		regexp.MustCompile(``)},
}

// ruleFor finds the rule of a diagnostic's summary.
func ruleFor(summary string) *Rule {
	for i := range Rules {
		if Rules[i].match.MatchString(summary) {
			return &Rules[i]
		}
	}
	return &Rules[len(Rules)-1]
}

// RuleOf is the rule of a diagnostic.
func (x Diagnostic) RuleOf() *Rule { return ruleFor(x.Summary) }
