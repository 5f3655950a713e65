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
func logRetries(c *apiclient.Client, log io.Writer, clock engine.Clock) {
	if log == nil {
		c.OnRetry(nil)
		return
	}
	c.OnRetry(retryLines(log, clock))
}

// retryLines writes each retry to log as a line of the engine's form:
// the hook of one plan's calls when several plans share the client.
func retryLines(log io.Writer, clock engine.Clock) func(apiclient.Retry) {
	return func(r apiclient.Retry) {
		fmt.Fprintf(log, "%s %s\n", clock.Now().UTC().Format("2006-01-02T15:04:05Z"), r)
	}
}
