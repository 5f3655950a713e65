package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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

// named is the account file named by --config, else $BETPLAN_CONFIG;
// "" when neither names one (each plan then finds its own).
func (a *accountOptions) named(sys *sysIO) string {
	if a.Config != "" {
		return a.Config
	}
	return sys.Getenv(plan.ConfigEnv)
}

// isAccountFile reports whether path is the account file rather than a
// plan, as discovery sees it: named betplan.yaml, or the file --config
// or $BETPLAN_CONFIG names.
func (a *accountOptions) isAccountFile(sys *sysIO, path string) bool {
	if plan.IsAccountFile(path) {
		return true
	}
	named := a.named(sys)
	return named != "" && sameFile(path, named)
}

// sameFile reports whether a and b name one file, however spelled.
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// accountFile is the account file of the plan at planPath: --config, else
// $BETPLAN_CONFIG, else the one found from the plan's directory. "" when
// there is none.
func (a *accountOptions) accountFile(sys *sysIO, planPath string) (string, error) {
	if named := a.named(sys); named != "" {
		return named, nil
	}
	return plan.FindConfig(planPath)
}

// loadPlan is the plan in path and the account file it is held to
// (nil: none).
func (a *accountOptions) loadPlan(sys *sysIO, path string) (*plan.Plan, *plan.Config, error) {
	p, err := loadPlan(sys, path)
	if err != nil {
		// Every problem at once: the account file's too, not after the
		// plan's are fixed.
		_, _ = a.loadAccount(sys, path)
		return nil, nil, err
	}
	account, err := a.loadAccount(sys, path)
	if err != nil {
		return nil, nil, err
	}
	return p, account, nil
}

// alsoAccounts shows, when the plans did not load, the problems of their
// account files as well, each file once: fixing the plans should not be
// what reveals the next round of errors.
func (a *accountOptions) alsoAccounts(sys *sysIO, files []string, err error) error {
	var invalid *invalidError
	if !errors.As(err, &invalid) {
		return err
	}
	seen := map[string]bool{}
	for _, f := range files {
		path, ferr := a.accountFile(sys, f)
		if ferr != nil || path == "" || seen[path] {
			continue
		}
		seen[path] = true
		_, _ = a.loadAccount(sys, f)
	}
	return err
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

// strayAccountFile is the error of a file that reads as an account file
// (plan.LooksLikeAccountFile) where discovery does not look: its limits
// would hold for no plan, silently.
func strayAccountFile(path string) plan.Diagnostic {
	return plan.Diagnostic{Severity: plan.SeverityError, Filename: filepath.Clean(path), Line: 1, Column: 1,
		Summary: fmt.Sprintf("limits and alerts of this account file hold for no plan: plans find theirs only as %s (in the plan's directory or above it in the repository) or as --config or $%s names it", plan.ConfigFileName, plan.ConfigEnv)}
}
