package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// planArgs expands the plan arguments of run, plan, status, cancel and
// stop as validate does (a directory to its plan files, a glob to its
// matches), leaving the account file out (by its name, or as --config or
// $BETPLAN_CONFIG names it) and each plan once.
func (a *accountOptions) planArgs(sys *sysIO, args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, usagef("missing the plan file")
	}
	files, err := planFiles(args)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if a.isAccountFile(sys, f) {
			if slices.Contains(args, f) {
				return nil, usagef("%s is the account file, not a plan", f)
			}
			continue
		}
		key := filepath.Clean(f)
		if abs, err := filepath.Abs(f); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no plan files in %v (%s is the account file, not a plan)", args, plan.ConfigFileName)
	}
	return out, nil
}

// planFiles expands validate's arguments: a file as given, a directory to
// the .yaml and .yml files under it (hidden files and folders such as
// .betplan, .github and .gitlab-ci.yml, and other tools' files such as
// action.yml or compose.yaml (notPlans), skipped: they are not plans), and
// a glob the shell did not expand to its matches. Something that names no
// plan file is a usage error.
func planFiles(args []string) ([]string, error) {
	var files []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		switch {
		case err == nil && info.IsDir():
			found, accounts, err := filesUnder(arg)
			if err != nil {
				return nil, err
			}
			if len(found) == 0 {
				return nil, usagef("no plan files (.yaml, .yml) under %s", arg)
			}
			files = append(files, found...)
			files = append(files, accounts...)
		case err != nil && strings.ContainsAny(arg, "*?["):
			matches, gerr := filepath.Glob(arg)
			if gerr != nil {
				return nil, usagef("bad pattern %q: %v", arg, gerr)
			}
			if len(matches) == 0 {
				return nil, usagef("no files match %s", arg)
			}
			files = append(files, matches...)
		default:
			files = append(files, arg) // a missing file is reported by Load
		}
	}
	return files, nil
}

// notPlans are the names other tools give their YAML files, which a
// folder of plans often holds beside them: GitHub Actions' action.yml,
// Compose's file (betplan serve's replicas) and Prometheus's config
// (its scrape of serve). None is a plan.
var notPlans = map[string]bool{
	"action.yml": true, "action.yaml": true,
	"compose.yaml": true, "compose.yml": true, "docker-compose.yaml": true, "docker-compose.yml": true,
	"prometheus.yml": true, "prometheus.yaml": true,
}

// filesUnder lists the plan files under dir, and apart the account files
// (plan.IsAccountFile).
func filesUnder(dir string) (plans, accounts []string, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || notPlans[d.Name()] {
			return nil
		}
		switch ext := filepath.Ext(path); {
		case plan.IsAccountFile(path):
			accounts = append(accounts, path)
		case ext == ".yaml" || ext == ".yml":
			plans = append(plans, path)
		}
		return nil
	})
	return plans, accounts, err
}

// loadPlans loads and validates every plan before anything is done with
// any: each problem is printed at its file:line:col, and one invalid plan
// stops them all. Two plans may not share a name: a plan's name keys its
// journal, lock and reports.
func loadPlans(sys *sysIO, files []string) ([]*plan.Plan, error) {
	plans := make([]*plan.Plan, len(files))
	bad := 0
	var warnings plan.Diagnostics
	for i, path := range files {
		if _, isSaved, err := engine.ReadSavedPlan(path); err == nil && isSaved {
			return nil, usagef("%s is a saved plan: apply it alone (betplan run %s)", path, path)
		}
		p, data, diags := plan.LoadSource(path)
		if p == nil && plan.LooksLikeAccountFile(data) {
			diags = plan.Diagnostics{strayAccountFile(path)}
		}
		if diags.HasErrors() {
			plan.WriteText(sys.Stderr, diags, map[string][]byte{path: data})
		} else {
			warnings = append(warnings, diags...)
		}
		if diags.HasErrors() || p == nil {
			bad++
			continue
		}
		plans[i] = p
	}
	// The plans of a directory often share a warning: once, with its places.
	plan.WriteWarningsBrief(sys.Stderr, warnings)
	if bad > 0 {
		return nil, invalidf("%s of %d not valid: no plan was run", count(bad, "plan"), len(files))
	}
	byName := map[string]string{}
	for i, p := range plans {
		if other, ok := byName[p.Name]; ok {
			return nil, invalidf("%s and %s are both named %q: each plan needs its own name (it keys the plan's journal, lock and reports)", other, files[i], p.Name)
		}
		byName[p.Name] = files[i]
	}
	return plans, nil
}

// loadPlan loads and validates a plan; any error stops before a request.
func loadPlan(sys *sysIO, path string) (*plan.Plan, error) {
	p, data, diags := plan.LoadSource(path)
	writePlanDiags(sys, diags, map[string][]byte{path: data})
	if diags.HasErrors() || p == nil {
		return nil, invalidf("%s is not a valid plan: %s", path, count(diags.Errors(), "error"))
	}
	return p, nil
}

// writePlanDiags shows what loading plans found, for a command that acts
// on them: errors with their source lines, and warnings (when there is no
// error) one line each, with their places: validate shows them in full.
func writePlanDiags(sys *sysIO, diags plan.Diagnostics, src map[string][]byte) {
	if diags.HasErrors() {
		plan.WriteText(sys.Stderr, diags, src)
		return
	}
	plan.WriteWarningsBrief(sys.Stderr, diags)
}

func onePlanArg(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", usagef("missing the plan file")
	case 1:
		return args[0], nil
	}
	return "", usagef("expected one plan file, got %d arguments: %s", len(args), strings.Join(args, " "))
}

// relativeTo names target relative to the directory of file.
func relativeTo(file, target string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	return filepath.Rel(dir, abs)
}

// count says "1 error" or "3 errors".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
