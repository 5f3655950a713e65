package reporters_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// htmlTree is what the structural checks need of the page, read with
// encoding/xml: the page is written well-formed so it can be.
type htmlTree struct {
	ids       map[string]bool // id attributes
	polylines []string        // points of each SVG polyline
	svgs      int
	texts     []string // character data
	elements  map[string]int
	attrs     []xml.Attr
}

func parseHTML(t *testing.T, page []byte) *htmlTree {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	tree := &htmlTree{ids: map[string]bool{}, elements: map[string]int{}}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return tree
		}
		if err != nil {
			t.Fatalf("the HTML report is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			tree.elements[tok.Name.Local]++
			tree.attrs = append(tree.attrs, tok.Attr...)
			for _, a := range tok.Attr {
				if a.Name.Local == "id" {
					tree.ids[a.Value] = true
				}
				if tok.Name.Local == "polyline" && a.Name.Local == "points" {
					tree.polylines = append(tree.polylines, a.Value)
				}
			}
			if tok.Name.Local == "svg" {
				tree.svgs++
			}
		case xml.CharData:
			tree.texts = append(tree.texts, string(tok))
		}
	}
}

func TestHTMLStructure(t *testing.T) {
	r := runResult()
	page := render(t, reporters.FormatHTML, r, reporters.TextOptions{})
	tree := parseHTML(t, page)
	for _, b := range r.Bets {
		if !tree.ids["bet-"+shownID(b)] {
			t.Errorf("no row with id bet-%s", shownID(b))
		}
	}
	if tree.svgs != 1 || len(tree.polylines) != 1 {
		t.Fatalf("%d svg, %d polylines; want one chart", tree.svgs, len(tree.polylines))
	}
	settled := 0
	for _, b := range r.Bets {
		if b.Status == engine.StatusSettled {
			settled++
		}
	}
	if n := len(strings.Fields(tree.polylines[0])); n != settled {
		t.Errorf("the chart has %d points, want one per settled bet: %d", n, settled)
	}
	// Self-contained: nothing is loaded, no address outside text.
	for _, el := range []string{"script", "link", "img", "iframe", "object", "embed"} {
		if tree.elements[el] > 0 {
			t.Errorf("the page has a <%s> element", el)
		}
	}
	for _, a := range tree.attrs {
		if strings.Contains(a.Value, "http://") || strings.Contains(a.Value, "https://") || strings.Contains(a.Value, "url(") {
			t.Errorf("attribute %s=%q refers outside the page", a.Name.Local, a.Value)
		}
	}
	style := string(page[bytes.Index(page, []byte("<style>")):bytes.Index(page, []byte("</style>"))])
	if strings.Contains(style, "@import") || strings.Contains(style, "url(") || strings.Contains(style, "@font-face") {
		t.Error("the page's CSS loads something")
	}
	// The hostile reason is shown as text, not markup.
	if !strings.Contains(strings.Join(tree.texts, ""), "<script>alert('x')</script>") {
		t.Error("the reason with <script> is not shown as text")
	}
}

func TestHTMLPlanHasNoChart(t *testing.T) {
	tree := parseHTML(t, render(t, reporters.FormatHTML, planResult(), reporters.TextOptions{}))
	if tree.svgs != 0 {
		t.Error("a plan preview draws a profit chart")
	}
	if !tree.ids["bet-big-punt"] {
		t.Error("plan preview lacks the refused bet")
	}
}

// The run report's tiles show the money on the line, the same sum as
// report.json's totals.at_risk (issue: the HTML report had no at-risk tile).
func TestHTMLAtRiskTileIsTheTotal(t *testing.T) {
	r := runResult()
	var doc struct {
		Totals struct {
			AtRisk float64 `json:"at_risk"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(render(t, reporters.FormatJSON, r, reporters.TextOptions{}), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Totals.AtRisk == 0 {
		t.Fatal("the fixture puts nothing at risk: the test would prove nothing")
	}
	tree := parseHTML(t, render(t, reporters.FormatHTML, r, reporters.TextOptions{}))
	want := fmt.Sprintf("$%.2f", doc.Totals.AtRisk)
	for i, s := range tree.texts {
		if s == "At risk" && i > 0 {
			if got := tree.texts[i-1]; got != want {
				t.Errorf("at-risk tile = %q, want %q (report.json totals.at_risk)", got, want)
			}
			return
		}
	}
	t.Errorf("no at-risk tile; want one of %s", want)
}
