package plan_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	// The SARIF 2.1.0 JSON Schema ships in go-sarif v3's source; the
	// import keeps that module in go.sum so the test can read it.
	_ "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/plan"
)

// sarifSchema compiles the official SARIF 2.1.0 schema as go-sarif v3
// embeds it (the const schema of pkg/report/v210/sarif).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	if err != nil {
		t.Fatalf("find go-sarif v3: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok && len(v.Names) == 1 && v.Names[0].Name == "schema" {
			text, err = strconv.Unquote(v.Values[0].(*ast.BasicLit).Value)
		}
		return text == ""
	})
	if err != nil || !strings.Contains(text, "SARIF") {
		t.Fatalf("no SARIF schema in %s (%v)", file, err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate --format sarif: a SARIF 2.1.0 log the official schema accepts,
// each diagnostic a result with its rule id, level, message and region.
func TestSARIF(t *testing.T) {
	schema := sarifSchema(t)
	var all plan.Diagnostics
	for _, f := range []string{"missing-stake", "unknown-key", "bad-yaml", "duplicate-id-and-expressions"} {
		_, diags := plan.Load(filepath.Join("..", "testdata", "plans", "invalid", f+".yaml"))
		all = append(all, diags...)
	}
	_, warns := plan.Load(filepath.Join("..", "testdata", "plans", "warnings", "no-limits.yaml"))
	all = append(all, warns...)
	var buf bytes.Buffer
	if err := plan.WriteSARIF(&buf, all, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("the SARIF log breaks the SARIF 2.1.0 schema: %v\n%s", err, buf.String())
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name, Version string
					Rules         []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "betplan" || run.Tool.Driver.Version != "v1.2.3" || len(run.Tool.Driver.Rules) != len(plan.Rules) {
		t.Errorf("driver = %+v", run.Tool.Driver)
	}
	if len(run.Results) != len(all) {
		t.Fatalf("%d results for %d diagnostics", len(run.Results), len(all))
	}
	for i, r := range run.Results {
		d := all[i]
		loc := r.Locations[0].PhysicalLocation
		want := map[string]string{"error": "error", "warning": "warning"}[string(d.Severity)]
		if r.RuleID != d.RuleOf().ID || r.Level != want || !strings.HasPrefix(r.Message.Text, d.Summary) ||
			loc.Region.StartLine != d.Line || loc.Region.StartColumn != d.Column || !strings.HasSuffix(loc.ArtifactLocation.URI, filepath.ToSlash(filepath.Base(d.Filename))) {
			t.Errorf("result %d = %+v, want %s %s at %d:%d: %s", i, r, d.RuleOf().ID, d.Severity, d.Line, d.Column, d.Summary)
		}
	}
}

// Every diagnostic of the golden plans gets a specific rule: the catch-all
// is for values only, and the rule ids are unique.
func TestRulesAreSpecific(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range plan.Rules {
		if ids[r.ID] || ids[r.Name] {
			t.Errorf("rule %s %s is not unique", r.ID, r.Name)
		}
		ids[r.ID], ids[r.Name] = true, true
	}
	cases := map[string]string{
		"bad-yaml": "yaml-syntax", "unknown-key": "unknown-field", "duplicate-id": "duplicate",
		"unknown-market": "unknown-name", "missing-stake": "missing", "undefined-var": "expression",
		"limit-exceeded": "limit", "out-of-range": "out-of-range", "missing-version": "missing",
		"negative-stake": "invalid-value", "event-expressions": "expression", "event-pick": "invalid-value",
	}
	for file, want := range cases {
		_, diags := plan.Load(filepath.Join("..", "testdata", "plans", "invalid", file+".yaml"))
		if len(diags) == 0 {
			t.Fatalf("%s: no diagnostics", file)
		}
		if got := diags[0].RuleOf().Name; got != want {
			t.Errorf("%s: %q is rule %s, want %s", file, diags[0].Summary, got, want)
		}
	}
}
