package main

import (
	"fmt"
	"io"
	"time"

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
// the hook of one plan's calls when several plans share the client. A
// retry waits on the wall clock, so its line is stamped by it (in a
// rehearsal, "real time"): its seconds and its stamp are one clock.
func retryLines(log io.Writer, clock engine.Clock, simulated bool) func(apiclient.Retry) {
	return func(r apiclient.Retry) {
		fmt.Fprintf(log, "%s %s\n", wallClock(clock, simulated).Stamp(time.Now()), r)
	}
}
