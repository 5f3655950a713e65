package history

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
	"time"
)

// maxPoints bounds each plan's line in the chart: a year of bets draws as
// the same line with every few hundredth point, so the page stays small.
const maxPoints = 400

// palette colours the plans' lines, in turn.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"}

type svgLine struct {
	Plan, Colour, Points string
}

// svgBar is one row's bar, with the words under it: its group (Name,
// shortened to fit its band) and its profit.
type svgBar struct {
	Label          string // the whole group, for the tooltip
	Name           string
	X, Y, W, H     float64
	Colour, Amount string
	// TextX is the middle of the bar's band; NameY and AmountY are where
	// its words go, and Slant whether the name is turned to fit.
	TextX, NameY, AmountY float64
	Slant, ShowName       bool
}

// tick is one labelled step of an axis, at Pos along it.
type tick struct {
	Pos    float64
	Label  string
	Anchor string // where the label's text sits on Pos: start, middle or end
}

// chart is a plot area and its axes.
type chart struct {
	Width, Height            float64 // the whole drawing
	Left, Right, Top, Bottom float64 // the plot area inside it
	Zero                     float64 // where 0 is on the y axis
	YTicks, XTicks           []tick
	Aria                     string
}

type htmlPage struct {
	By     string
	Head   []string
	Rows   [][]string
	Total  []string
	Footer []string
	Lines  []svgLine
	Line   chart
	Bars   []svgBar
	Bar    chart
	Profit string
}

// The drawing's size and the room its axes' words take.
const (
	chartWidth  = 900
	plotHeight  = 200
	axisLeft    = 72 // room for the y axis's amounts
	axisRight   = 12
	chartTop    = 12
	lineAxisLow = 34 // room for the x axis's dates
)

// WriteHTML writes one self-contained page: each plan's cumulative profit
// over time, the profit of each group, and the table. Nothing loads from
// the network; the charts are inline SVG, each with its axes labelled.
func WriteHTML(w io.Writer, s *Summary) error {
	p := htmlPage{By: strings.Join(s.By, ", "), Head: append(upper(s.By), s.columns()...)}
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

// profitScale is a y axis for profits from lo to hi cents: about five
// round steps that take in both and zero, and the place of a profit on it.
func profitScale(c *chart, lo, hi int64) func(int64) float64 {
	lo, hi = min(lo, 0), max(hi, 0)
	step := roundStep(hi - lo)
	lo = floorTo(lo, step)
	hi = -floorTo(-hi, step)
	if hi == lo {
		hi = lo + step
	}
	y := func(v int64) float64 {
		return c.Top + (c.Bottom-c.Top)*float64(hi-v)/float64(hi-lo)
	}
	for v := lo; v <= hi; v += step {
		c.YTicks = append(c.YTicks, tick{Pos: y(v), Label: tickDollars(v, step)})
	}
	c.Zero = y(0)
	return y
}

// roundStep is a step of 1, 2 or 5 times a power of ten cents that cuts
// span into about five.
func roundStep(span int64) int64 {
	if span <= 0 {
		return 100
	}
	raw := float64(span) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return max(1, int64(m*mag))
		}
	}
	return max(1, int64(10*mag))
}

// floorTo is v rounded down to a multiple of step.
func floorTo(v, step int64) int64 {
	q := v / step
	if v%step != 0 && v < 0 {
		q--
	}
	return q * step
}

// tickDollars is an axis amount: whole dollars when the steps are.
func tickDollars(v, step int64) string {
	if v == 0 {
		return "$0"
	}
	s := signed(Dollars(v))
	if step%100 == 0 {
		s = strings.TrimSuffix(s, ".00")
	}
	return s
}

// lineChart draws each plan's cumulative profit against the time of its
// results, on one scale, with profits up the side and dates along the
// bottom.
func lineChart(p *htmlPage, curves []Curve) {
	var lo, hi int64
	var first, last time.Time
	seen := false
	for _, c := range curves {
		for _, pt := range c.Points {
			if !seen || pt.At.Before(first) {
				first = pt.At
			}
			if !seen || pt.At.After(last) {
				last = pt.At
			}
			seen = true
			lo, hi = min(lo, pt.Profit), max(hi, pt.Profit)
		}
	}
	if !seen {
		return
	}
	c := &p.Line
	*c = chart{Width: chartWidth, Height: chartTop + plotHeight + lineAxisLow, Left: axisLeft, Right: chartWidth - axisRight, Top: chartTop, Bottom: chartTop + plotHeight,
		Aria: "cumulative profit over time, a line per plan"}
	y := profitScale(c, lo, hi)
	span := max(last.Sub(first), time.Second)
	x := func(t time.Time) float64 {
		return c.Left + (c.Right-c.Left)*float64(t.Sub(first))/float64(span)
	}
	layout := "2006-01-02"
	if span < 48*time.Hour {
		layout = "01-02 15:04"
	}
	const dates = 4
	for i := range dates + 1 {
		t := first.Add(span * time.Duration(i) / dates)
		if i > 0 && span < time.Minute {
			break // one label for results all at once
		}
		anchor := "middle"
		switch {
		case i == 0:
			anchor = "start"
		case i == dates:
			anchor = "end"
		}
		c.XTicks = append(c.XTicks, tick{Pos: x(t), Label: t.UTC().Format(layout), Anchor: anchor})
	}
	for i, cv := range curves {
		step := max(1, len(cv.Points)/maxPoints)
		var pts strings.Builder
		fmt.Fprintf(&pts, "%.1f,%.1f ", c.Left, y(0))
		for k := 0; k < len(cv.Points); k += step {
			pt := cv.Points[k]
			if k+step >= len(cv.Points) {
				pt = cv.Points[len(cv.Points)-1]
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", x(pt.At), y(pt.Profit))
		}
		p.Lines = append(p.Lines, svgLine{cv.Plan, palette[i%len(palette)], strings.TrimSpace(pts.String())})
	}
}

// barChart draws each row's profit as a bar above (won) or below (lost)
// the zero line, on a labelled profit axis, each bar named under the
// plot with its profit: side by side where the bars are wide enough,
// else the names slanted (as many as fit) and the profit in the tooltip.
func barChart(p *htmlPage, s *Summary) {
	if len(s.Rows) == 0 {
		return
	}
	var lo, hi int64
	for _, r := range s.Rows {
		lo, hi = min(lo, r.Profit), max(hi, r.Profit)
	}
	band := float64(chartWidth-axisLeft-axisRight) / float64(len(s.Rows))
	slant := band < 72
	low := 40.0 // two lines of words under the plot
	if slant {
		low = 96
	}
	c := &p.Bar
	*c = chart{Width: chartWidth, Height: chartTop + plotHeight + low, Left: axisLeft, Right: chartWidth - axisRight, Top: chartTop, Bottom: chartTop + plotHeight,
		Aria: "profit by " + p.By + ", a bar per row"}
	y := profitScale(c, lo, hi)
	// A slanted name every few bars when they are too narrow for each.
	every := max(1, int(math.Ceil(17/band)))
	for i, r := range s.Rows {
		var keys []string
		for _, f := range s.By {
			keys = append(keys, keyCell(r.Keys[f]))
		}
		label := strings.Join(keys, " / ")
		x := c.Left + float64(i)*band
		b := svgBar{Label: label, X: x + band*0.15, W: band * 0.7, Colour: "#2ca02c", Amount: signed(Dollars(r.Profit)),
			TextX: x + band/2, NameY: c.Bottom + 16, AmountY: c.Bottom + 32, Slant: slant, ShowName: i%every == 0}
		if slant {
			b.Name = shorten(label, 14)
			b.NameY = c.Bottom + 10
		} else {
			b.Name = shorten(label, int(band/7.5))
		}
		top, bottom := y(max(r.Profit, 0)), y(min(r.Profit, 0))
		b.Y, b.H = top, bottom-top
		if r.Profit < 0 {
			b.Colour = "#d62728"
		}
		p.Bars = append(p.Bars, b)
	}
}

// shorten cuts s to n characters, an ellipsis marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if n < 2 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
svg text{font:12px system-ui,sans-serif;fill:#444}
svg .axis text{fill:#666;font-size:11px}
</style></head><body>
<h1>betplan history</h1>
<p>Profit over every row: <strong>{{.Profit}}</strong> (by {{.By}}).</p>
<h2>Cumulative profit</h2>
{{if .Lines}}{{with .Line}}{{$c := .}}<svg width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Aria}}">
{{template "yaxis" .}}<g class="axis">{{range .XTicks}}<text x="{{.Pos}}" y="{{$c.Bottom}}" dy="18" text-anchor="{{.Anchor}}">{{.Label}}</text>{{end}}</g>
{{end}}{{range .Lines}}<polyline fill="none" stroke="{{.Colour}}" stroke-width="2" points="{{.Points}}"><title>{{.Plan}}</title></polyline>
{{end}}</svg>
<p class="legend">{{range .Lines}}<span><i style="background:{{.Colour}}"></i>{{.Plan}}</span>{{end}} (dates UTC)</p>
{{else}}<p>No settled bets.</p>{{end}}
<h2>Profit by {{.By}}</h2>
{{if .Bars}}{{with .Bar}}<svg width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Aria}}">
{{template "yaxis" .}}{{end}}{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Colour}}"><title>{{.Label}}: {{.Amount}}</title></rect>
{{end}}<line x1="{{.Bar.Left}}" x2="{{.Bar.Right}}" y1="{{.Bar.Zero}}" y2="{{.Bar.Zero}}" stroke="#555"/>
<g class="names">{{range .Bars}}{{if .ShowName}}{{if .Slant}}<text transform="translate({{.TextX}},{{.NameY}}) rotate(-45)" text-anchor="end">{{.Name}}</text>{{else}}<text x="{{.TextX}}" y="{{.NameY}}" text-anchor="middle">{{.Name}}</text><text x="{{.TextX}}" y="{{.AmountY}}" text-anchor="middle" style="fill:{{.Colour}}">{{.Amount}}</text>{{end}}{{end}}
{{end}}</g></svg>{{end}}
<h2>Table</h2>
<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}<tr class="total">{{range .Total}}<td>{{.}}</td>{{end}}</tr>
</tbody></table>
{{range .Footer}}{{if .}}<p>{{.}}</p>{{end}}{{end}}
</body></html>
{{define "yaxis"}}<g class="axis"><line x1="{{.Left}}" x2="{{.Left}}" y1="{{.Top}}" y2="{{.Bottom}}" stroke="#999"/>{{range .YTicks}}
<line x1="{{$.Left}}" x2="{{$.Right}}" y1="{{.Pos}}" y2="{{.Pos}}" stroke="#e3e3e3"/><text x="{{$.Left}}" y="{{.Pos}}" dx="-6" dy="4" text-anchor="end">{{.Label}}</text>{{end}}
<line x1="{{.Left}}" x2="{{.Right}}" y1="{{.Zero}}" y2="{{.Zero}}" stroke="#999" stroke-dasharray="4 3"/></g>
{{end}}`))
