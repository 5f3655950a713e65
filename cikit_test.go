package main

import (
	"os"
	"path/filepath"
	"regexp"
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
