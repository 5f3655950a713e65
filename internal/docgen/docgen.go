// Package docgen writes the parts of the documentation that are made from
// Go values, so they are written once: the alert events (plan's one list),
// the reasons a bet was not created or placed (package reason), the limit
// kinds (package limit) in the README and in report.json's fields. A region
// of a Markdown file between
//
//	<!-- generated: NAME (go generate ./...) -->
//	<!-- end generated -->
//
// is NAME's text; everything else in the file is written by hand.
// `go generate ./...` rewrites the regions; TestGeneratedDocsAreCurrent
// fails when a checked-in copy drifts from the values.
package docgen

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// Regions are the generated regions by name.
func Regions() map[string]string {
	return map[string]string{
		"alert-events":  alertEvents(),
		"reasons":       reasons(),
		"limits":        limits(),
		"report-limits": reportLimits(),
	}
}

// limits is the README's table of limits: when each refuses a bet.
func limits() string {
	var b strings.Builder
	b.WriteString("| limit | refuses a bet when |\n|---|---|\n")
	for _, k := range limit.All() {
		fmt.Fprintf(&b, "| `%s` | %s%s |\n", k.Key, k.Doc, accountOnly(k))
	}
	return b.String()
}

// reportLimits is REPORT.md's table of the limits' fields of report.json.
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

// Apply is src with every generated region it holds rewritten; it names
// the regions it found, and refuses a region it does not know.
func Apply(src []byte) ([]byte, []string, error) {
	want := Regions()
	var found []string
	var err error
	out := region.ReplaceAllFunc(src, func(m []byte) []byte {
		parts := region.FindSubmatch(m)
		name := string(parts[2])
		text, ok := want[name]
		if !ok {
			err = fmt.Errorf("unknown generated region %q", name)
			return m
		}
		found = append(found, name)
		return bytes.Join([][]byte{parts[1], []byte(text), parts[4]}, nil)
	})
	sort.Strings(found)
	return out, found, err
}

// Files are the files holding generated regions, from the module's root.
var Files = []string{"README.md", "reporters/REPORT.md"}

// Write rewrites the generated regions of Files under root.
func Write(root string) error {
	for _, f := range Files {
		path := root + "/" + f
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, _, err := Apply(src)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if !bytes.Equal(out, src) {
			if err := os.WriteFile(path, out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
