package cli

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
)

func TestExitStatus(t *testing.T) {
	locked := &state.LockedError{Where: "/x.lock", Owner: state.LockOwner{PID: 7}}
	tests := []struct {
		name    string
		command string
		err     error
		code    int
		line    string
	}{
		{"success", "run", nil, exitOK, ""},
		{"usage", "run", usagef("missing the plan file"), exitUsage, "missing the plan file\nRun 'betplan run --help' for usage."},
		{"invalid plan", "status", invalidf("p.yaml is not a valid plan: 1 error"), exitUsage, "p.yaml is not a valid plan: 1 error"},
		{"changes", "plan", errChanges, exitChanges, ""},
		{"failure", "status", errors.New("finished with 1 failed"), exitFailed, "finished with 1 failed"},
		{"engine refusal", "run", &engine.RefusedError{Reason: "limit"}, exitRefused, "refused: limit"},
		{"wrapped state refusal", "stop", fmt.Errorf("plan p: %w", &state.StateUnavailableError{Store: "db", Err: errors.New("down")}), exitRefused, "plan p: the shared state db: down"},
		{"lost lock", "run", &state.LockLostError{Reason: "fenced"}, exitRefused, "lost the plan's lock: fenced"},
		{"command refusal", "cancel", refusef("refused: no"), exitRefused, "refused: no"},
		// One message for a held lock; only a command that can wait for
		// it offers the wait.
		{"lock held, run", "run", locked, exitRefused, "refused: " + locked.Error() + ": wait for that run to end and try again, or pass --lock-timeout 30m to wait for it"},
		{"lock held, status", "status", locked, exitRefused, "refused: " + locked.Error() + ": wait for that run to end and try again"},
		{"worst of several: a refusal", "stop", joinFailures([]error{errors.New("a failed"), refusef("b refused")}), exitRefused, "a failed; b refused"},
		{"worst of several: failures", "stop", joinFailures([]error{errors.New("a failed"), errors.New("b failed")}), exitFailed, "a failed; b failed"},
		{"interrupted run", "run", &interruptedError{sig: &interruption{sig: syscall.SIGINT}, cause: errors.New("x")}, 130, "interrupted: re-run to resume; nothing will be created twice"},
		{"terminated status", "status", &interruptedError{sig: &interruption{sig: syscall.SIGTERM}, cause: errors.New("x")}, 143, "interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, line := findCommand(tt.command).exitStatus(tt.err)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.line, line)
		})
	}
}

// A refusal for a held lock offers --lock-timeout only where the command
// has it: waitsForLock says so without reading the flags back.
func TestWaitsForLockHasTheFlag(t *testing.T) {
	for _, c := range commands() {
		fs, _ := newFlagSet(c)
		assert.Equal(t, fs.Lookup("lock-timeout") != nil, c.waitsForLock, "betplan %s", c.name)
	}
}
