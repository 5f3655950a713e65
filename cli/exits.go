package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/betplan/betplan/state"
)

// Exit codes; what each means is exitCodes.
const (
	exitOK      = 0 // success
	exitFailed  = 1 // the run finished but something failed
	exitUsage   = 2 // usage error or invalid plan, before any request
	exitRefused = 3 // refused by a safety check
	exitChanges = 4 // plan --detailed-exitcode: something to create
)

// The errors a command returns say what kind of ending they are; exitStatus
// alone turns them into an exit code and the line a user reads.

// exitMeaning is an exit code every command shares and what it means:
// brief is `betplan help`'s line (broken where help breaks it), detail
// the docs' table (internal/docgen writes both from here).
type exitMeaning struct {
	code          int
	brief, detail string
}

// exitCodes are the codes betplan exits with, in order.
var exitCodes = []exitMeaning{
	{exitOK, "success, or the plan's limits did their job (a stop_loss or take_profit\nreached, a cap already reported in its period, the plan's own odds bound)",
		"nothing failed: every bet settled or skipped by its own condition (with `--no-wait`, everything ready was created); or the plan's limits did their job (end reason `limit`): `stop_loss` or `take_profit` ended the period, a cap held bets back that an earlier run of the period already reported, or every session refused a bet for the plan's own odds bound (reported as not placed, reason `odds_bound`); or the plan is stopped (`betplan stop`): the run created nothing, reported what the plan placed and said how to resume"},
	{exitFailed, "the run finished but something failed (a bet failed, an API error, an unresolved race)",
		"the run finished but something failed (a bet failed, was not taken or is in doubt for a reason that is a failure; an unresolved race, an API error, a timeout, a tip failed or of unknown outcome)"},
	{exitUsage, "usage error or invalid plan, before any request", ""},
	{exitRefused, "refused: a safety check (a cap of the limits first reached in its period,\nno confirmation, no running bot, lock held or lost, shared state out of\nreach), or the service cannot be reached or refuses the credentials",
		"refused by a safety check (a cap of the limits, `max_total_stake`, `max_open_stake`, `max_loss`, `max_bets`, per race or the account's, holding a bet back for the first time in its period; bets that cannot fit the limits together, or an amount above `max_stake_per_bet`, found at run time; no confirmation, no running bot, the lock held by another run or lost during the run, the shared state out of reach or too new, a damaged journal, a journal kept for another account, a journal from an earlier betplan that nothing shows to be this service's, a real run whose money has no bound without `--no-limits`), or the service cannot be used: nothing answers, TLS fails, a base URL without `https://`, no betting service at the URL (the connection check's read answered 404, or answered success in another shape than the service's: a health page, a proxy), a wrong or expired token (also one that dies mid-run with no e-mail and password to log in again: the run ends at the first refused call, its report listing every bet it created); one line names the URL and the next step"},
	{exitChanges, "plan --detailed-exitcode: there is something to create; diff: the plans differ",
		"`plan --detailed-exitcode`: there is something to create; `diff`: the plans differ"},
	{130, "interrupted by Ctrl-C (SIGINT); 143 for SIGTERM",
		"stopped by Ctrl-C (SIGINT), or 143 by SIGTERM; re-run to resume (for `serve`, 143 is its normal stop)"},
}

// usageError is a mistake in how the command was called: exit 2, with a
// pointer to the usage text.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// invalidError is input betplan cannot act on, found before any request:
// an invalid plan, or one it cannot read. Exit 2, without the usage text:
// the problems were printed or the message says what is wrong.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }

func invalidf(format string, args ...any) error {
	return &invalidError{fmt.Errorf(format, args...)}
}

// refusal is an error a safety check raised (exit 3): the engine's lock,
// stop and state errors, and the command layer's own refusedError.
type refusal interface {
	error
	Refused() bool
}

// refusedError is a refusal of the command layer: no confirmation, a
// service that cannot be used at all, a lock a stop could not take.
type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }
func (e *refusedError) Refused() bool { return true }

func refusef(format string, args ...any) error {
	return &refusedError{fmt.Errorf(format, args...)}
}

// errChanges is plan --detailed-exitcode and diff finding something to
// create or change: exit 4, and the output already said what.
var errChanges = errors.New("there are changes")

// interruptedError is a command a signal stopped before it finished.
type interruptedError struct {
	sig   *interruption
	cause error
}

func (e *interruptedError) Error() string { return e.sig.Error() + ": " + e.cause.Error() }
func (e *interruptedError) Unwrap() error { return e.cause }

// planFailure is how one plan of a run ended, named by the plan; its
// kind (refused, failed) is its error's.
type planFailure struct {
	plan string
	err  error
}

func (e *planFailure) Error() string { return e.plan + ": " + e.err.Error() }

func (e *planFailure) Unwrap() error { return e.err }

// failures are several actions' errors kept as one (stop does several
// things and reports each): its exit code is the worst of them.
type failures []error

func (f failures) Error() string {
	msgs := make([]string, len(f))
	plans := 0
	first := map[string]string{} // a reason, and the plan that said it first
	for i, err := range f {
		msgs[i] = err.Error()
		var pf *planFailure
		if !errors.As(err, &pf) {
			continue
		}
		plans++
		why := pf.err.Error()
		if p, ok := first[why]; ok {
			// The plans of a run refused together: the reason once.
			var r refusal
			if errors.As(pf.err, &r) && r.Refused() {
				msgs[i] = fmt.Sprintf("%s: refused, for the same reason as %s", pf.plan, p)
			} else {
				msgs[i] = fmt.Sprintf("%s: the same as %s", pf.plan, p)
			}
			continue
		}
		first[why] = pf.plan
	}
	if plans == len(f) {
		return strings.Join(msgs, "\n") // one line per plan
	}
	return strings.Join(msgs, "; ")
}

func (f failures) Unwrap() []error { return f }

// joinFailures is nil for none, the error itself for one.
func joinFailures(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return failures(errs)
}

// exitStatus is the one place that decides how a command's error ends the
// process: its exit code, and the line stderr shows after "betplan CMD: "
// ("" when the command's output already said everything). Anything not
// recognised is a failure (1).
func (c *command) exitStatus(err error) (code int, line string) {
	code = exitCode(err)
	var (
		sig    *interruptedError
		usage  *usageError
		locked *state.LockedError
	)
	switch {
	case err == nil, errors.Is(err, errChanges):
		return code, ""
	case errors.As(err, &sig):
		return code, c.interruptedWords()
	case errors.As(err, &usage):
		return code, fmt.Sprintf("%s\nRun 'betplan %s --help' for usage.", usage.msg, c.name)
	case errors.As(err, &locked):
		return code, c.lockHeld(locked)
	}
	return code, err.Error()
}

// exitCode is the exit code err ends a command with, the one mapping of
// errors to codes; exitStatus adds the line a user reads.
func exitCode(err error) int {
	var (
		sig     *interruptedError
		usage   *usageError
		invalid *invalidError
		locked  *state.LockedError
		refused refusal
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &sig):
		return sig.sig.exitCode()
	case errors.Is(err, errChanges):
		return exitChanges
	case errors.As(err, &usage), errors.As(err, &invalid):
		return exitUsage
	case errors.As(err, &locked):
		return exitRefused
	case errors.As(err, &refused) && refused.Refused():
		return exitRefused
	}
	return exitFailed
}

// lockHeld is what every command says when another run holds the plan's
// lock; the wait it offers is there only for a command that can wait.
func (c *command) lockHeld(locked *state.LockedError) string {
	line := fmt.Sprintf("refused: %v: wait for that run to end and try again", locked)
	if c.waitsForLock {
		line += ", or pass --lock-timeout 30m to wait for it"
	}
	return line
}
