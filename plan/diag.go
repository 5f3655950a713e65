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
	after := knockOns(d)
	key := func(i int) (int, int, int) {
		if c, ok := after[i]; ok {
			return d[c].Line, d[c].Column, 1
		}
		return d[i].Line, d[i].Column, 0
	}
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		li, ci, ki := key(i)
		lj, cj, kj := key(j)
		return cmp.Or(cmp.Compare(d[i].Filename, d[j].Filename), cmp.Compare(li, lj), cmp.Compare(ci, cj), cmp.Compare(ki, kj))
	})
	sorted := make(Diagnostics, len(d))
	for n, i := range idx {
		sorted[n] = d[i]
	}
	copy(d, sorted)
}

// knockOns finds the errors a misspelt field causes: "bet a needs stake"
// because the bet wrote stke, which the unknown-field error suggests is
// stake. Each knock-on (by index) maps to its cause, so the two read in
// that order, the cause first, whatever their lines.
func knockOns(d Diagnostics) map[int]int {
	var out map[int]int
	var needs []int // the errors that say something is missing: few
	for k := range d {
		if d[k].Severity == SeverityError && strings.Contains(d[k].Summary, "needs ") {
			needs = append(needs, k)
		}
	}
	if len(needs) == 0 {
		return nil
	}
	for c := range d {
		if d[c].Severity != SeverityError || !strings.HasPrefix(d[c].Summary, "unknown field ") {
			continue
		}
		_, meant, ok := strings.Cut(d[c].Summary, `did you mean "`)
		if !ok {
			continue
		}
		meant, _, _ = strings.Cut(meant, `"`)
		// The nearest such error above the typo: its bet's (an earlier
		// bet's is its own).
		nearest := -1
		for _, k := range needs {
			if k == c || d[k].Filename != d[c].Filename || d[k].Line > d[c].Line {
				continue
			}
			if (strings.Contains(d[k].Summary, "needs "+meant+" ") || strings.HasSuffix(d[k].Summary, "needs "+meant)) &&
				(nearest < 0 || d[k].Line > d[nearest].Line) {
				nearest = k
			}
		}
		if nearest >= 0 {
			if out == nil {
				out = map[int]int{}
			}
			out[nearest] = c
		}
	}
	return out
}

// WriteText writes every diagnostic as "FILE:LINE:COL: message [RULE
// name]" (actionlint's form: the rule id a reader looks up, as the JSON,
// GitHub and SARIF forms carry it), followed, when src has the file, by
// the offending line and a caret under the column.
func WriteText(w io.Writer, diags Diagnostics, src map[string][]byte) error {
	var b bytes.Buffer
	// The line last quoted, redacted: a 4 MiB line holding a hundred
	// problems is read and redacted once, not once for each.
	var quoted struct {
		valid, ok bool
		file      string
		n         int
		line      []rune
	}
	for _, d := range diags {
		rule := d.RuleOf()
		fmt.Fprintf(&b, "%s [%s %s]\n", d.String(), rule.ID, rule.Name)
		if !quoted.valid || quoted.file != d.Filename || quoted.n != d.Line {
			line, ok := sourceLine(src[d.Filename], d.Line)
			quoted.valid, quoted.file, quoted.n, quoted.ok, quoted.line = true, d.Filename, d.Line, ok, nil
			if ok {
				quoted.line = []rune(redactSource(strings.ReplaceAll(line, "\t", " ")))
			}
		}
		if quoted.ok && d.Column > 0 {
			line, col := quoteWindow(quoted.line, d.Column)
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
func quoteWindow(r []rune, col int) (string, int) {
	if len(r) <= 2*quoteWidth {
		return string(r), col
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
// past it one more says how many were left out: 10,000 duplicate keys are
// one mistake, not 10,000 lines to read (or megabytes to print). The
// decoder keeps no more than that many at any time (decoder.keep).
const MaxDiagnosticsPerFile = 100

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

// WriteWarningsBrief writes the warnings of diags as the commands that act
// on plans show them: one line for each distinct warning, with the places
// it was found (the plans of a directory often share one), cut after a
// few, and no quote of the source: validate shows each at its line.
func WriteWarningsBrief(w io.Writer, diags Diagnostics) error {
	var order []string
	places := map[string][]string{}
	for _, d := range diags {
		if d.Severity != SeverityWarning {
			continue
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += " (" + d.Detail + ")"
		}
		rule := d.RuleOf()
		msg += fmt.Sprintf(" [%s %s]", rule.ID, rule.Name)
		if _, ok := places[msg]; !ok {
			order = append(order, msg)
		}
		at := d.Filename
		if d.Line > 0 {
			at += fmt.Sprintf(":%d", d.Line)
			if d.Column > 0 {
				at += fmt.Sprintf(":%d", d.Column)
			}
		}
		places[msg] = append(places[msg], at)
	}
	var b bytes.Buffer
	for _, msg := range order {
		fmt.Fprintf(&b, "warning: %s (%s)\n", msg, CutList(places[msg], 3))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// idsShown is how many bet ids a message lists before "and N more": a
// generated plan's limit message once named 20,367 of them on one line.
const idsShown = 10

// CutList joins items with ", ", the first n of them and how many more.
func CutList(items []string, n int) string {
	if len(items) <= n+1 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
