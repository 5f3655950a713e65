package history

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// maxPoints bounds each plan's line in the chart: a year of bets draws as
// the same line with every few hundredth point, so the page stays small.
const maxPoints = 400

// palette colours the plans' lines, in turn.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"}

type svgLine struct {
	Plan, Colour, Points string
}

type svgBar struct {
	Label          string
	X, Y, W, H     float64
	Colour, Amount string
}

type htmlPage struct {
	By                       string
	Head                     []string
	Rows                     [][]string
	Total                    []string
	Footer                   []string
	Lines                    []svgLine
	Bars                     []svgBar
	Width, Height, Zero      float64
	ChartMin, ChartMax       string
	BarHeight, BarZero, BarW float64
	Profit                   string
}

// WriteHTML writes one self-contained page: each plan's cumulative profit
// over time, the profit of each group, and the table. Nothing loads from
// the network; the charts are inline SVG.
func WriteHTML(w io.Writer, s *Summary) error {
	p := htmlPage{By: strings.Join(s.By, ", "), Head: append(upper(s.By), s.columns()...), Width: 900, Height: 260, BarW: 900}
	for _, r := range s.Rows {
		var cells []string
		for _, f := range s.By {
			cells = append(cells, keyCell(r.Keys[f]))
		}
		p.Rows = append(p.Rows, append(cells, s.cells(&r.Measures)...))
	}
	p.Total = append(make([]string, len(s.By)), s.cells(&s.Total)...)
	p.Total[0] = "TOTAL"
	p.Profit = signed(Dollars(s.Total.Profit))
	var foot strings.Builder
	writeFooter(&foot, s, "")
	p.Footer = strings.Split(strings.TrimSpace(foot.String()), "\n")
	lineChart(&p, s.Curves)
	barChart(&p, s)
	return page.Execute(w, p)
}

// lineChart draws each plan's cumulative profit against the time of its
// results, on one scale.
func lineChart(p *htmlPage, curves []Curve) {
	var lo, hi int64
	var first, last int64
	seen := false
	for _, c := range curves {
		for _, pt := range c.Points {
			t := pt.At.Unix()
			if !seen || t < first {
				first = t
			}
			if !seen || t > last {
				last = t
			}
			seen = true
			lo, hi = min(lo, pt.Profit), max(hi, pt.Profit)
		}
	}
	if !seen {
		return
	}
	if hi == lo {
		hi = lo + 100
	}
	span := float64(max(last-first, 1))
	y := func(v int64) float64 { return 10 + (p.Height-20)*float64(hi-v)/float64(hi-lo) }
	p.Zero = y(0)
	p.ChartMin, p.ChartMax = signed(Dollars(lo)), signed(Dollars(hi))
	for i, c := range curves {
		step := max(1, len(c.Points)/maxPoints)
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%.1f ", 0.0, y(0))
		for k := 0; k < len(c.Points); k += step {
			pt := c.Points[k]
			if k+step >= len(c.Points) {
				pt = c.Points[len(c.Points)-1]
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", p.Width*float64(pt.At.Unix()-first)/span, y(pt.Profit))
		}
		p.Lines = append(p.Lines, svgLine{c.Plan, palette[i%len(palette)], strings.TrimSpace(pts.String())})
	}
}

// barChart draws each row's profit as a bar above (won) or below (lost)
// the zero line.
func barChart(p *htmlPage, s *Summary) {
	if len(s.Rows) == 0 {
		return
	}
	var lo, hi int64
	for _, r := range s.Rows {
		lo, hi = min(lo, r.Profit), max(hi, r.Profit)
	}
	if hi == lo {
		hi = lo + 100
	}
	p.BarHeight = 200
	scale := (p.BarHeight - 20) / float64(hi-lo)
	p.BarZero = 10 + float64(hi)*scale
	w := p.BarW / float64(len(s.Rows))
	for i, r := range s.Rows {
		var keys []string
		for _, f := range s.By {
			keys = append(keys, keyCell(r.Keys[f]))
		}
		h := float64(r.Profit) * scale
		b := svgBar{Label: strings.Join(keys, " / "), X: float64(i)*w + w*0.1, W: w * 0.8, Colour: "#2ca02c", Amount: signed(Dollars(r.Profit))}
		if h >= 0 {
			b.Y, b.H = p.BarZero-h, h
		} else {
			b.Y, b.H, b.Colour = p.BarZero, -h, "#d62728"
		}
		p.Bars = append(p.Bars, b)
	}
}

var page = template.Must(template.New("history").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>betplan history: {{.Profit}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
th,td{padding:.3em .6em;border-bottom:1px solid #ddd;text-align:right}
th{background:#f3f3f3}
tr.total td{font-weight:bold;border-top:2px solid #555}
.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:1em;height:.3em;vertical-align:middle;margin-right:.3em}
svg{background:#fafafa;border:1px solid #eee}
</style></head><body>
<h1>betplan history</h1>
<p>Profit over every row: <strong>{{.Profit}}</strong> (by {{.By}}).</p>
<h2>Cumulative profit</h2>
{{if .Lines}}<svg width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="cumulative profit over time, a line per plan">
<line x1="0" x2="{{.Width}}" y1="{{.Zero}}" y2="{{.Zero}}" stroke="#999" stroke-dasharray="4 3"/>
{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="2" points="{{.Points}}"><title>{{.Plan}}</title></polyline>
{{end}}<text x="4" y="14" font-size="11">{{.ChartMax}}</text><text x="4" y="{{.Height}}" dy="-4" font-size="11">{{.ChartMin}}</text>
</svg>
<p class="legend">{{range .Lines}}<span><i style="background:{{.Colour}}"></i>{{.Plan}}</span>{{end}}</p>
{{else}}<p>No settled bets.</p>{{end}}
<h2>Profit by {{.By}}</h2>
{{if .Bars}}<svg width="{{.BarW}}" height="{{.BarHeight}}" viewBox="0 0 {{.BarW}} {{.BarHeight}}" role="img" aria-label="profit by group">
<line x1="0" x2="{{.BarW}}" y1="{{.BarZero}}" y2="{{.BarZero}}" stroke="#999"/>
{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Colour}}"><title>{{.Label}}: {{.Amount}}</title></rect>
{{end}}</svg>{{end}}
<h2>Table</h2>
<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}<tr class="total">{{range .Total}}<td>{{.}}</td>{{end}}</tr>
</tbody></table>
{{range .Footer}}{{if .}}<p>{{.}}</p>{{end}}{{end}}
</body></html>
`))
