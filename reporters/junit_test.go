package reporters_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// junitXSD is the common JUnit schema, kept outside the repository.
const junitXSD = "../../shared/schemas/junit-10.xsd"

func TestJUnitValidatesAgainstXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not installed")
	}
	if _, err := os.Stat(junitXSD); err != nil {
		t.Skipf("no JUnit XSD: %v", err)
	}
	for name, r := range map[string]*engine.Result{"run": runResult(), "plan": planResult(), "empty": emptyResult(), "tips": tipsResult(), "tips-plan": tipsPlanResult()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "report.xml")
			if err := os.WriteFile(path, render(t, reporters.FormatJUnit, r, reporters.TextOptions{}), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", junitXSD, path).CombinedOutput()
			if err != nil {
				t.Errorf("xmllint: %v\n%s", err, out)
			}
		})
	}
}

type junitOutcome struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    string   `xml:"tests,attr"`
	Failures string   `xml:"failures,attr"`
	Errors   string   `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    string `xml:"tests,attr"`
		Failures string `xml:"failures,attr"`
		Errors   string `xml:"errors,attr"`
		Skipped  string `xml:"skipped,attr"`
		Cases    []struct {
			Name      string        `xml:"name,attr"`
			Classname string        `xml:"classname,attr"`
			Failure   *junitOutcome `xml:"failure"`
			Error     *junitOutcome `xml:"error"`
			Skipped   *junitOutcome `xml:"skipped"`
			SystemOut string        `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitStructure(t *testing.T) {
	r := runResult()
	out := render(t, reporters.FormatJUnit, r, reporters.TextOptions{})
	var doc junitDoc
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("JUnit report is not well-formed XML: %v", err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	// One testcase per bet, and one for the fatal error, first.
	if len(s.Cases) != len(r.Bets)+1 || s.Cases[0].Error == nil {
		t.Fatalf("%d testcases, want %d: one per bet after the fatal error", len(s.Cases), len(r.Bets)+1)
	}
	var failures, errs, skipped int
	kinds := map[string]string{}
	for _, c := range s.Cases {
		if c.Classname != r.PlanName {
			t.Errorf("testcase %q: classname %q, want the plan name %q", c.Name, c.Classname, r.PlanName)
		}
		switch {
		case c.Error != nil:
			errs++
			kinds[c.Name] = "error"
		case c.Failure != nil:
			failures++
			kinds[c.Name] = "failure"
		case c.Skipped != nil:
			skipped++
			kinds[c.Name] = "skipped"
		default:
			kinds[c.Name] = "passed"
		}
	}
	for attr, got := range map[string][2]string{
		"testsuite tests":     {s.Tests, strconv.Itoa(len(s.Cases))},
		"testsuite failures":  {s.Failures, strconv.Itoa(failures)},
		"testsuite errors":    {s.Errors, strconv.Itoa(errs)},
		"testsuite skipped":   {s.Skipped, strconv.Itoa(skipped)},
		"testsuites tests":    {doc.Tests, strconv.Itoa(len(s.Cases))},
		"testsuites failures": {doc.Failures, strconv.Itoa(failures)},
		"testsuites errors":   {doc.Errors, strconv.Itoa(errs)},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %s, but the testcases count %s", attr, got[0], got[1])
		}
	}
	for name, want := range map[string]string{
		"betplan run":                                    "error",
		"early-fav (Flemington R3 12:10 AEDT)":           "passed",
		"each-way (Flemington R4 12:45 AEDT)":            "passed", // losing money is not a failure
		"nobody-home (Moonee Valley R1 11:40 AEDT)":      "failure",
		"all-errors (Moonee Valley R2 12:00 AEDT)":       "failure",
		"create-timeout (Moonee Valley R3 12:30 AEDT)":   "error",
		"phantom (Nowhere Downs R12)":                    "failure",
		"rain-check (Caulfield R2 11:50 AEDT)":           "skipped",
		"drifter (Randwick R9 15:40 AEDT)":               "skipped",
		"second-thoughts (Moonee Valley R4 13:05 AEDT)":  "skipped",
		"box-trial@randwick-r7 (Randwick R7 14:30 AEDT)": "passed", // a for_each_race row: its instance id
	} {
		if kinds[name] != want {
			t.Errorf("testcase %q is %q, want %q", name, kinds[name], want)
		}
	}
}

// Whatever a bookmaker sends, the report stays well-formed XML.
func TestJUnitSurvivesControlCharacters(t *testing.T) {
	r := runResult()
	r.Bets[0].Reason = "bad\x00byte ]]> end"
	r.Bets[0].Records[0].SubmitError = "\x1b[31mred\x07"
	r.Error = "fatal ]]><![CDATA[ x \x01"
	var doc junitDoc
	if err := xml.Unmarshal(render(t, reporters.FormatJUnit, r, reporters.TextOptions{}), &doc); err != nil {
		t.Fatalf("JUnit report with control characters is not XML: %v", err)
	}
	// What XML can hold survives; only the control characters go.
	fatal, bet := doc.Suites[0].Cases[0], doc.Suites[0].Cases[1]
	if fatal.Error == nil || fatal.Error.Text != "fatal ]]><![CDATA[ x " {
		t.Errorf("the fatal error's text is %+v, want %q", fatal.Error, "fatal ]]><![CDATA[ x ")
	}
	for _, want := range []string{"reason: badbyte ]]> end\n", "([31mred)"} {
		if !strings.Contains(bet.SystemOut, want) {
			t.Errorf("the first bet's output lost %q:\n%s", want, bet.SystemOut)
		}
	}
}

// A reason is what CI shows of a bet or tip that failed or was skipped: it
// reaches the testcase's message and its output word for word.
func TestJUnitKeepsEveryReason(t *testing.T) {
	for name, r := range map[string]*engine.Result{"run": runResult(), "plan": planResult(), "tips": tipsResult()} {
		t.Run(name, func(t *testing.T) {
			var doc junitDoc
			if err := xml.Unmarshal(render(t, reporters.FormatJUnit, r, reporters.TextOptions{}), &doc); err != nil {
				t.Fatal(err)
			}
			type row struct{ id, reason string }
			var bets, tips []row
			for _, b := range r.Bets {
				bets = append(bets, row{b.ID, b.Reason})
			}
			for _, tip := range r.Tips {
				tips = append(tips, row{tip.ID, tip.Reason})
			}
			if r.Error != "" {
				bets = append([]row{{}}, bets...) // the fatal error's testcase comes first
			}
			suites := [][]row{bets}
			if len(tips) > 0 {
				suites = append(suites, tips)
			}
			if len(doc.Suites) != len(suites) {
				t.Fatalf("%d test suites, want %d", len(doc.Suites), len(suites))
			}
			messages := 0
			for i, rows := range suites {
				cases := doc.Suites[i].Cases
				if len(cases) != len(rows) {
					t.Fatalf("suite %s: %d testcases, want %d", doc.Suites[i].Name, len(cases), len(rows))
				}
				for j, c := range cases {
					reason := rows[j].reason
					if reason == "" {
						continue
					}
					if !strings.Contains(c.SystemOut, "reason: "+reason+"\n") {
						t.Errorf("%s: the output lacks its reason %q:\n%s", rows[j].id, reason, c.SystemOut)
					}
					for _, o := range []*junitOutcome{c.Failure, c.Skipped} {
						if o == nil {
							continue
						}
						messages++
						if !strings.HasSuffix(o.Message, ": "+reason) {
							t.Errorf("%s: message %q, want it to end with its reason %q", rows[j].id, o.Message, reason)
						}
					}
				}
			}
			if messages == 0 {
				t.Error("no failed or skipped testcase: the fixture no longer tests messages")
			}
		})
	}
}
