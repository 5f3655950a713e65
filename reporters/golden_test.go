package reporters_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/reporters"
)

const schemaPath = "../schema/report.schema.json"

// goldenCases are every format of both fixtures; a reviewer reads the
// goldens in the diff.
var goldenCases = []struct {
	file   string
	result func() *engine.Result
	format reporters.Format
	opts   reporters.TextOptions
}{
	{"run.json", runResult, reporters.FormatJSON, reporters.TextOptions{}},
	{"run.txt", runResult, reporters.FormatText, reporters.TextOptions{}},
	{"run-color.txt", runResult, reporters.FormatText, reporters.TextOptions{Color: true}},
	{"run-narrow.txt", runResult, reporters.FormatText, reporters.TextOptions{Width: 72}},
	{"run.md", runResult, reporters.FormatMarkdown, reporters.TextOptions{}},
	{"run.xml", runResult, reporters.FormatJUnit, reporters.TextOptions{}},
	{"run.html", runResult, reporters.FormatHTML, reporters.TextOptions{}},
	{"plan.json", planResult, reporters.FormatJSON, reporters.TextOptions{}},
	{"plan.txt", planResult, reporters.FormatText, reporters.TextOptions{}},
	{"plan.md", planResult, reporters.FormatMarkdown, reporters.TextOptions{}},
	{"plan.xml", planResult, reporters.FormatJUnit, reporters.TextOptions{}},
	{"plan.html", planResult, reporters.FormatHTML, reporters.TextOptions{}},
	{"empty.txt", emptyResult, reporters.FormatText, reporters.TextOptions{}},
	{"empty.md", emptyResult, reporters.FormatMarkdown, reporters.TextOptions{}},
	{"tips.json", tipsResult, reporters.FormatJSON, reporters.TextOptions{}},
	{"tips.txt", tipsResult, reporters.FormatText, reporters.TextOptions{}},
	{"tips.md", tipsResult, reporters.FormatMarkdown, reporters.TextOptions{}},
	{"tips.xml", tipsResult, reporters.FormatJUnit, reporters.TextOptions{}},
	{"tips.html", tipsResult, reporters.FormatHTML, reporters.TextOptions{}},
	{"tips-plan.txt", tipsPlanResult, reporters.FormatText, reporters.TextOptions{}},
	{"tips-plan.json", tipsPlanResult, reporters.FormatJSON, reporters.TextOptions{}},
}

func emptyResult() *engine.Result {
	return &engine.Result{Kind: engine.KindStatus, PlanName: "empty", StartedAt: t0, FinishedAt: at(1), EndReason: "completed"}
}

func render(t testing.TB, f reporters.Format, r *engine.Result, opts reporters.TextOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := reporters.Write(&buf, f, r, opts); err != nil {
		t.Fatalf("write %s: %v", f, err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	for _, tt := range goldenCases {
		t.Run(tt.file, func(t *testing.T) {
			got := render(t, tt.format, tt.result(), tt.opts)
			golden.Check(t, filepath.Join("testdata", tt.file+".golden"), got)
		})
	}
}

// Rendering must not change the result it reads.
func TestWriteLeavesResultAlone(t *testing.T) {
	r := runResult()
	r.Totals = engine.Totals{} // as a caller that never computed them
	for _, f := range []reporters.Format{reporters.FormatJSON, reporters.FormatText, reporters.FormatMarkdown, reporters.FormatJUnit, reporters.FormatHTML} {
		render(t, f, r, reporters.TextOptions{})
	}
	if r.Totals.ByStatus != nil || r.Totals.Bets != 0 {
		t.Errorf("writing reports changed the result's totals: %+v", r.Totals)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want reporters.Format
	}{
		{"text", reporters.FormatText},
		{"json", reporters.FormatJSON},
		{"markdown", reporters.FormatMarkdown},
		{"md", reporters.FormatMarkdown},
		{"junit", reporters.FormatJUnit},
		{"XML", reporters.FormatJUnit},
		{"html", reporters.FormatHTML},
	}
	for _, tt := range tests {
		got, err := reporters.ParseFormat(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := reporters.ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat(\"yaml\") succeeded, want an error")
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	paths, err := reporters.WriteDir(dir, runResult())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"report.json", "report.txt", "report.md", "report.xml", "report.html"}
	checkDir(t, dir, paths, want)
	for _, p := range paths {
		got, _ := os.ReadFile(p)
		want, _ := os.ReadFile(filepath.Join("testdata", "run"+filepath.Ext(p)+".golden"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its golden file", p)
		}
	}

	// A preview sits beside the run's report without touching it.
	paths, err = reporters.WriteDir(dir, planResult())
	if err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, paths, []string{"plan.json", "plan.txt", "plan.md"})
	entries, _ := os.ReadDir(dir)
	if len(entries) != 8 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("report directory holds %v, want the 5 report files and 3 plan files, no temporary files", names)
	}
}

func checkDir(t *testing.T, dir string, paths, want []string) {
	t.Helper()
	if len(paths) != len(want) {
		t.Fatalf("WriteDir returned %v, want %v", paths, want)
	}
	for i, p := range paths {
		if p != filepath.Join(dir, want[i]) {
			t.Errorf("path %d = %s, want %s", i, p, filepath.Join(dir, want[i]))
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() == 0 || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: size %d, mode %v; want content and 0644", p, fi.Size(), fi.Mode().Perm())
		}
	}
}

func TestAppendStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(path, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reporters.AppendStepSummary(path, runResult()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := append([]byte("earlier step\n"), render(t, reporters.FormatMarkdown, runResult(), reporters.TextOptions{})...)
	if !bytes.Equal(got, want) {
		t.Errorf("step summary = %q..., want the earlier content followed by the Markdown report", got[:min(len(got), 80)])
	}
}
