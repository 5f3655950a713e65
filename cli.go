package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/plan"
)

// Exit codes, documented in README.md and `betplan help`.
const (
	exitOK      = 0 // success
	exitFailed  = 1 // the run finished but something failed
	exitUsage   = 2 // usage error or invalid plan, before any request
	exitRefused = 3 // refused by a safety check
	exitChanges = 4 // plan --detailed-exitcode: something to create
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// sysIO is what a command may touch of the outside world, so tests see
// exactly what a user would.
type sysIO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// IsTTY reports whether stdin and stdout are both terminals.
	IsTTY bool
}

func newSystemIO() *sysIO {
	return &sysIO{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		IsTTY:  isTerminal(os.Stdin) && isTerminal(os.Stdout),
	}
}

// usageError is a mistake in how the command was called: main prints it
// with a pointer to the usage text and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries a specific exit code with the error that caused it.
// A nil err means the command already reported what happened.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// command is one subcommand: its name, one line for `help`, and how to
// build its flags and run it.
type command struct {
	name    string
	args    string // argument synopsis for usage, e.g. "PLAN..."
	summary string
	flags   func(fs *pflag.FlagSet) // declares the command's flags
	run     func(ctx context.Context, sys *sysIO, fs *pflag.FlagSet, args []string) error
}

func commands() []*command {
	return []*command{
		validateCommand(),
		planCommand(),
		runCommand(),
		statusCommand(),
		cancelCommand(),
		unlockCommand(),
		schemaCommand(),
		simCommand(),
		versionCommand(),
	}
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it parses args, runs one command and returns
// the process exit code.
func run(ctx context.Context, args []string, sys *sysIO) int {
	if len(args) == 0 {
		writeHelp(sys.Stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		if len(args) > 1 {
			if c := findCommand(args[1]); c != nil {
				writeCommandUsage(sys.Stdout, c)
				return exitOK
			}
			fmt.Fprintf(sys.Stderr, "betplan: unknown command %q\n", args[1])
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
	fs := newFlagSet(c)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			writeCommandUsage(sys.Stdout, c)
			return exitOK
		}
		fmt.Fprintf(sys.Stderr, "betplan %s: %v\nRun 'betplan %s --help' for usage.\n", c.name, err, c.name)
		return exitUsage
	}
	err := c.run(ctx, sys, fs, fs.Args())
	return exitCode(sys.Stderr, c, err)
}

func newFlagSet(c *command) *pflag.FlagSet {
	fs := pflag.NewFlagSet("betplan "+c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	if c.flags != nil {
		c.flags(fs)
	}
	return fs
}

// exitCode reports err on stderr in the command's voice and maps it to an
// exit code.
func exitCode(stderr io.Writer, c *command, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "betplan %s: %s\nRun 'betplan %s --help' for usage.\n", c.name, ue.msg, c.name)
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "betplan %s: %v\n", c.name, ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "betplan %s: %v\n", c.name, err)
	return exitFailed
}

const exitCodesHelp = `Exit codes:
  0  success
  1  the run finished but something failed (a bet failed, an API error, an unresolved race)
  2  usage error or invalid plan, before any request
  3  refused by a safety check (limits, no confirmation, no running bot, lock held)
  4  plan --detailed-exitcode: there is something to create
`

const envHelp = `Environment (a flag wins over the environment, which wins over the default):
  BETPLAN_BASE_URL   service base URL (https:// required except on loopback)
  BETPLAN_TOKEN      API token
  BETPLAN_EMAIL      e-mail for login (with BETPLAN_PASSWORD)
  BETPLAN_PASSWORD   password for login
  NO_COLOR           disable colour in terminal output
`

func writeHelp(w io.Writer) {
	fmt.Fprintf(w, "betplan runs declarative bet plans against the Betting Automation Service.\n\n")
	fmt.Fprintf(w, "Usage:\n  betplan <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "help", "show help for betplan or one command")
	fmt.Fprintf(w, "\nRun 'betplan help <command>' or 'betplan <command> --help' for its flags.\n\n")
	fmt.Fprint(w, exitCodesHelp)
	fmt.Fprintln(w)
	fmt.Fprint(w, envHelp)
}

func writeCommandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  betplan %s [flags]", c.summary, c.name)
	if c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	fmt.Fprintln(w)
	fs := newFlagSet(c)
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	}
	fmt.Fprintf(w, "\n%s", exitCodesHelp)
}

// suggestCommand returns ` (did you mean "x"?)` for a near miss.
func suggestCommand(name string) string {
	names := []string{"help"}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if best := plan.Suggest(strings.ToLower(name), names); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
