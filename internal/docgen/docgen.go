// Package docgen writes the parts of the documentation that are made from
// Go values, so they are written once: the command reference in
// docs/commands/ (each command's usage, flags, examples and exit codes),
// the exit-code and environment tables, the alert events (plan's one list),
// the reasons a bet was not created or placed (package reason), the limit
// kinds (package limit), the expression reference (plan's help text) and
// the history view's SQL (package history).
//
// A region of a Markdown file between
//
//	<!-- generated: NAME (go generate ./...) -->
//	<!-- end generated -->
//
// is NAME's text; everything else in the file is written by hand. The
// files of docs/commands/ are generated whole.
//
// What the command line knows of itself (its commands, flags and exit
// codes) lives in the command package, which this package cannot import:
// that package hands it over as a Reference, and its test
// TestGeneratedDocs compares Generate's files with the checked-in ones
// (with -update it writes them; `go generate ./...` runs it so).
package docgen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// CommandsDir is where the command reference's pages go, from the
// module's root: generated whole, one page per command and an index.
const CommandsDir = "docs/commands"

// Regions are the generated regions by name.
func Regions(ref *Reference) map[string]string {
	return map[string]string{
		"alert-events":     alertEvents(),
		"reasons":          reasons(),
		"limits":           limits(),
		"report-limits":    reportLimits(),
		"expressions":      "```text\n" + plan.ExpressionsHelp + "```\n",
		"bets-view":        "```sql\n" + strings.TrimRight(history.BetsViewSQL("betplan"), ";\n") + ";\n```\n",
		"exit-codes-brief": exitCodesBrief(ref.Exits),
		"environment":      environment(ref.Environment),
	}
}

// limits is the table of limits: when each refuses a bet.
func limits() string {
	var b strings.Builder
	b.WriteString("| limit | refuses a bet when |\n|---|---|\n")
	for _, k := range limit.All() {
		fmt.Fprintf(&b, "| `%s` | %s%s |\n", k.Key, k.Doc, accountOnly(k))
	}
	return b.String()
}

// reportLimits is the table of the limits' fields of report.json.
func reportLimits() string {
	var b strings.Builder
	b.WriteString("| field | type | a bet is refused when |\n|---|---|---|\n")
	for _, k := range limit.All() {
		typ := "number or null"
		if k.Unit == limit.Bets {
			typ = "integer or null"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s%s |\n", k.Key, typ, k.Doc, accountOnly(k))
	}
	return b.String()
}

// accountOnly says a kind only the account file may set.
func accountOnly(k *limit.Kind) string {
	if k.In(limit.InPlan) {
		return ""
	}
	return " (the account file only: every plan of the account together)"
}

func alertEvents() string {
	var b strings.Builder
	b.WriteString("| event | when |\n|---|---|\n")
	for _, e := range plan.AlertEventsInfo() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", e.Name, e.When)
	}
	return b.String()
}

func reasons() string {
	var b strings.Builder
	b.WriteString("| `reason_code` | what did not happen | why | a failure (exit 1) |\n|---|---|---|---|\n")
	for _, r := range reason.All {
		failure := "no"
		if r.Failure {
			failure = "yes"
		}
		if r.Code == reason.Limit {
			failure = "no; a cap first reached in its period exits 3"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Code, r.Stage, r.Words, failure)
	}
	return b.String()
}

var region = regexp.MustCompile(`(?s)(<!-- generated: ([a-z-]+) \(go generate \./\.\.\.\) -->\n)(.*?)(<!-- end generated -->)`)

// Apply is src with every generated region it holds rewritten from
// regions; it names the regions it found, and refuses a region it does
// not know.
func Apply(src []byte, regions map[string]string) ([]byte, []string, error) {
	var found []string
	var err error
	out := region.ReplaceAllFunc(src, func(m []byte) []byte {
		parts := region.FindSubmatch(m)
		name := string(parts[2])
		text, ok := regions[name]
		if !ok {
			if err == nil {
				err = fmt.Errorf("unknown generated region %q", name)
			}
			return m
		}
		found = append(found, name)
		return bytes.Join([][]byte{parts[1], []byte(text), parts[4]}, nil)
	})
	sort.Strings(found)
	return out, found, err
}

// MarkdownFiles are the hand-written Markdown files a generated region may
// sit in, from the module's root: the README, CONTRIBUTING.md and every
// page under docs/ but the generated command reference.
func MarkdownFiles(root string) ([]string, error) {
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel == CommandsDir {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".md") {
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// Generate is every generated file as it should read, by its path from
// the module's root: each hand-written Markdown file that holds a
// generated region, with its regions rewritten, and every page of the
// command reference. It fails on a region it does not know and on a
// region no file holds, so a table cannot silently fall out of the docs.
func Generate(root string, ref *Reference) (map[string][]byte, error) {
	if err := ref.check(); err != nil {
		return nil, err
	}
	regions := Regions(ref)
	files, err := MarkdownFiles(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	seen := map[string]bool{}
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		text, found, err := Apply(src, regions)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(found) == 0 {
			continue
		}
		for _, n := range found {
			seen[n] = true
		}
		out[f] = text
	}
	for name := range regions {
		if !seen[name] {
			return nil, fmt.Errorf("no Markdown file holds the generated region %q", name)
		}
	}
	for name, text := range ref.pages() {
		out[CommandsDir+"/"+name] = []byte(text)
	}
	return out, nil
}

// Stale are the files of the command reference Generate does not make (a
// command removed or renamed), from the module's root.
func Stale(root string, generated map[string][]byte) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, CommandsDir))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		path := CommandsDir + "/" + e.Name()
		if _, ok := generated[path]; !ok {
			stale = append(stale, path)
		}
	}
	return stale, nil
}
