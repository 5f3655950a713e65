package docgen_test

import (
	"os"
	"testing"

	"github.com/betplan/betplan/internal/docgen"
)

// The checked-in documentation holds every generated region exactly as
// the Go values give it: run `go generate ./...` after changing them.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range docgen.Files {
		src, err := os.ReadFile("../../" + f)
		if err != nil {
			t.Fatal(err)
		}
		out, found, err := docgen.Apply(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, n := range found {
			seen[n] = true
		}
		if string(out) != string(src) {
			t.Errorf("%s: a generated region drifted from its Go values: run `go generate ./...`", f)
		}
	}
	for name := range docgen.Regions() {
		if !seen[name] {
			t.Errorf("no file holds the generated region %q", name)
		}
	}
}
