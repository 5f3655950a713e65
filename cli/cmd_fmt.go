package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/pflag"

	"github.com/betplan/betplan/plan"
)

// fmtOptions are the flags of `betplan fmt`.
type fmtOptions struct {
	Check   bool
	Write   bool
	account accountOptions
}

func fmtCommand() *command {
	return &command{
		name:    "fmt",
		args:    "[--check] [-w] PLAN|DIR|GLOB...",
		summary: "lay plans (and the account file, betplan.yaml) out the one canonical way, keeping comments",
		exits: []exitDoc{
			{exitOK, "formatted (with --check: every file is already formatted)"},
			{exitFailed, "--check: a file would change (its unified diff is printed); -w: a file could not be written"},
			{exitUsage, "usage error, or an invalid plan (left untouched, its errors printed)"},
		},
		examples: `  betplan fmt -w plans/*.yaml
  # every plan under the repository and its betplan.yaml, as validate finds them
  betplan fmt --check .
`,
		setup: bindTo((*fmtOptions).bind, formatPlans),
	}
}

func (o *fmtOptions) bind(fs *pflag.FlagSet) {
	fs.BoolVar(&o.Check, "check", false, "change nothing: print a unified diff of what would change and exit 1 if anything would")
	fs.BoolVarP(&o.Write, "write", "w", false, "rewrite the files in place (atomically)")
	o.account.bind(fs)
}

func (o *fmtOptions) validate() error {
	if o.Check && o.Write {
		return usagef("--check and -w exclude each other: --check changes nothing")
	}
	return nil
}

// formatPlans is `betplan fmt`. It takes plans as validate does: a
// directory stands for the plans and account files under it, a quoted
// glob for its matches. Without flags the formatted plans go to stdout.
// An invalid plan is never touched: its errors are printed and the exit
// code is 2, whatever else happened.
func formatPlans(_ context.Context, sys *sysIO, o *fmtOptions, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan files to format")
	}
	files, err := planFiles(args)
	if err != nil {
		return err
	}
	var invalid, changed int
	noun := "plan" // "file" once an account file is among them, as validate says
	seen := map[string]bool{}
	for _, path := range files {
		// A file named twice (a directory and a plan under it) is
		// formatted, or its diff shown, once.
		key := filepath.Clean(path)
		if abs, err := filepath.Abs(path); err == nil {
			key = abs
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		src, err := plan.ReadFile(path)
		if err != nil {
			fmt.Fprintf(sys.Stderr, "%s: cannot read the plan: %s\n", path, strings.TrimPrefix(err.Error(), path+": "))
			invalid++
			continue
		}
		// The account file as discovery knows it (by its name, or as
		// --config or $BETPLAN_CONFIG names it), or by what it holds.
		format := plan.Format
		if o.account.isAccountFile(sys, path) || plan.LooksLikeAccountFile(src) {
			format = plan.FormatConfig
			noun = "file"
		}
		out, diags := format(path, src)
		if diags.HasErrors() {
			plan.WriteText(sys.Stderr, diags, map[string][]byte{path: src})
			invalid++
			continue
		}
		same := bytes.Equal(src, out)
		if !same {
			changed++
		}
		switch {
		case o.Check:
			if !same {
				fmt.Fprint(sys.Stdout, udiff.Unified(path, path+" (formatted)", string(src), string(out)))
			}
		case o.Write:
			if !same {
				if err := writeAtomically(path, out); err != nil {
					return err
				}
				fmt.Fprintln(sys.Stderr, path)
			}
		default:
			if _, err := sys.Stdout.Write(out); err != nil {
				return err
			}
		}
	}
	if invalid > 0 {
		return invalidf("%s not formatted: %s", count(invalid, noun), "invalid")
	}
	if o.Check && changed > 0 {
		return fmt.Errorf("%s not formatted: run betplan fmt -w", count(changed, noun))
	}
	return nil
}

// writeAtomically replaces path with data through a temporary file in the
// same directory and a rename, keeping the file's mode: a crash leaves
// the old plan or the new one, never half of either.
func writeAtomically(path string, data []byte) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
