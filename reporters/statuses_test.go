package reporters_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// The statuses validate holds a plan's comparisons to are the ones
// report.json writes: a status added to one and not the other would make
// validate refuse a condition that can match, or pass one that cannot.
func TestBetStatusesMatchReport(t *testing.T) {
	f, ok := reflect.TypeFor[reporters.Bet]().FieldByName("Status")
	if !ok {
		t.Fatal("reporters.Bet has no Status")
	}
	var enum []string
	for _, part := range strings.Split(f.Tag.Get("jsonschema"), ",") {
		if v, ok := strings.CutPrefix(part, "enum="); ok {
			enum = append(enum, v)
		}
	}
	assert.ElementsMatch(t, enum, plan.BetStatuses())
}
