package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// ciFiles are the CI kit's files: each must parse as YAML and use only
// commands and flags betplan really has, so the kit cannot rot silently
// when a flag is renamed.
func ciFiles(t *testing.T) []string {
	t.Helper()
	files := []string{".pre-commit-hooks.yaml"}
	for _, g := range []string{"examples/ci/.github/workflows/*.yml", "examples/ci/.gitlab-ci.yml"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("want the pre-commit hooks, two workflows and the GitLab file, got %v", files)
	}
	return files
}

var betplanCall = regexp.MustCompile(`\bbetplan ([a-z]+)((?: +(?:--?[a-z][a-z-]*|"[^"]*"|[^\s|;&>"]+))*)`)

func TestCIKitUsesRealCommandsAndFlags(t *testing.T) {
	cmds := map[string]*pflag.FlagSet{}
	for _, c := range commands() {
		fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
		c.setup(fs)
		cmds[c.name] = fs
	}
	for _, f := range ciFiles(t) {
		t.Run(f, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := yaml.Unmarshal(src, &doc); err != nil {
				t.Fatalf("not YAML: %v", err)
			}
			calls := 0
			for _, line := range strings.Split(string(src), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "#") {
					continue
				}
				for _, m := range betplanCall.FindAllStringSubmatch(line, -1) {
					if m[1] == "validate" && strings.Contains(line, "name:") {
						continue // a step's name, not a call
					}
					fs, ok := cmds[m[1]]
					if !ok {
						if strings.Contains(line, "name:") || strings.Contains(line, "group:") {
							continue
						}
						t.Errorf("%q: betplan has no command %q", strings.TrimSpace(line), m[1])
						continue
					}
					calls++
					for _, arg := range strings.Fields(m[2]) {
						if !strings.HasPrefix(arg, "-") {
							continue
						}
						name := strings.TrimLeft(arg, "-")
						name, _, _ = strings.Cut(name, "=")
						if strings.HasPrefix(arg, "--") && fs.Lookup(name) == nil || !strings.HasPrefix(arg, "--") && fs.ShorthandLookup(name) == nil {
							t.Errorf("%q: betplan %s has no flag %s", strings.TrimSpace(line), m[1], arg)
						}
					}
				}
			}
			if calls == 0 {
				t.Error("no betplan calls found: is the pattern still right?")
			}
		})
	}
}

// program finds a program a test runs, or skips saying what goes
// untested; under CI=true, where .ci/setup installs what the tests use,
// its absence fails.
func program(t *testing.T, name, untested string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed: %s", name, untested)
	}
	t.Skipf("%s is not installed (apt-get install -y %s): %s", name, name, untested)
	return ""
}

// ciPlan is a small valid plan in betplan's layout, on a race of venue.
func ciPlan(name, venue string, stake int) string {
	return fmt.Sprintf(`version: 1
name: %s
description: The %s plan of the CI kit's review.
limits:
  max_stake_per_bet: 50
  max_total_stake: 100
  max_bets: 2
defaults:
  type: Fixed Wager
  market: Fixed Win
bets:
  - id: %s-%s
    race: {venue: %s, code: Galloping, event_number: %d}
    selection: "%d"
    stake: %d
`, name, name, name, strings.ReplaceAll(strings.ToLower(venue), " ", "-"), venue, len(name), len(venue), stake)
}

func ciAccount(maxLoss int) string {
	return fmt.Sprintf("version: 1\nlimits:\n  period: day\n  max_loss: %d\n", maxLoss)
}

// ciKitEnv is the environment a CI job of the kit runs in here: the real
// binary (this test binary in main mode) on PATH as betplan, git with no
// configuration but an author, and a home of its own.
func ciKitEnv(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, home := t.TempDir(), t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "betplan")); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "BETPLAN_") && !strings.HasPrefix(k, "GIT_") && !strings.HasPrefix(k, "GITHUB_") && !strings.HasPrefix(k, "CI_") && k != "PATH" && k != "HOME" {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home,
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10", "NO_COLOR=1",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// ciKitPullRequest makes a repository whose main branch holds base and
// whose branch "change" changes it (a file's new text; "" deletes it,
// and renames maps a file to its new name), pushes both to a bare origin
// and returns a clone with the branch checked out, as CI checks it out.
func ciKitPullRequest(t *testing.T, env []string, base, change, renames map[string]string) string {
	t.Helper()
	git := program(t, "git", "the CI kit is not tested")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(dir string, files map[string]string) {
		t.Helper()
		for name, text := range files {
			path := filepath.Join(dir, filepath.FromSlash(name))
			if text == "" {
				run(dir, "rm", "-q", name)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	origin, work, clone := filepath.Join(dir, "origin.git"), filepath.Join(dir, "work"), filepath.Join(dir, "clone")
	run(dir, "init", "-q", "--bare", "-b", "main", origin)
	run(dir, "init", "-q", "-b", "main", work)
	write(work, base)
	run(work, "add", "-A")
	run(work, "commit", "-q", "-m", "base")
	run(work, "checkout", "-q", "-b", "change")
	for from, to := range renames {
		run(work, "mv", from, to)
	}
	write(work, change)
	run(work, "add", "-A")
	run(work, "commit", "-q", "-m", "change")
	run(work, "push", "-q", origin, "main", "change")
	run(dir, "clone", "-q", origin, clone)
	run(clone, "checkout", "-q", "change")
	return clone
}

// ciKitJob runs the review job of one CI file in dir as its CI would, from
// the file itself: the GitHub workflow's steps (the step's own env, with
// the base branch main for github.base_ref) each in bash as the runner
// does; the GitLab job's script lines in one sh -e. It stops at the
// first step that fails, and says which.
type ciKitJob func(t *testing.T, dir string, env []string) (failed, output string)

func githubReview(steps ...string) ciKitJob {
	return func(t *testing.T, dir string, env []string) (string, string) {
		t.Helper()
		bash := program(t, "bash", "the GitHub workflow is not run")
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Name  string            `yaml:"name"`
					Shell string            `yaml:"shell"`
					Env   map[string]string `yaml:"env"`
					Run   string            `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		src, err := os.ReadFile("examples/ci/.github/workflows/betplan-pr.yml")
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(src, &wf); err != nil {
			t.Fatal(err)
		}
		summary := filepath.Join(t.TempDir(), "step_summary")
		var out strings.Builder
		for _, name := range steps {
			found := false
			for _, s := range wf.Jobs["review"].Steps {
				if s.Name != name {
					continue
				}
				found = true
				if s.Shell != "" || strings.Contains(s.Run, "${{") {
					t.Fatalf("step %q: a shell or an expression in run this test does not know", name)
				}
				stepEnv := append(slices.Clone(env), "GITHUB_STEP_SUMMARY="+summary)
				for k, v := range s.Env {
					v = strings.ReplaceAll(v, "${{ github.base_ref }}", "main")
					if strings.Contains(v, "${{") {
						t.Fatalf("step %q: env %s=%s has an expression this test does not know", name, k, v)
					}
					stepEnv = append(stepEnv, k+"="+v)
				}
				cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
				cmd.Dir, cmd.Env = dir, stepEnv
				b, err := cmd.CombinedOutput()
				out.Write(b)
				if err != nil {
					return name, out.String()
				}
			}
			if !found {
				t.Fatalf("the workflow's review job has no step %q", name)
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, "diff.md")); err == nil {
			if s, _ := os.ReadFile(summary); !bytes.Contains(s, b) {
				t.Errorf("the job summary does not hold diff.md:\n%s", s)
			}
		}
		return "", out.String()
	}
}

func gitlabReview(t *testing.T, dir string, env []string) (string, string) {
	t.Helper()
	sh := program(t, "sh", "the GitLab job is not run")
	var ci struct {
		Review struct {
			Script []string `yaml:"script"`
		} `yaml:"review"`
	}
	src, err := os.ReadFile("examples/ci/.gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(src, &ci); err != nil {
		t.Fatal(err)
	}
	script := ci.Review.Script
	if len(script) == 0 {
		t.Fatal(".gitlab-ci.yml has no review job with a script")
	}
	cmd := exec.Command(sh, "-e", "-c", strings.Join(script, "\n"))
	cmd.Dir, cmd.Env = dir, append(slices.Clone(env), "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main")
	b, err := cmd.CombinedOutput()
	if err != nil {
		return "review", string(b)
	}
	return "", string(b)
}

// reviewedFiles splits the review's diff.md into what it says of each
// file, by its heading.
func reviewedFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "diff.md"))
	if err != nil {
		t.Fatalf("the review wrote no diff.md: %v", err)
	}
	files := map[string]string{}
	for _, part := range strings.Split(string(b), "### betplan diff `")[1:] {
		name, body, _ := strings.Cut(part, "`")
		if _, dup := files[name]; dup {
			t.Errorf("diff.md reviews %s twice", name)
		}
		files[name] = body
	}
	return files
}

// TestCIKitReviewsEveryChangedPlan: the review job of the GitHub workflow
// and of the GitLab file, run from the files themselves in a clone of a
// repository with a pull request, reviews every plan and account file
// the pull request touches: a changed plan, a new one, a renamed one
// (diffed against what it was), a deleted one, a .yml plan in a
// sub-folder and the account file betplan.yaml; an untouched plan and a
// file that is no plan are not. Every plan is validated and checked for
// layout, a .yml plan in a sub-folder too.
func TestCIKitReviewsEveryChangedPlan(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		"betplan.yaml":              ciAccount(30),
		"plans/card.yaml":           ciPlan("card", "Flemington", 5),
		"plans/same.yaml":           ciPlan("same", "Caulfield", 5),
		"plans/old-name.yaml":       ciPlan("moved", "Randwick", 5),
		"plans/gone.yaml":           ciPlan("gone", "Eagle Farm", 5),
		"plans/greyhounds/dogs.yml": ciPlan("dogs", "Rosehill", 5),
		"notes.txt":                 "notes\n",
	}
	renames := map[string]string{"plans/old-name.yaml": "plans/new-name.yaml"}
	change := map[string]string{
		"betplan.yaml":              ciAccount(300),
		"plans/card.yaml":           ciPlan("card", "Flemington", 10),
		"plans/new-name.yaml":       ciPlan("moved", "Randwick", 6),
		"plans/gone.yaml":           "",
		"plans/fresh.yaml":          ciPlan("fresh", "Morphettville", 5),
		"plans/greyhounds/dogs.yml": ciPlan("dogs", "Rosehill", 7),
		"notes.txt":                 "more notes\n",
	}
	kits := []struct {
		name string
		job  ciKitJob
	}{
		{"github", githubReview("Validate", "Layout", "Semantic diff")},
		{"gitlab", gitlabReview},
	}
	for _, kit := range kits {
		t.Run(kit.name, func(t *testing.T) {
			t.Parallel()
			env := ciKitEnv(t)
			dir := ciKitPullRequest(t, env, base, change, renames)
			failed, out := kit.job(t, dir, env)
			if failed != "" {
				t.Fatalf("step %q failed:\n%s", failed, out)
			}
			got := reviewedFiles(t, dir)
			want := map[string][]string{
				"betplan.yaml":              {"account limit loosened", "`limits.max_loss` | `30` | `300`"},
				"plans/card.yaml":           {"`stake`: `5` → `10`"},
				"plans/new-name.yaml":       {"`stake`: `5` → `6`", "Renamed from `plans/old-name.yaml`."},
				"plans/gone.yaml":           {"Deleted"},
				"plans/fresh.yaml":          {"Added"},
				"plans/greyhounds/dogs.yml": {"`stake`: `5` → `7`"},
			}
			for name, says := range want {
				body, ok := got[name]
				if !ok {
					t.Errorf("%s is not reviewed", name)
					continue
				}
				for _, s := range says {
					if !strings.Contains(body, s) {
						t.Errorf("the review of %s does not say %q:\n%s", name, s, body)
					}
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("%s is reviewed, but the pull request does not touch it as a plan", name)
				}
			}
		})
		// A .yml plan in a sub-folder is checked like any other: its errors
		// and its layout fail the review.
		for _, tt := range []struct{ name, text, step, says string }{
			{"invalid", strings.Replace(ciPlan("dogs", "Rosehill", 7), "stake: 7", "stake: ten", 1), "Validate", `"ten" is neither`},
			{"out of layout", strings.ReplaceAll(ciPlan("dogs", "Rosehill", 7), "\n  ", "\n    "), "Layout", "+++ plans/greyhounds/dogs.yml (formatted)"},
		} {
			t.Run(kit.name+"/"+tt.name+" .yml in a sub-folder", func(t *testing.T) {
				t.Parallel()
				env := ciKitEnv(t)
				dir := ciKitPullRequest(t, env, base, map[string]string{"plans/greyhounds/dogs.yml": tt.text}, nil)
				failed, out := kit.job(t, dir, env)
				if want := map[string]string{"github": tt.step, "gitlab": "review"}[kit.name]; failed != want {
					t.Errorf("failed at step %q, want %q:\n%s", failed, want, out)
				}
				if !strings.Contains(out, "plans/greyhounds/dogs.yml") || !strings.Contains(out, tt.says) {
					t.Errorf("the output does not say %q of plans/greyhounds/dogs.yml:\n%s", tt.says, out)
				}
			})
		}
	}
}
