package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }

// noUpdate runs a test as without -update, however the tests were run.
func noUpdate(t *testing.T) {
	old := *update
	*update = false
	t.Cleanup(func() { *update = old })
}

func TestCheck(t *testing.T) {
	noUpdate(t)
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  string
		want string // in the failure; "" for none
	}{
		{"same", "one\ntwo\n", ""},
		{"a line differs", "one\nTWO\n", "line 2\n got: \"TWO\\n\"\nwant: \"two\\n\""},
		{"longer", "one\ntwo\nthree\n", "got 3 lines, want 2"},
		{"no newline at the end", "one\ntwo", "line 2\n got: \"two\"\nwant: \"two\\n\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, path, []byte(tt.got))
			switch {
			case tt.want == "" && len(r.failed) > 0:
				t.Errorf("Check failed: %v", r.failed)
			case tt.want != "" && len(r.failed) != 1:
				t.Errorf("Check reported %d failures, want 1: %v", len(r.failed), r.failed)
			case tt.want != "" && !strings.Contains(r.failed[0], tt.want):
				t.Errorf("Check said %q, want it to contain %q", r.failed[0], tt.want)
			case tt.want != "" && !strings.Contains(r.failed[0], "`go test ./internal/golden -run '^TestCheck$/^"):
				t.Errorf("Check said %q, want the command that rewrites it", r.failed[0])
			}
		})
	}
}

func TestCheckMissingFile(t *testing.T) {
	noUpdate(t)
	r := &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "none.golden"), []byte("x"))
	if len(r.failed) != 1 || !strings.Contains(r.failed[0], "to create it") {
		t.Errorf("Check of a missing golden said %v, want one failure saying how to create it", r.failed)
	}
}

func TestCheckUpdateWrites(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "new", "out.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("fresh\n"))
	if len(r.failed) > 0 {
		t.Fatalf("Check -update failed: %v", r.failed)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "fresh\n" {
		t.Errorf("golden after -update = %q, %v; want %q", b, err, "fresh\n")
	}
}
