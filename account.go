package main

import (
	"github.com/spf13/pflag"

	"github.com/betplan/betplan/plan"
)

// accountOptions name the account file (betplan.yaml): its limits hold
// for every plan of the account together. Every command that reads plans
// finds it the one way, accountFile.
type accountOptions struct {
	Config string
}

func (a *accountOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&a.Config, "config", "", "the account file with the limits every plan shares (default $"+plan.ConfigEnv+", else "+plan.ConfigFileName+" in the plan's directory or above it, up to the repository root)")
}

// accountFile is the account file of the plan at planPath: --config, else
// $BETPLAN_CONFIG, else the one found from the plan's directory. "" when
// there is none.
func (a *accountOptions) accountFile(sys *sysIO, planPath string) (string, error) {
	if a.Config != "" {
		return a.Config, nil
	}
	if env := sys.Getenv(plan.ConfigEnv); env != "" {
		return env, nil
	}
	return plan.FindConfig(planPath)
}

// loadPlan is the plan in path and the account file it is held to
// (nil: none).
func (a *accountOptions) loadPlan(sys *sysIO, path string) (*plan.Plan, *plan.Config, error) {
	p, err := loadPlan(sys, path)
	if err != nil {
		return nil, nil, err
	}
	account, err := a.loadAccount(sys, path)
	if err != nil {
		return nil, nil, err
	}
	return p, account, nil
}

// loadAccount reads and checks the account file of the plan at planPath;
// nil when there is none. An invalid account file stops the command
// before any request, as an invalid plan does.
func (a *accountOptions) loadAccount(sys *sysIO, planPath string) (*plan.Config, error) {
	path, err := a.accountFile(sys, planPath)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, nil
	}
	c, data, diags := plan.LoadConfig(path)
	if len(diags) > 0 {
		plan.WriteText(sys.Stderr, diags, map[string][]byte{path: data})
	}
	if diags.HasErrors() || c == nil {
		return nil, invalidf("%s is not a valid account file: %s", path, count(diags.Errors(), "error"))
	}
	return c, nil
}
