// Package golden compares what a test produced with a file a reviewer
// reads in a diff (gofmt's testdata/*.golden), and rewrites the file when
// the tests run with -update. Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and committed schemas with what the tests produce")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check fails t unless got is byte for byte the file at path. With -update
// it writes got there instead (making its directory), so the change shows
// in git diff for review.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run %s to create it)", err, rerun(t))
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test produced (if the change is intended, run %s and review the diff): %s",
			path, rerun(t), firstDifference(got, want))
	}
}

// firstDifference says where got first departs from want, by line.
func firstDifference(got, want []byte) string {
	gl, wl := lines(got), lines(want)
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d\n got: %q\nwant: %q", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(gl), len(wl))
}

// lines splits b after each newline; the last line may lack one.
func lines(b []byte) []string {
	l := strings.SplitAfter(string(b), "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

// rerun is the command that rewrites the goldens of t alone. The package
// is the one of Check's caller (a test may run from another directory:
// the commands' tests run from the repository's root).
func rerun(t testing.TB) string {
	pkg := "."
	dir, err := os.Getwd()
	if _, file, _, ok := runtime.Caller(2); ok && filepath.IsAbs(file) {
		dir, err = filepath.Dir(file), nil
	}
	if err == nil {
		for root := dir; ; root = filepath.Dir(root) {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				if rel, err := filepath.Rel(root, dir); err == nil && rel != "." {
					pkg = "./" + filepath.ToSlash(rel)
				}
				break
			}
			if filepath.Dir(root) == root {
				break
			}
		}
	}
	return fmt.Sprintf("`go test %s -run '^%s$' -update`", pkg, strings.ReplaceAll(t.Name(), "/", "$/^"))
}
