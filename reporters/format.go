package reporters

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/betplan/betplan/engine"
)

// Format is a report format that --format chooses.
type Format string

// The report formats.
const (
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
	FormatJUnit    Format = "junit"
	FormatHTML     Format = "html"
)

// ParseFormat reads a --format value. It also accepts "md" for Markdown and
// "xml" for JUnit, in any case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "text", "txt":
		return FormatText, nil
	case "json":
		return FormatJSON, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	case "junit", "xml":
		return FormatJUnit, nil
	case "html":
		return FormatHTML, nil
	}
	return "", fmt.Errorf("unknown report format %q: want text, json, markdown (md), junit (xml) or html", s)
}

// Write writes r in format f. opts apply to text only.
func Write(w io.Writer, f Format, r *engine.Result, opts TextOptions) error {
	switch f {
	case FormatText, "":
		return WriteText(w, r, opts)
	case FormatJSON:
		return WriteJSON(w, r)
	case FormatMarkdown:
		return WriteMarkdown(w, r)
	case FormatJUnit:
		return WriteJUnit(w, r)
	case FormatHTML:
		return WriteHTML(w, r)
	}
	return fmt.Errorf("unknown report format %q", f)
}

type dirFile struct {
	name  string
	write func(io.Writer, *engine.Result) error
}

func writeTextPlain(w io.Writer, r *engine.Result) error { return WriteText(w, r, TextOptions{}) }

// WriteDir writes the reports for r into dir, creating it (0755), each file
// atomically (a temporary file in dir renamed over the old one), and returns
// their paths. Run and status results get report.json, report.txt,
// report.md, report.xml (JUnit) and report.html; plan previews get
// plan.json, plan.txt and plan.md, so a preview never overwrites the report
// of a real run.
func WriteDir(dir string, r *engine.Result) ([]string, error) {
	files := []dirFile{
		{"report.json", WriteJSON},
		{"report.txt", writeTextPlain},
		{"report.md", WriteMarkdown},
		{"report.xml", WriteJUnit},
		{"report.html", WriteHTML},
	}
	if r.Kind == engine.KindPlan {
		files = []dirFile{
			{"plan.json", WriteJSON},
			{"plan.txt", writeTextPlain},
			{"plan.md", WriteMarkdown},
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create report directory: %w", err)
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := writeFileAtomic(p, func(w io.Writer) error { return f.write(w, r) }); err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// writeFileAtomic writes path through a temporary file in the same directory,
// so a reader sees the old report or the whole new one, never half of it.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// AppendStepSummary appends the Markdown report for r to path, the file
// named by $GITHUB_STEP_SUMMARY, creating it if needed.
func AppendStepSummary(path string, r *engine.Result) error {
	return appendStepSummary(path, func(w io.Writer) error { return WriteMarkdown(w, r) })
}

// appendStepSummary appends what write writes to the step summary file at
// path, creating it if needed.
func appendStepSummary(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open step summary: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write step summary: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write step summary: %w", err)
	}
	return nil
}
