package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/betplan/betplan/internal/printable"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// Exit codes; what each means is exitCodes (exits.go).
const (
	exitOK      = 0 // success
	exitFailed  = 1 // the run finished but something failed
	exitUsage   = 2 // usage error or invalid plan, before any request
	exitRefused = 3 // refused by a safety check
	exitChanges = 4 // plan --detailed-exitcode: something to create
)

// sysIO is what a command may touch of the outside world, so tests see
// exactly what a user would.
type sysIO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// IsTTY reports whether stdin and stdout are both terminals.
	IsTTY bool
	// Interactive reports whether stdin is a terminal, so a prompt can be
	// answered even when stdout is piped (betplan run plan.yaml | tee log).
	Interactive bool
	// NoColor is --no-color.
	NoColor bool
	// Width is the terminal's width in columns when stdout is one; 0 when
	// it is piped, so nothing is cut.
	Width int
}

// textOptions shape a text report for this output: tables fit a
// terminal, and piped output is never cut.
func (sys *sysIO) textOptions() reporters.TextOptions {
	return reporters.TextOptions{Color: sys.color(), Width: sys.Width}
}

// terminalWidth is stdout's width when it is a terminal (80 when the size
// cannot be read), else 0.
func terminalWidth(f *os.File) int {
	if !isTerminal(f) {
		return 0
	}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

// color reports whether output may carry ANSI colours: a terminal, and
// neither NO_COLOR nor --no-color.
func (sys *sysIO) color() bool { return sys.IsTTY && sys.Getenv("NO_COLOR") == "" && !sys.NoColor }

func newSystemIO() *sysIO {
	return &sysIO{
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Getenv:      os.Getenv,
		IsTTY:       isTerminal(os.Stdin) && isTerminal(os.Stdout),
		Interactive: isTerminal(os.Stdin),
		Width:       terminalWidth(os.Stdout),
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// command is one subcommand: its name, one line for `help`, and how to
// bind its flags and act.
type command struct {
	name    string
	args    string // argument synopsis for usage, e.g. "PLAN..."
	summary string
	// exits are the exit codes the command can return, each with what it
	// means for this command.
	exits []exitDoc
	// examples are command lines with a comment each, for help.
	examples string
	// colour says the command's output may be coloured, so it takes
	// --no-color.
	colour bool
	// untilStopped says the command runs until a signal stops it (serve):
	// its normal end is SIGTERM's 143, never 0.
	untilStopped bool
	// waitsForLock says the command can wait for another run to let the
	// plan's lock go (--lock-timeout), so a refusal for a held lock offers
	// the wait.
	waitsForLock bool
	// setup binds the command's flags to a fresh options value and returns
	// what to do with them once parsed.
	setup func(fs *pflag.FlagSet) action
}

// exitDoc is one exit code a command can return and what it means there.
type exitDoc struct {
	code int
	text string
}

// interruptedExits are the codes of a command stopped by a signal.
var interruptedExits = []exitDoc{{130, "interrupted by Ctrl-C (SIGINT); 143 for SIGTERM"}}

// action runs a command with its parsed options and positional arguments.
type action func(ctx context.Context, sys *sysIO, args []string) error

// bindTo makes a command's setup from its options type: bind declares the
// flags on a fresh *O, act runs with it. act is what tests call without
// flags. Options that have a validate method are checked before act, so a
// bad combination of flags is refused before any I/O.
func bindTo[O any](bind func(*O, *pflag.FlagSet), act func(context.Context, *sysIO, *O, []string) error) func(*pflag.FlagSet) action {
	return func(fs *pflag.FlagSet) action {
		o := new(O)
		if bind != nil {
			bind(o, fs)
		}
		return func(ctx context.Context, sys *sysIO, args []string) error {
			if v, ok := any(o).(validator); ok {
				if err := v.validate(); err != nil {
					return err
				}
			}
			return act(ctx, sys, o, args)
		}
	}
}

// firstError runs checks in order and returns the first error.
func firstError(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validator is options that can tell, from the flags alone, that they make
// no sense together or are out of any sane range.
type validator interface{ validate() error }

// noFlags is the options of a command that has none.
type noFlags struct{}

func commands() []*command {
	return []*command{
		validateCommand(),
		planCommand(),
		diffCommand(),
		fmtCommand(),
		runCommand(),
		serveCommand(),
		statusCommand(),
		historyCommand(),
		explainCommand(),
		cancelCommand(),
		stopCommand(),
		doctorCommand(),
		notifyCommand(),
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

// interruptedWords is what a command says when a signal stopped it.
func (c *command) interruptedWords() string {
	if c.name == "run" {
		// The journal announced every create before it was sent.
		return "interrupted: re-run to resume; nothing will be created twice"
	}
	if c.name == "serve" {
		return "stopped: no create was left half-done (one cut off is journalled in doubt and looked up first); a standby takes over"
	}
	return "interrupted"
}

func newFlagSet(c *command) (*pflag.FlagSet, action) {
	fs := pflag.NewFlagSet("betplan "+c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs, c.setup(fs)
}

// envVar is an environment variable the commands read, with the flag that
// wins over it: brief is `betplan help`'s words (broken where help breaks
// them), detail the docs' table (internal/docgen writes both from here).
// A flag alone (no name) is in the docs' table only.
type envVar struct {
	name, flag    string
	brief, detail string
}

// environment is every variable betplan reads, in help's order.
var environment = []envVar{
	{"BETPLAN_BASE_URL", "--base-url", "service base URL (https:// required except on loopback)",
		"the service's base URL; `https://` required except on loopback (`--insecure` to override). Its host's case, the default port (`:443`, `:80` for `http://`) and a trailing slash do not matter: every spelling of one service finds the same journals, locks, stop marks and saved plans, and outputs write it one way"},
	{"BETPLAN_TOKEN", "", "API token", "API token (`Authorization: Token …`)"},
	{"BETPLAN_EMAIL", "", "e-mail for login (with BETPLAN_PASSWORD)",
		"the e-mail to log in with, with `BETPLAN_PASSWORD` (the token is cached in the user's config dir, mode 0600); with a token too, a 401 mid-run leads to one new login"},
	{"BETPLAN_PASSWORD", "", "password for login", "the password to log in with, with `BETPLAN_EMAIL`"},
	{"BETPLAN_TIPSTER_APIKEY", "", "the tip package's API key, for plans with tips (never printed)",
		"the tip package's API key, for plans with tips (never printed, journalled or reported)"},
	{"BETPLAN_STATE", "--state", "shared state: postgres://user@host/db keeps journals and locks\nin PostgreSQL for every machine (run, plan, status, cancel, unlock),\nand serve's leadership of the account",
		"a `postgres://` URL: keep journals and locks in that database, shared by every machine (see Running on several machines in docs/running.md), and `betplan serve`'s leadership of the account (for serve, a directory on this machine does too)"},
	{"BETPLAN_SERVE_TOKEN", "--listen-token-file", "the bearer token serve's /healthz, /readyz, /metrics and /status\nask for (required off loopback; or --listen-token-file)",
		"the bearer token `betplan serve`'s `/healthz`, `/readyz`, `/metrics` and `/status` ask for (required off loopback); `--listen-token-file` names a file holding it instead, never the token itself"},
	{"", "--state-schema", "", "the shared state's schema (default the URL's `search_path`, or `betplan`)"},
	{"BETPLAN_CONFIG", "--config", "the account file (default: betplan.yaml found from the plan's\ndirectory up to the repository root; or --config)",
		"the account file (default `betplan.yaml` in the plan's directory or above it, up to the repository root)"},
	{"NO_COLOR", "--no-color", "disable colour in terminal output (or --no-color)", "no colour in terminal output"},
}

// helpExpressions is the help topic that prints the expression
// reference: `betplan help expressions`.
const helpExpressions = "expressions"

func writeHelp(w io.Writer) {
	fmt.Fprintf(w, "betplan runs declarative bet plans against the Betting Automation Service.\n\n")
	fmt.Fprintf(w, "Usage:\n  betplan <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "help", "show help for betplan or one command")
	fmt.Fprintf(w, "\nRun 'betplan help <command>' or 'betplan <command> --help' for its flags,\n")
	fmt.Fprintf(w, "'betplan help %s' for what a plan's when, for_each_race and stake\nexpressions can use.\n\n", helpExpressions)
	fmt.Fprintf(w, "Exit codes:\n")
	for _, e := range exitCodes {
		fmt.Fprintf(w, "  %d  %s\n", e.code, strings.ReplaceAll(e.brief, "\n", "\n     "))
	}
	fmt.Fprintf(w, "Each command's help lists the codes it can return.\n\n")
	fmt.Fprintf(w, "Environment (a flag wins over the environment, which wins over the default):\n")
	for _, v := range environment {
		if v.name == "" {
			continue // a flag alone: its command's help has it
		}
		text := strings.ReplaceAll(v.brief, "\n", "\n"+strings.Repeat(" ", 21))
		if len(v.name) > 17 {
			fmt.Fprintf(w, "  %s\n%s%s\n", v.name, strings.Repeat(" ", 21), text)
			continue
		}
		fmt.Fprintf(w, "  %-17s  %s\n", v.name, text)
	}
}

func writeCommandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  betplan %s [flags]", wrapWords(c.summary, 80, ""), c.name)
	if c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	fmt.Fprintln(w)
	fs := c.helpFlags()
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsagesWrapped(80))
	}
	if c.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s", c.examples)
	}
	fmt.Fprintf(w, "\nExit codes:\n")
	for _, e := range c.exits {
		fmt.Fprintf(w, "  %-3d %s\n", e.code, wrapWords(e.text, 72, "      "))
	}
}

// helpFlags are the command's flags as its help lists them: --no-color
// too, which execute binds to the command's streams.
func (c *command) helpFlags() *pflag.FlagSet {
	fs, _ := newFlagSet(c)
	if c.colour {
		fs.Bool("no-color", false, "no colour in terminal output (as NO_COLOR=1 does)")
	}
	return fs
}

// wrapWords folds text at width columns, later lines indented, so help
// fits an 80-column terminal.
func wrapWords(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 {
			if n+1+len(word) > width {
				b.WriteString("\n" + indent)
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// suggestCommand returns ` (did you mean "x"?)` for a near miss.
func suggestCommand(name string) string {
	names := []string{"help", helpExpressions}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if best := plan.Suggest(strings.ToLower(name), names); best != "" {
		if best == helpExpressions {
			best = "help " + helpExpressions
		}
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// flagHint points a flag other tools have to what betplan does instead:
// a dry run is `betplan plan`.
func flagHint(cmd string, err error) string {
	if strings.Contains(err.Error(), "--dry-run") && cmd != "plan" {
		return "; for a dry run, 'betplan plan PLAN' shows what run would do, without a request that changes anything"
	}
	return ""
}
