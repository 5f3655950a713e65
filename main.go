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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], newSystemIO())
	stop()
	os.Exit(code)
}
