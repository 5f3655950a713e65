package main

import (
	"fmt"
	"io"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
)

// logRetries has the client say in log, in the form of the engine's own
// lines, every call it repeats, why, and how long it waits first: a run
// riding out a short outage is visibly waiting, not stuck.
func logRetries(c *apiclient.Client, log io.Writer, clock engine.Clock, simulated bool) {
	if log == nil {
		c.OnRetry(nil)
		return
	}
	c.OnRetry(retryLines(log, clock, simulated))
}

// retryLines writes each retry to log as a line of the engine's form:
// the hook of one plan's calls when several plans share the client.
func retryLines(log io.Writer, clock engine.Clock, simulated bool) func(apiclient.Retry) {
	return func(r apiclient.Retry) {
		fmt.Fprintf(log, "%s %s\n", shownClock(clock, simulated).Stamp(clock.Now()), r)
	}
}
