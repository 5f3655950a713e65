// Command betplan runs declarative bet plans written in YAML against the
// Betting Automation Service, creating every bet of a plan at most once and
// following each outcome to a report. The commands are package cli's.
package main

import (
	"os"

	"github.com/betplan/betplan/cli"
)

func main() { os.Exit(cli.Main()) }
