// Package cli is betplan's commands: each reads its options, binds them,
// validates and acts, in a file of its own (cmd_<verb>.go), over helpers
// named for what they do. The betplan command's main calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/internal/printable"
	"github.com/betplan/betplan/plan"
)

// Main is the whole process, called by the betplan command's main: Ctrl-C
// and SIGTERM cancel the context, so a run stops, writes its report and
// exits; it returns the exit code. Tests start it as the binary.
func Main() int {
	ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return execute(ctx, os.Args[1:], newSystemIO())
}

// execute is the whole program: it parses args, runs one command and
// returns the process exit code.
func execute(ctx context.Context, args []string, sys *sysIO) int {
	if len(args) == 0 {
		writeHelp(sys.Stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if args[1] == helpExpressions {
				fmt.Fprint(sys.Stdout, plan.ExpressionsHelp)
				return exitOK
			}
			if c := findCommand(args[1]); c != nil {
				writeCommandUsage(sys.Stdout, c)
				return exitOK
			}
			fmt.Fprintf(sys.Stderr, "betplan: no help on %q%s\nRun 'betplan help' for the list of commands.\n", args[1], strings.Replace(suggestCommand(args[1]), "help expressions", helpExpressions, 1))
			return exitUsage
		}
		writeHelp(sys.Stdout)
		return exitOK
	case "--version", "-v":
		name = "version"
	}
	c := findCommand(name)
	if c == nil {
		fmt.Fprintf(sys.Stderr, "betplan: unknown command %q%s\nRun 'betplan help' for the list of commands.\n", name, suggestCommand(name))
		return exitUsage
	}
	fs, act := newFlagSet(c)
	if c.colour {
		fs.BoolVar(&sys.NoColor, "no-color", false, "no colour in terminal output (as NO_COLOR=1 does)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			writeCommandUsage(sys.Stdout, c)
			return exitOK
		}
		fmt.Fprintf(sys.Stderr, "betplan %s: %v%s\nRun 'betplan %s --help' for usage.\n", c.name, err, flagHint(c.name, err), c.name)
		return exitUsage
	}
	err := act(ctx, sys, fs.Args())
	if sig := interruptedBy(ctx); sig != nil && err != nil {
		err = &interruptedError{sig: sig, cause: err}
	}
	code, line := c.exitStatus(err)
	if line != "" {
		// An error may name a journal or quote a record: shown, never run.
		fmt.Fprintf(sys.Stderr, "betplan %s: %s\n", c.name, printable.Lines(line))
	}
	return code
}
