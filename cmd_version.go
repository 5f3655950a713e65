package main

import (
	"context"
	"fmt"
	"runtime"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the betplan version",
		exits: []exitDoc{
			{exitOK, "the version was printed"},
			{exitUsage, "usage error"},
		},
		examples: `  betplan version
`,
		setup: bindTo(nil, printVersion),
	}
}

func printVersion(_ context.Context, sys *sysIO, _ *noFlags, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %q", args[0])
	}
	fmt.Fprintf(sys.Stdout, "betplan %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
