package cli

import (
	"context"
	"io"

	"github.com/spf13/pflag"
)

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

// helpFlags are the command's flags as its help lists them: --no-color
// too, which execute binds to the command's streams.
func (c *command) helpFlags() *pflag.FlagSet {
	fs, _ := newFlagSet(c)
	if c.colour {
		fs.Bool("no-color", false, "no colour in terminal output (as NO_COLOR=1 does)")
	}
	return fs
}
