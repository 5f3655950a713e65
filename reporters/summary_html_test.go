package reporters_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// The summary page of several plans is well-formed, links each plan's
// own page in the folder beside it, has the account's row, and escapes
// what a plan's error says.
func TestSummaryHTMLLinksEachPlansReport(t *testing.T) {
	results := []*engine.Result{
		{Kind: engine.KindRun, PlanName: "alpha", EndReason: engine.EndCompleted},
		{Kind: engine.KindRun, PlanName: "beta", Error: `lock held by <pid 7> & "other"`},
	}
	var buf bytes.Buffer
	if err := reporters.WriteSummaryHTML(&buf, reporters.NewSummary(results)); err != nil {
		t.Fatal(err)
	}
	tree := parseHTML(t, buf.Bytes())
	var hrefs []string
	for _, a := range tree.attrs {
		if a.Name.Local == "href" {
			hrefs = append(hrefs, a.Value)
		}
	}
	if strings.Join(hrefs, " ") != "alpha/report.html beta/report.html" {
		t.Errorf("links = %q, want each plan's report.html", hrefs)
	}
	text := strings.Join(tree.texts, "")
	for _, want := range []string{"betplan run: 2 plans", "account", `lock held by <pid 7> & "other"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "<pid 7>") {
		t.Errorf("a plan's error is not escaped:\n%s", buf.String())
	}
}
