package reporters

import (
	"fmt"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
	"github.com/invopop/jsonschema"
)

// UndeliveredAlert is an alert that did not reach its target by the end
// of the run.
type UndeliveredAlert struct {
	Event    AlertEvent `json:"event" jsonschema_description:"The alert's event, as a notify target's on: names it."`
	Bet      string     `json:"bet" jsonschema_description:"The bet's instance id; empty for a run's summary or failure."`
	Target   string     `json:"target" jsonschema_description:"The target, as its scheme and host only: the rest of a URL may be a token."`
	Outcome  string     `json:"outcome" jsonschema_description:"not delivered (the next run tries again), outcome unknown (it may have arrived: not sent again), or given up."`
	Error    string     `json:"error" jsonschema_description:"Why, from the last attempt."`
	Attempts int        `json:"attempts" jsonschema_description:"Attempts made, over every run."`
}

// AlertEvent is an alert's event: its schema's enum is the one list of
// events (plan.AlertEvents).
type AlertEvent string

// JSONSchema is the event's schema: a string of the list.
func (AlertEvent) JSONSchema() *jsonschema.Schema { return enumSchema(plan.AlertEvents()) }

// enumSchema is a string's schema whose values are those of one list.
func enumSchema[T ~string](values []T) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, string(v))
	}
	return s
}

func newUndeliveredAlerts(r *engine.Result) []UndeliveredAlert {
	var out []UndeliveredAlert
	for _, a := range r.Alerts {
		out = append(out, UndeliveredAlert{Event: AlertEvent(a.Event), Bet: a.Bet, Target: a.Target, Outcome: a.Outcome, Error: a.Error, Attempts: a.Attempts})
	}
	return out
}

func alertWords(a engine.AlertResult) string {
	s := a.Event
	if a.Bet != "" {
		s += " of " + a.Bet
	}
	return fmt.Sprintf("%s to %s: %s (%s; %d attempts)", s, a.Target, a.Outcome, a.Error, a.Attempts)
}

func (t *textWriter) alerts(r *engine.Result) {
	if len(r.Alerts) == 0 {
		return
	}
	t.w.WriteString(t.bold("ALERTS NOT DELIVERED") + "\n")
	for _, a := range r.Alerts {
		t.line(oneLine("- "+alertWords(a)), toneWarn)
	}
	t.w.WriteByte('\n')
}

func (m *markdownWriter) alerts(r *engine.Result) {
	if len(r.Alerts) == 0 {
		return
	}
	m.printf("Alerts not delivered:\n\n")
	for _, a := range r.Alerts {
		m.printf("- %s\n", mdText(alertWords(a)))
	}
	m.printf("\n")
}
