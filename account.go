package main

import (
	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
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

// groupRuns puts the plans that share an account file with limits and a
// state into one group: their certain bets are held to the account's
// limits together before any of them creates.
func groupRuns(plans []*plan.Plan, opts []engine.Options) {
	byKey := map[string][]int{}
	var keys []string
	for i := range plans {
		a := opts[i].Account
		if a == nil || !a.Limits.Any() {
			continue
		}
		k := a.Filename + "\x00" + opts[i].Store.String()
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	for _, k := range keys {
		names := make([]string, len(byKey[k]))
		for j, i := range byKey[k] {
			names[j] = plans[i].Name
		}
		g := engine.NewRunGroup(names)
		for _, i := range byKey[k] {
			opts[i].RunGroup = g
		}
	}
}
