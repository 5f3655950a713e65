package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// unlockOptions are the flags of `betplan unlock`.
type unlockOptions struct {
	Force   bool
	state   stateOptions
	service serviceOptions
}

func unlockCommand() *command {
	return &command{
		name:    "unlock",
		args:    "PLAN",
		summary: "remove a stale lock left by a run of the plan, showing its owner",
		exits: []exitDoc{
			{exitOK, "the lock was removed"},
			{exitFailed, "there was no lock to remove"},
			{exitUsage, "usage error or invalid plan"},
			{exitRefused, "the lock is held by a live run (use --force only if you know it is gone)"},
		},
		examples: `  betplan unlock plans/saturday.yaml
`,
		setup: bindTo((*unlockOptions).bind, unlockPlan),
	}
}

func (o *unlockOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Force, "force", false, "remove the lock even while a live process holds it (a shared state's holder is fenced off and its session ended)")
	fs.StringVar(&o.service.BaseURL, "base-url", "", "service base URL the lock is for (default $BETPLAN_BASE_URL)")
	o.state.bindShared(fs)
	fs.BoolVar(&o.service.Insecure, "insecure", false, "allow a --state with sslmode=disable that is not loopback")
}

// unlockPlan is `betplan unlock PLAN`.
func unlockPlan(ctx context.Context, sys *sysIO, o *unlockOptions, args []string) error {
	path, err := onePlanArg(args)
	if err != nil {
		return err
	}
	p, err := loadPlan(sys, path)
	if err != nil {
		return err
	}
	opts, err := stateOnly(sys, &o.service, o.state, path)
	if err != nil {
		return err
	}
	// The local lock file, or the shared state's lock: which one an
	// operator clears is the one question unlock asks of the state.
	shared, err := o.state.sharedStore(sys, o.service.Insecure)
	if err != nil {
		return err
	}
	base := opts.BaseURL
	key := state.PlanKey{Name: p.Name, BaseURL: base}
	if shared == nil {
		lockPath := opts.State.LockPath(p.Name, base)
		owner, err := local.Unlock(lockPath, o.Force)
		if err != nil {
			return unlockError(err)
		}
		fmt.Fprintf(sys.Stdout, "removed lock %s (last held by %s)\n", lockPath, owner)
		return nil
	}
	owner, err := shared.Unlock(ctx, key, o.Force)
	if err != nil {
		return unlockError(err)
	}
	fmt.Fprintf(sys.Stdout, "fenced off and stopped the run holding the lock of plan %s on %s in %s: %s\n", p.Name, base, shared, owner)
	return nil
}

func unlockError(err error) error {
	var le *state.LockedError
	if errors.As(err, &le) {
		// Not the held-lock refusal of the other commands: unlock does
		// not wait, it removes.
		return refusef("%v; it is live: stop that run, or pass --force", err)
	}
	return err
}
