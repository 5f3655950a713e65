package plan

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestExpressionsHelpNamesEverything holds the expression reference to
// what an expression can really use: every field of every part of Env
// and every helper function is named in it, so a field added to Env
// without a word for users fails here.
func TestExpressionsHelpNamesEverything(t *testing.T) {
	help := ExpressionsHelp
	for _, part := range []struct {
		prefix string
		typ    reflect.Type
	}{
		{"", reflect.TypeFor[Env]()},
		{"race.", reflect.TypeFor[RaceEnv]()},
		{"event.", reflect.TypeFor[EventEnv]()},
		{"", reflect.TypeFor[MarketEnv]()},
		{"", reflect.TypeFor[SelectionEnv]()},
		{"", reflect.TypeFor[SessionEnv]()},
		{"plan.", reflect.TypeFor[PlanEnv]()},
		{"", reflect.TypeFor[BetEnv]()},
	} {
		for _, name := range envNames(part.typ) {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(part.prefix+name) + `\b`).MatchString(help) {
				t.Errorf("%s: %s%s is not in expressions.txt", part.typ.Name(), part.prefix, name)
			}
		}
	}
	for _, h := range helpers {
		if !strings.Contains(help, "  "+h.name+"(") {
			t.Errorf("helper %s() is not in the Functions of expressions.txt", h.name)
		}
	}
	if len(helperNames) != len(helpers) {
		t.Errorf("helperNames %v and helpers disagree", helperNames)
	}
	for _, line := range strings.Split(help, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %s", n, line)
		}
	}
}

// TestExpressionsHelpExamplesCompile: every example line of the
// reference ("  when: ...", "  stake: ...") compiles as the field it
// shows.
func TestExpressionsHelpExamplesCompile(t *testing.T) {
	example := regexp.MustCompile(`^  (when|for_each_race|stake|target_profit): (.+)$`)
	n := 0
	for _, line := range strings.Split(ExpressionsHelp, "\n") {
		m := example.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		src := m[2]
		if strings.HasPrefix(src, "'") {
			src = strings.ReplaceAll(strings.Trim(src, "'"), "''", "'")
		}
		kind := kindBool
		if m[1] == "stake" || m[1] == "target_profit" {
			kind = kindNumber
		}
		if _, _, err := newCompiler().compile(src, kind); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	if n < 5 {
		t.Errorf("%d examples found, want the reference's examples", n)
	}
}
