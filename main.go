// Command betplan runs declarative bet plans written in YAML against the
// Betting Automation Service, creating every bet of a plan at most once and
// following each outcome to a report.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() { os.Exit(mainCode()) }

// mainCode is the whole process: Ctrl-C and SIGTERM cancel the context, so
// a run stops, writes its report and exits; tests start it as the binary.
func mainCode() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], newSystemIO())
}
