package reporters

import (
	"fmt"

	"github.com/betplan/betplan/engine"
)

// A status read while a run of the plan holds its lock says so, where it
// would say how a run ended: the run is live, nothing has ended.

// endedWords is how a result's command ended, as the reports' "Ended"
// says it: "running" for a status read during a live run.
func endedWords(r *engine.Result) string {
	if r.Running != nil {
		return "running"
	}
	return string(r.EndReason)
}

// runningWords says which run holds the plan's lock, and since when (the
// machine's clock: the lock is taken on it, whatever the service's clock);
// "" when none does.
func runningWords(r *engine.Result) string {
	o := r.Running
	if o == nil {
		return ""
	}
	s := "a run holds the plan's lock"
	if o.PID != 0 {
		s += fmt.Sprintf(": pid %d", o.PID)
		if o.Host != "" {
			s += " on " + o.Host
		}
	}
	if o.Command != "" {
		s += " (" + o.Command
		if o.PlanFile != "" {
			s += " " + o.PlanFile
		}
		s += ")"
	}
	if !o.Since.IsZero() {
		s += ", since " + Clock{Zone: r.Zone}.Stamp(o.Since)
	}
	return s
}
