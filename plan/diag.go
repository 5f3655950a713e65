package plan

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Severity says whether a diagnostic makes a plan invalid.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Diagnostic is one problem of a plan, at a position of its file. Lines
// and columns count from 1; columns count characters (runes).
type Diagnostic struct {
	Severity  Severity
	Summary   string
	Detail    string
	Filename  string
	Line      int
	Column    int
	EndLine   int
	EndColumn int
}

// Diagnostics are all the problems found in one or more plans.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (d Diagnostics) HasErrors() bool { return d.Errors() > 0 }

// Errors counts the errors.
func (d Diagnostics) Errors() int { return d.count(SeverityError) }

// Warnings counts the warnings.
func (d Diagnostics) Warnings() int { return d.count(SeverityWarning) }

func (d Diagnostics) count(s Severity) int {
	n := 0
	for _, x := range d {
		if x.Severity == s {
			n++
		}
	}
	return n
}

// Error joins the errors, one a line, in the text form without source.
func (d Diagnostics) Error() string {
	var lines []string
	for _, x := range d {
		if x.Severity == SeverityError {
			lines = append(lines, x.String())
		}
	}
	return strings.Join(lines, "\n")
}

// String is "FILE:LINE:COL: message", with "warning: " before a warning's
// message.
func (x Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(x.Filename)
	if x.Line > 0 {
		fmt.Fprintf(&b, ":%d", x.Line)
		if x.Column > 0 {
			fmt.Fprintf(&b, ":%d", x.Column)
		}
	}
	b.WriteString(": ")
	if x.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(x.Summary)
	if x.Detail != "" {
		b.WriteString(" (" + x.Detail + ")")
	}
	return b.String()
}

// sortDiagnostics orders by file, then position, keeping the order of
// equal positions.
func sortDiagnostics(d Diagnostics) {
	slices.SortStableFunc(d, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// WriteText writes every diagnostic as "FILE:LINE:COL: message [RULE
// name]" (actionlint's form: the rule id a reader looks up, as the JSON,
// GitHub and SARIF forms carry it), followed, when src has the file, by
// the offending line and a caret under the column.
func WriteText(w io.Writer, diags Diagnostics, src map[string][]byte) error {
	var b bytes.Buffer
	// Many problems on one long line quote it redacted once, not once each.
	type fileLine struct {
		file string
		line int
	}
	redacted := map[fileLine]string{}
	for _, d := range diags {
		rule := d.RuleOf()
		fmt.Fprintf(&b, "%s [%s %s]\n", d.String(), rule.ID, rule.Name)
		if line, ok := sourceLine(src[d.Filename], d.Line); ok && d.Column > 0 {
			at := fileLine{d.Filename, d.Line}
			shown, seen := redacted[at]
			if !seen {
				shown = redactSource(strings.ReplaceAll(line, "\t", " "))
				redacted[at] = shown
			}
			line, col := quoteWindow(shown, d.Column)
			fmt.Fprintf(&b, "    %s\n", line)
			width := 1
			if d.EndLine == d.Line && d.EndColumn > d.Column {
				width = d.EndColumn - d.Column
			}
			n := utf8.RuneCountInString(line)
			pad := min(col-1, n)
			fmt.Fprintf(&b, "    %s%s\n", strings.Repeat(" ", pad), strings.Repeat("^", max(1, min(width, n-pad))))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// quoteWidth is how much of a line longer than twice it a diagnostic
// quotes: a plan written on one line of 90 KB would otherwise be quoted
// whole under each of its problems.
const quoteWidth = 80

// quoteWindow is the part of line around column col (from 1) that a
// diagnostic quotes, with "…" where it was cut, and col within it.
func quoteWindow(line string, col int) (string, int) {
	r := []rune(line)
	if len(r) <= 2*quoteWidth {
		return line, col
	}
	start := max(0, min(col-1-quoteWidth/2, len(r)-quoteWidth))
	end := min(len(r), start+quoteWidth)
	out := string(r[start:end])
	col -= start
	if start > 0 {
		out, col = "…"+out, col+1
	}
	if end < len(r) {
		out += "…"
	}
	return out, col
}

// MaxDiagnosticsPerFile is how many problems of one file are reported;
// past it one more says how many were left out.
const MaxDiagnosticsPerFile = 100

// capDiagnostics keeps the first MaxDiagnosticsPerFile of one file's
// sorted diagnostics and says how many more there were: 10,000 duplicate
// keys are one mistake, not 10,000 lines to read (or megabytes to print).
func capDiagnostics(d Diagnostics) Diagnostics {
	if len(d) <= MaxDiagnosticsPerFile {
		return d
	}
	rest := d[MaxDiagnosticsPerFile:]
	first := rest[0]
	sev := SeverityWarning
	if rest.HasErrors() {
		sev = SeverityError
	}
	return append(d[:MaxDiagnosticsPerFile:MaxDiagnosticsPerFile], Diagnostic{
		Severity: sev, Filename: first.Filename, Line: first.Line, Column: first.Column,
		EndLine: first.Line, EndColumn: first.Column + 1,
		Summary: fmt.Sprintf("and %d more problems in %s (%s, %s) not shown: fix the ones above first",
			len(rest), first.Filename, countOf(rest.Errors(), "error"), countOf(rest.Warnings(), "warning")),
	})
}

func countOf(n int, noun string) string { return fmt.Sprintf("%d %s", n, plural(n, noun)) }

func sourceLine(src []byte, n int) (string, bool) {
	if src == nil || n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimRight(string(src), "\r"), true
}

// JSONFormatVersion is the version of WriteJSON's document.
const JSONFormatVersion = "1"

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonDiagnostic struct {
	Severity Severity  `json:"severity"`
	Rule     string    `json:"rule"` // the rule's id, as SARIF and the GitHub annotations name it
	Summary  string    `json:"summary"`
	Detail   string    `json:"detail"`
	Range    jsonRange `json:"range"`
}

type jsonDocument struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []jsonDiagnostic `json:"diagnostics"`
}

// WriteJSON writes the diagnostics as one versioned JSON object, in the
// shape of `terraform validate -json`.
func WriteJSON(w io.Writer, diags Diagnostics) error {
	doc := jsonDocument{
		FormatVersion: JSONFormatVersion,
		Valid:         !diags.HasErrors(),
		ErrorCount:    diags.Errors(),
		WarningCount:  diags.Warnings(),
		Diagnostics:   make([]jsonDiagnostic, 0, len(diags)),
	}
	for _, d := range diags {
		end := jsonPos{d.EndLine, d.EndColumn}
		if end.Line == 0 {
			end = jsonPos{d.Line, d.Column}
		}
		doc.Diagnostics = append(doc.Diagnostics, jsonDiagnostic{
			Severity: d.Severity, Rule: d.RuleOf().ID, Summary: d.Summary, Detail: d.Detail,
			Range: jsonRange{Filename: d.Filename, Start: jsonPos{d.Line, d.Column}, End: end},
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// WriteGitHub writes GitHub Actions workflow commands, which annotate the
// pull request's diff at each position.
func WriteGitHub(w io.Writer, diags Diagnostics) error {
	var b bytes.Buffer
	for _, d := range diags {
		cmd := "error"
		if d.Severity == SeverityWarning {
			cmd = "warning"
		}
		fmt.Fprintf(&b, "::%s file=%s", cmd, escapeProperty(d.Filename))
		if d.Line > 0 {
			fmt.Fprintf(&b, ",line=%d", d.Line)
			if d.Column > 0 {
				fmt.Fprintf(&b, ",col=%d", d.Column)
			}
			if d.EndLine > 0 {
				fmt.Fprintf(&b, ",endLine=%d", d.EndLine)
				if d.EndLine == d.Line && d.EndColumn > 0 {
					fmt.Fprintf(&b, ",endColumn=%d", d.EndColumn)
				}
			}
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += "\n" + d.Detail
		}
		rule := d.RuleOf()
		fmt.Fprintf(&b, ",title=%s::%s\n", escapeProperty(rule.ID+" "+rule.Name), escapeData(msg))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// The escaping of @actions/core's command.ts.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }
