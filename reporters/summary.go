package reporters

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/printable"
)

// Summary is the report of one run of several plans on one account: each
// plan's totals, and the account's (every plan's bets together).
type Summary struct {
	Kind string `json:"kind"`
	// Simulated is true when the plans ran against the simulated service
	// (a rehearsal): no real money moved.
	Simulated bool          `json:"simulated"`
	Plans     []PlanSummary `json:"plans"`
	Account   Totals        `json:"account"`
}

// PlanSummary is one plan's line of a Summary.
type PlanSummary struct {
	Name      string `json:"name"`
	PlanFile  string `json:"plan_file"`
	EndReason string `json:"end_reason"`
	// Error is why the plan's run ended early, or why it did not run (its
	// lock was held, say); "" when it ran to its end.
	Error string `json:"error,omitempty"`
	// Running says which run held the plan's lock while a status read
	// it (its end_reason is then "running"); "" when none did.
	Running string `json:"running,omitempty"`
	Totals  Totals `json:"totals"`
}

// NewSummary builds the summary of results, one per plan, in the order
// given. A plan that did not run at all (its lock was held) has a result
// with no bets and its refusal in Error.
func NewSummary(results []*engine.Result) *Summary {
	s := &Summary{Kind: string(engine.KindRun), Plans: make([]PlanSummary, 0, len(results))}
	var all engine.Result
	all.Kind = engine.KindRun
	for _, r := range results {
		if r.Kind != "" {
			s.Kind = string(r.Kind)
		}
		s.Simulated = s.Simulated || r.Simulated
		s.Plans = append(s.Plans, PlanSummary{
			Name:      r.PlanName,
			PlanFile:  r.PlanFile,
			EndReason: endedWords(r),
			Error:     r.Error,
			Running:   runningWords(r),
			Totals:    newTotals(r),
		})
		all.Bets = append(all.Bets, r.Bets...)
	}
	s.Account = newTotals(&all)
	return s
}

// WriteSummaryJSON writes the summary as indented JSON.
func WriteSummaryJSON(w io.Writer, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func (t Totals) open() int { return t.Open }

// cancelled counts the bets cancelled with nothing placed: a bet
// cancelled after sessions placed it is still open (its money is on).
func (t Totals) cancelled() int {
	return t.ByStatus.Canceled - (t.Open - t.ByStatus.Created - t.ByStatus.Placed)
}

func (t Totals) trouble() int {
	return t.ByStatus.InDoubt + t.ByStatus.Unresolved + t.ByStatus.NotTaken + t.ByStatus.Failed
}

// WriteSummaryText writes the summary as a plain table, a line per plan
// and one for the account.
func WriteSummaryText(w io.Writer, s *Summary) error {
	bw := bufio.NewWriter(w)
	if s.Simulated {
		fmt.Fprintf(bw, "%s\n", simulatedWords)
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("account")
	for _, p := range s.Plans {
		width = max(width, len(printable.Text(p.Name)))
	}
	fmt.Fprintf(tw, "%-*s\tBETS\tSETTLED\tOPEN\tWAITING\tFAILED\tCANCELLED\tSTAKE\tAT RISK\tACCEPTED\tPROFIT\t  ENDED\n", width, "PLAN")
	row := func(name string, t Totals, ended string) {
		// Names padded alike read left-aligned in a right-aligned table.
		fmt.Fprintf(tw, "%-*s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", width, printable.Text(name), t.Bets, t.ByStatus.Settled, t.open(), t.ByStatus.Waiting, t.trouble(), t.cancelled(),
			dollars(t.StakeRequested), dollars(t.AtRisk), dollars(t.AmountAccepted), signedDollars(t.Profit), strings.TrimRight("  "+printable.Text(ended), " "))
	}
	for _, p := range s.Plans {
		row(p.Name, p.Totals, p.EndReason)
	}
	row("account", s.Account, "")
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range s.Plans {
		if p.Error != "" {
			fmt.Fprintf(bw, "%s: %s\n", printable.Text(p.Name), printable.Text(oneLine(p.Error)))
		}
		if p.Running != "" {
			fmt.Fprintf(bw, "%s: %s\n", printable.Text(p.Name), printable.Text(p.Running))
		}
	}
	return bw.Flush()
}

// WriteSummaryMarkdown writes the summary as a Markdown table.
func WriteSummaryMarkdown(w io.Writer, s *Summary) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## betplan %s: %d plans\n\n", s.Kind, len(s.Plans))
	if s.Simulated {
		fmt.Fprintf(bw, "> [!NOTE]\n> %s\n\n", simulatedWords)
	}
	fmt.Fprintln(bw, "| Plan | Bets | Settled | Open | Waiting | Failed | Cancelled | Stake | At risk | Accepted | Profit | Ended |")
	fmt.Fprintln(bw, "|:-----|-----:|--------:|-----:|--------:|-------:|----------:|------:|--------:|---------:|-------:|:------|")
	row := func(name string, t Totals, ended string) {
		fmt.Fprintf(bw, "| %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s |\n", name, t.Bets, t.ByStatus.Settled, t.open(), t.ByStatus.Waiting, t.trouble(), t.cancelled(),
			dollars(t.StakeRequested), dollars(t.AtRisk), dollars(t.AmountAccepted), signedDollars(t.Profit), strings.TrimRight("  "+ended, " "))
	}
	for _, p := range s.Plans {
		row(mdText(p.Name), p.Totals, mdText(p.EndReason))
	}
	row("**account**", s.Account, "")
	for _, p := range s.Plans {
		if p.Error != "" {
			fmt.Fprintf(bw, "\n- %s: %s", mdText(p.Name), mdText(p.Error))
		}
		if p.Running != "" {
			fmt.Fprintf(bw, "\n- %s: %s", mdText(p.Name), mdText(p.Running))
		}
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// WriteSummaryJUnit writes one JUnit file for every plan: a test suite
// (and its tips' suite) per plan, as each plan's report.xml has them.
func WriteSummaryJUnit(w io.Writer, results []*engine.Result) error {
	doc := junitSuites{Name: "betplan run", Time: "0"}
	for _, r := range results {
		doc.Suites = append(doc.Suites, junitPlanSuites(r)...)
	}
	doc.count()
	return doc.encode(w)
}

// WriteSummaryDir writes the summary of results into dir: summary.txt,
// summary.json, summary.md, summary.xml (JUnit, a suite per plan) and
// summary.html (linking to each plan's report.html).
func WriteSummaryDir(dir string, results []*engine.Result) ([]string, error) {
	s := NewSummary(results)
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"summary.json", func(w io.Writer) error { return WriteSummaryJSON(w, s) }},
		{"summary.txt", func(w io.Writer) error { return WriteSummaryText(w, s) }},
		{"summary.md", func(w io.Writer) error { return WriteSummaryMarkdown(w, s) }},
		{"summary.xml", func(w io.Writer) error { return WriteSummaryJUnit(w, results) }},
		{"summary.html", func(w io.Writer) error { return WriteSummaryHTML(w, s) }},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create report directory: %w", err)
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := writeFileAtomic(p, f.write); err != nil {
			return paths, fmt.Errorf("write %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// AppendSummaryStep appends the summary in Markdown to the file at path
// ($GITHUB_STEP_SUMMARY).
func AppendSummaryStep(path string, s *Summary) error {
	return appendStepSummary(path, func(w io.Writer) error { return WriteSummaryMarkdown(w, s) })
}
