package reporters

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/engine/book"
)

// WriteHTML writes the report as one self-contained page: inline CSS, an
// inline SVG chart of cumulative profit over race start time, the bets with
// each session's record, the sessions and the limits. It loads nothing from
// the network, so it opens the same from a CI artifact or an email.
func WriteHTML(w io.Writer, r *engine.Result) error {
	bw := bufio.NewWriter(w)
	if err := htmlTemplate.Execute(bw, newHTMLPage(r)); err != nil {
		return fmt.Errorf("render HTML report: %w", err)
	}
	return bw.Flush()
}

type htmlPage struct {
	Title     string
	Plan      bool
	Failed    bool
	Simulated bool
	Error     string
	Facts     [][2]string
	Cards     []htmlCard
	Counts    []htmlCard
	Chart     *htmlChart
	Bets      []htmlBet
	Sessions  []session
	Venues    []group
	Days      []group
	Limits    []limitRow
	Period    string // what the total limits count within
	// Account and AccountTitle are the account file's limits and what
	// heads them; nil without an account file.
	Account      []limitRow
	AccountTitle string
	Notes        []string

	Tips        []htmlTip
	TipCounts   string
	TipRecord   string
	Prealerts   []string
	Assumptions []string
}

type htmlCard struct {
	Label, Value, Class string
}

type htmlBet struct {
	ID, Label, Race, Code, Start, Day, Selection, Type, Market, Stake string
	AtRisk, AtRiskNote                                                string
	Odds, Return                                                      string
	Status, StatusClass, Action, ActionClass                          string
	Reason, Error, Notification, Accepted, Profit                     string
	ReasonCode                                                        string
	Placed                                                            string
	ProfitClass                                                       string
	Open                                                              bool // show the sessions without a click
	Records                                                           []htmlRecord
}

type htmlRecord struct {
	Session, Amount, Odds, Result, ResultClass, Error, Status, Profit, ProfitClass string
}

var toneClass = map[tone]string{toneGood: "good", toneBad: "bad", toneWarn: "warn", toneBusy: "busy", toneDim: "dim"}

func newHTMLPage(r *engine.Result) *htmlPage {
	d := newTotals(r)
	p := &htmlPage{
		Title:     "betplan " + kindTitle(r) + ": " + r.PlanName,
		Plan:      r.Kind == engine.KindPlan,
		Failed:    r.Failed(),
		Simulated: r.Simulated,
		Error:     r.Error,
	}
	for _, f := range [][2]string{
		{"Plan file", r.PlanFile}, {"Plan hash", r.PlanHash}, {"betplan", r.Version},
		{"Service", r.BaseURL}, {"Time", span(r)}, {"Ended", endedWords(r)}, {"Running", runningWords(r)},
	} {
		if f[1] != "" {
			p.Facts = append(p.Facts, f)
		}
	}
	if p.Plan {
		p.Cards = []htmlCard{{Label: "Bets", Value: strconv.Itoa(d.Bets)}}
		n := map[engine.Action]int{}
		for i := range r.Bets {
			n[r.Bets[i].Action]++
		}
		for _, a := range actionOrder {
			p.Counts = append(p.Counts, htmlCard{Label: string(a), Value: strconv.Itoa(n[a]), Class: toneClass[actionTone(a)]})
		}
	} else {
		p.Cards = []htmlCard{
			{Label: "Bets", Value: strconv.Itoa(d.Bets)},
			{Label: "Requested", Value: dollars(d.StakeRequested)},
			// The money on the line now: the same sum as TOTALS and
			// report.json's totals.at_risk.
			{Label: "At risk", Value: dollars(d.AtRisk)},
			{Label: "Accepted", Value: dollars(d.AmountAccepted)},
			{Label: "Profit", Value: signedDollars(d.Profit), Class: toneClass[profitTone(d.Profit)]},
			{Label: "Return", Value: percent(d.ReturnOnStake), Class: toneClass[profitTone(d.ReturnOnStake)]},
		}
		n := map[engine.Status]int{}
		for i := range r.Bets {
			n[r.Bets[i].Status]++
		}
		// A tile per outcome that occurs, in words: a 0 says nothing.
		seen := map[string]int{}
		var order []string
		tones := map[string]tone{}
		for i := range r.Bets {
			o := outcome(&r.Bets[i])
			if seen[o] == 0 {
				order = append(order, o)
				tones[o] = outcomeTone(&r.Bets[i])
			}
			seen[o]++
		}
		slices.SortStableFunc(order, func(a, b string) int { return outcomeRank(a) - outcomeRank(b) })
		for _, o := range order {
			p.Counts = append(p.Counts, htmlCard{Label: o, Value: strconv.Itoa(seen[o]), Class: toneClass[tones[o]]})
		}
		p.Chart = newHTMLChart(r)
		p.Sessions = sessions(r)
		if v := byVenue(r); len(v) > 1 {
			p.Venues = v
		}
		if d := byDay(r); len(d) > 1 {
			p.Days = d
		}
	}
	if p.Plan || r.Limits.Any() {
		p.Limits = planLimits(r)
		p.Period = capitalize(r.Limits.PeriodTitle())
	}
	if r.Account != nil {
		p.Account, p.AccountTitle = accountLimits(r), capitalize(accountTitle(r.Account))
	}
	for i := range r.Bets {
		b := &r.Bets[i]
		hb := htmlBet{
			ID: rowID(b), Label: b.Label, Race: raceName(b.Race), Code: b.Race.Code, Start: startClock(b.Race),
			Day:       meetingDay(b.Race),
			Selection: b.Selection, Type: b.Type, Market: b.Market, Stake: stakeWords(b),
			Status: statusCell(b, outcome(b)), StatusClass: toneClass[outcomeTone(b)],
			Odds: takenOdds(b), Return: returnWords(b),
			AtRisk: atRiskWords(b), AtRiskNote: atRiskNote(b),
			Action: string(b.Action), ActionClass: toneClass[actionTone(b.Action)],
			Reason: b.Reason, ReasonCode: reasonCode(b), Error: b.Error, Placed: placedWords(b),
			Accepted: acceptedWords(b), Profit: profitWords(b), ProfitClass: toneClass[profitTone(b.Profit)],
		}
		hb.Open = attention(b) == 0 && len(b.Records) > 0
		if b.NotificationID != 0 {
			hb.Notification = strconv.FormatInt(b.NotificationID, 10)
		}
		if provisional(b) && !slices.Contains(p.Notes, provisionalNote) {
			p.Notes = append(p.Notes, provisionalNote)
		}
		if b.Stake == nil && b.TargetProfit != nil && !slices.Contains(p.Notes, targetProfitNote) {
			p.Notes = append(p.Notes, targetProfitNote)
		}
		for _, rec := range b.Records {
			hr := htmlRecord{
				Session: sessionName(rec.Bookie, rec.DisplayName),
				Amount:  dollars(rec.Amount), Result: rec.SubmitResult, Error: rec.SubmitError,
				Status: rec.Status, Profit: signedDollars(rec.Profit), ProfitClass: toneClass[profitTone(rec.Profit)],
			}
			if rec.Odds > 0 {
				hr.Odds = strconv.FormatFloat(rec.Odds, 'f', 2, 64)
			}
			switch strings.ToLower(rec.SubmitResult) {
			case "success":
				hr.ResultClass = "good"
			case "error":
				hr.ResultClass = "bad"
			default:
				hr.ResultClass = "warn"
			}
			hb.Records = append(hb.Records, hr)
		}
		p.Bets = append(p.Bets, hb)
	}
	if len(r.Tips) > 0 {
		p.Tips, p.TipCounts, p.TipRecord = newHTMLTips(r), tipCounts(r), tipRecordWords(r)
		p.Prealerts, p.Assumptions = newHTMLPrealerts(r), r.Assumptions
	}
	return p
}

const (
	provisionalNote  = "* provisional: the race is not finally resulted yet."
	targetProfitNote = "tp: target profit, the stake is sized to win this."
)

// htmlChart is cumulative profit over race start: one point per settled bet
// with a known start, in start order.
type htmlChart struct {
	Width, Height          int
	Left, Right, Top, Base int // plot area
	Zero                   int // y of $0
	Points                 string
	N                      int
	YTicks                 []htmlTick
	XTicks                 []htmlTick
	Dots                   []htmlTick // x in Pos, y in Label; none when too many
	Last                   string
	LastClass              string
}

type htmlTick struct {
	Pos    int
	Label  string
	Anchor string // text-anchor of an axis label: start, middle or end
}

func newHTMLChart(r *engine.Result) *htmlChart {
	type point struct {
		at     time.Time
		profit float64
		race   engine.RaceInfo
	}
	var pts []point
	for i := range r.Bets {
		b := &r.Bets[i]
		if b.Status == engine.StatusSettled && !b.Race.Start.IsZero() {
			pts = append(pts, point{b.Race.Start, b.Profit, b.Race})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	slices.SortStableFunc(pts, func(a, b point) int { return a.at.Compare(b.at) })
	cum := make([]float64, len(pts))
	var sum book.Total
	lo, hi := 0.0, 0.0
	for i, p := range pts {
		sum.Add(p.profit)
		cum[i] = sum.Dollars()
		lo, hi = min(lo, cum[i]), max(hi, cum[i])
	}
	if hi == lo {
		hi = lo + 1
	}
	c := &htmlChart{Width: 760, Height: 260, Left: 80, Right: 740, Top: 20, Base: 220, N: len(pts)}
	first, last := pts[0].at, pts[len(pts)-1].at
	span := last.Sub(first).Seconds()
	x := func(t time.Time) int {
		if span == 0 {
			return (c.Left + c.Right) / 2
		}
		return c.Left + int(float64(c.Right-c.Left)*t.Sub(first).Seconds()/span+0.5)
	}
	y := func(v float64) int {
		return c.Base - int(float64(c.Base-c.Top)*(v-lo)/(hi-lo)+0.5)
	}
	var b strings.Builder
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d,%d", x(p.at), y(cum[i]))
	}
	c.Points = b.String()
	c.Zero = y(0)
	c.YTicks = []htmlTick{{Pos: y(hi), Label: signedDollars(hi)}, {Pos: y(lo), Label: signedDollars(lo)}}
	if lo < 0 && hi > 0 && c.Zero-y(hi) > 14 && y(lo)-c.Zero > 14 {
		c.YTicks = append(c.YTicks, htmlTick{Pos: c.Zero, Label: "$0.00"})
	}
	if len(pts) <= 200 {
		for i, p := range pts {
			c.Dots = append(c.Dots, htmlTick{Pos: x(p.at), Label: strconv.Itoa(y(cum[i]))})
		}
	}
	c.XTicks = []htmlTick{{x(first), startClock(pts[0].race), "middle"}}
	if span > 0 {
		c.XTicks[0].Anchor = "start"
		c.XTicks = append(c.XTicks, htmlTick{x(last), startClock(pts[len(pts)-1].race), "end"})
	}
	c.Last = signedDollars(sum.Dollars())
	c.LastClass = toneClass[profitTone(sum.Dollars())]
	return c
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"dollars":     dollars,
	"sessionName": sessionName,
	"signed":      signedDollars,
	"profitClass": func(v float64) string { return toneClass[profitTone(v)] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: #59636e; margin: 0 0 16px; }
.banner { border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
.banner.bad { background: #ffebe9; border: 1px solid #ff818266; color: #82071e; }
.banner.note { background: #ddf4ff; border: 1px solid #54aeff66; color: #0a3069; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 12px 0; }
.card { border: 1px solid #d1d9e0; border-radius: 6px; padding: 8px 14px; min-width: 90px; }
.card .v { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .l { color: #59636e; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.counts .card { padding: 4px 10px; min-width: 70px; }
.counts .card .v { font-size: 16px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
th { background: #f6f8fa; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: #59636e; }
td.nw { white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.id { max-width: 170px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
.race { max-width: 260px; }
.why { color: #59636e; font-size: 13px; margin-top: 2px; overflow-wrap: anywhere; }
.err { color: #82071e; font-size: 13px; margin-top: 2px; overflow-wrap: anywhere; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; font-weight: 600; white-space: nowrap; background: #eaeef2; color: #1f2328; }
.badge.good { background: #dafbe1; color: #116329; }
.badge.bad { background: #ffebe9; color: #a40e26; }
.badge.warn { background: #fff8c5; color: #7d4e00; }
.badge.busy { background: #ddf4ff; color: #0550ae; }
.badge.dim { background: #f6f8fa; color: #6e7781; }
.good { color: #116329; }
.bad { color: #a40e26; }
.warn { color: #7d4e00; }
.busy { color: #0550ae; }
.dim { color: #6e7781; }
.card .v.good, .card .v.bad { color: inherit; }
.card.good { border-color: #4ac26b; }
.card.bad { border-color: #ff8182; }
table.limits { width: auto; min-width: 480px; }
table.records { margin: 6px 0 2px; width: auto; font-size: 13px; }
table.records td, table.records th { padding: 2px 8px; border-bottom: 1px solid #eaeef2; }
tr.bet > td { border-bottom: none; }
tr.detail > td { padding-top: 0; }
details summary { cursor: pointer; color: #0550ae; font-size: 13px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dt { color: #59636e; }
dd { margin: 0; overflow-wrap: anywhere; }
svg text { font: 12px system-ui, sans-serif; fill: #59636e; }
.notes { color: #59636e; font-size: 13px; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{if .Plan}}What <code>betplan run</code> would do now.{{else if .Failed}}Something needs attention: see the bets marked in red.{{else}}Nothing failed.{{end}}</p>
{{if .Simulated}}<div class="banner note">Simulated service: no real money moved.</div>
{{end}}{{if .Error}}<div class="banner bad"><strong>Error:</strong> {{.Error}}</div>
{{end}}<div class="cards">{{range .Cards}}<div class="card {{.Class}}"><div class="v {{.Class}}">{{.Value}}</div><div class="l">{{.Label}}</div></div>{{end}}</div>
{{if .Counts}}<div class="cards counts">{{range .Counts}}<div class="card"><div class="v {{.Class}}">{{.Value}}</div><div class="l">{{.Label}}</div></div>{{end}}</div>
{{end}}
{{with .Chart}}<h2>Cumulative profit by race start (local time)</h2>
<svg width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="Cumulative profit over {{.N}} settled bets, ending at {{.Last}}">
<rect x="{{.Left}}" y="{{.Top}}" width="660" height="200" fill="#f6f8fa"/>
<line x1="{{.Left}}" y1="{{.Zero}}" x2="{{.Right}}" y2="{{.Zero}}" stroke="#8c959f" stroke-dasharray="4 3"/>
<line x1="{{.Left}}" y1="{{.Top}}" x2="{{.Left}}" y2="{{.Base}}" stroke="#59636e"/>
<line x1="{{.Left}}" y1="{{.Base}}" x2="{{.Right}}" y2="{{.Base}}" stroke="#59636e"/>
{{range .YTicks}}<text x="74" y="{{.Pos}}" text-anchor="end" dominant-baseline="middle">{{.Label}}</text>
{{end}}{{range .XTicks}}<text x="{{.Pos}}" y="238" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{end}}<text x="410" y="256" text-anchor="middle">race start (meeting's local time)</text>
<text x="14" y="120" text-anchor="middle" transform="rotate(-90 14 120)">cumulative profit ($)</text>
<polyline fill="none" stroke="#0969da" stroke-width="2" stroke-linejoin="round" points="{{.Points}}"/>
{{range .Dots}}<circle cx="{{.Pos}}" cy="{{.Label}}" r="3" fill="#0969da"/>
{{end}}</svg>
<p class="notes">{{.N}} settled bets; profit so far <strong class="{{.LastClass}}">{{.Last}}</strong>.</p>
{{end}}{{if .Limits}}<h2>Limits</h2>
<p class="notes">{{.Period}}; every amount is money at risk.</p>
<table class="limits">
<thead><tr><th></th><th class="n">{{if .Plan}}Already{{else}}Used{{end}}</th>{{if .Plan}}<th class="n">After this run</th>{{end}}<th class="n">Limit</th></tr></thead>
<tbody>{{$plan := .Plan}}{{range .Limits}}
<tr><td>{{.Name}}</td><td class="n">{{.Used}}</td>{{if $plan}}<td class="n">{{.After}}</td>{{end}}<td class="n{{if .Over}} bad{{end}}">{{.Limit}}</td></tr>{{end}}
</tbody>
</table>
{{end}}{{if .Account}}<h2>Account limits</h2>
<p class="notes">{{.AccountTitle}}; every amount is money at risk.</p>
<table class="limits">
<thead><tr><th></th><th class="n">{{if .Plan}}Already{{else}}Used{{end}}</th>{{if .Plan}}<th class="n">After this run</th>{{end}}<th class="n">Limit</th></tr></thead>
<tbody>{{$plan := .Plan}}{{range .Account}}
<tr><td>{{.Name}}</td><td class="n">{{.Used}}</td>{{if $plan}}<td class="n">{{.After}}</td>{{end}}<td class="n{{if .Over}} bad{{end}}">{{.Limit}}</td></tr>{{end}}
</tbody>
</table>
{{end}}{{if or .Bets (not .Tips)}}<h2>Bets</h2>
{{if .Bets}}<table>
<thead><tr><th>Bet</th><th>Race</th><th>Start</th><th>Selection</th><th>Market</th><th class="n">Stake</th><th class="n">At risk</th>{{if .Plan}}<th>Action</th>{{end}}<th>Status</th>{{if not .Plan}}<th class="n">Odds</th><th class="n">Accepted</th><th class="n">Return</th><th class="n">Profit</th>{{end}}</tr></thead>
<tbody>{{$plan := .Plan}}{{range .Bets}}
<tr class="bet" id="bet-{{.ID}}"><td class="id">{{.ID}}</td><td class="race">{{.Race}}<div class="why">{{.Day}}</div></td><td class="nw">{{.Start}}</td><td>{{.Selection}}</td><td class="nw">{{.Market}}</td><td class="n">{{.Stake}}</td><td class="n">{{.AtRisk}}</td>{{if $plan}}<td><span class="badge {{.ActionClass}}">{{.Action}}</span></td>{{end}}<td><span class="badge {{.StatusClass}}">{{.Status}}</span></td>{{if not $plan}}<td class="n">{{.Odds}}</td><td class="n">{{.Accepted}}</td><td class="n">{{.Return}}</td><td class="n {{.ProfitClass}}">{{.Profit}}</td>{{end}}</tr>
<tr class="detail"><td></td><td colspan="{{if $plan}}8{{else}}11{{end}}">{{if or .Reason .ReasonCode}}<div class="why">{{if .ReasonCode}}<code class="reason">{{.ReasonCode}}</code> {{end}}{{.Reason}}</div>{{end}}{{if .Placed}}<div class="why">{{.Placed}}</div>{{end}}{{if .AtRiskNote}}<div class="why">{{.AtRiskNote}}</div>{{end}}{{if .Error}}<div class="err"><strong>error:</strong> {{.Error}}</div>{{end}}<details{{if .Open}} open="open"{{end}}><summary>label, notification{{if .Records}}, {{len .Records}} session{{if ne (len .Records) 1}}s{{end}}{{end}}</summary>
<dl><dt>label</dt><dd><code>{{.Label}}</code></dd><dt>bet type</dt><dd>{{.Type}}</dd><dt>race code</dt><dd>{{.Code}}</dd><dt>notification</dt><dd>{{if .Notification}}{{.Notification}}{{else}}none{{end}}</dd></dl>
{{if .Records}}<table class="records">
<thead><tr><th>Session</th><th>Result</th><th class="n">Amount</th><th class="n">Odds</th><th>Status</th><th class="n">Profit</th></tr></thead>
<tbody>{{range .Records}}
<tr><td>{{.Session}}</td><td><span class="badge {{.ResultClass}}">{{.Result}}</span>{{if .Error}} <span class="err">{{.Error}}</span>{{end}}</td><td class="n">{{.Amount}}</td><td class="n">{{.Odds}}</td><td>{{.Status}}</td><td class="n {{.ProfitClass}}">{{.Profit}}</td></tr>{{end}}
</tbody>
</table>
{{end}}</details></td></tr>{{end}}
</tbody>
</table>
{{range .Notes}}<p class="notes">{{.}}</p>
{{end}}{{else}}<p>No bets.</p>
{{end}}{{end}}{{if .Sessions}}<h2>Sessions</h2>
<table>
<thead><tr><th>Session</th><th class="n">Bets</th><th class="n">Accepted</th><th class="n">Errors</th><th class="n">In review</th><th class="n">Amount</th><th class="n">Profit</th></tr></thead>
<tbody>{{range .Sessions}}
<tr><td>{{sessionName .Bookie .Name}}</td><td class="n">{{.Bets}}</td><td class="n">{{.Accepted}}</td><td class="n{{if .Errors}} bad{{end}}">{{.Errors}}</td><td class="n">{{.InReview}}</td><td class="n">{{dollars .Amount}}</td><td class="n {{profitClass .Profit}}">{{signed .Profit}}</td></tr>{{end}}
</tbody>
</table>
{{end}}{{if .Tips}}<h2>Tips</h2>
<p>{{.TipCounts}}{{if .TipRecord}}; {{.TipRecord}}{{end}}</p>
<table>
<thead><tr><th>Tip</th><th>Race</th><th>Start</th><th>Selection</th><th>Market</th><th class="n">Units</th><th class="n">Odds</th>{{if .Plan}}<th>Action</th>{{end}}<th>Status</th>{{if not .Plan}}<th>Published</th><th class="n">Result</th>{{end}}</tr></thead>
<tbody>{{$plan := .Plan}}{{range .Tips}}
<tr class="bet" id="tip-{{.ID}}"><td class="id">{{.ID}}</td><td class="race">{{.Race}}</td><td>{{.Start}}</td><td>{{.Selection}}</td><td class="nw">{{.Market}}</td><td class="n">{{.Units}}</td><td class="n">{{.Odds}}</td>{{if $plan}}<td><span class="badge {{.ActionClass}}">{{.Action}}</span></td>{{end}}<td><span class="badge {{.StatusClass}}">{{.Status}}</span></td>{{if not $plan}}<td>{{.Published}}</td><td class="n {{.ResultClass}}">{{.Result}}</td>{{end}}</tr>
{{if or .Reason .Error}}<tr class="detail"><td></td><td colspan="{{if $plan}}8{{else}}9{{end}}">{{if .Reason}}<div class="why">{{.Reason}}</div>{{end}}{{if .Error}}<div class="err"><strong>error:</strong> {{.Error}}</div>{{end}}</td></tr>
{{end}}{{end}}</tbody>
</table>
{{if .Prealerts}}<h2>Pre-alerts</h2>
<ul>{{range .Prealerts}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .Assumptions}}<h2>What was assumed</h2>
<ul class="notes">{{range .Assumptions}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{end}}{{if .Venues}}<h2>By venue</h2>
{{template "groups" .Venues}}{{end}}{{if .Days}}<h2>By meeting day</h2>
{{template "groups" .Days}}{{end}}<h2>Details</h2>
<dl>{{range .Facts}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
</body>
</html>
{{define "groups"}}<table class="limits">
<thead><tr><th></th><th class="n">Bets</th><th class="n">Accepted</th><th class="n">Profit</th></tr></thead>
<tbody>{{range .}}
<tr><td>{{.Name}}</td><td class="n">{{.Bets}}</td><td class="n">{{dollars .Accepted}}</td><td class="n {{profitClass .Profit}}">{{signed .Profit}}</td></tr>{{end}}
</tbody>
</table>
{{end}}`))

type htmlTip struct {
	ID, Race, Start, Selection, Market, Units, Odds, MaxOdds string
	Status, StatusClass, Action, ActionClass                 string
	Reason, Error, Published, Result, ResultClass            string
}

func newHTMLTips(r *engine.Result) []htmlTip {
	out := make([]htmlTip, len(r.Tips))
	for i := range r.Tips {
		tip := &r.Tips[i]
		out[i] = htmlTip{
			ID: tip.ID, Race: raceName(tip.Race), Start: startClock(tip.Race), Selection: tip.Selection, Market: tip.Market,
			Units: strconv.FormatFloat(tip.AmountUnits, 'f', -1, 64), Odds: oddsWords(tip.Odds), MaxOdds: oddsWords(tip.MaxOdds),
			Status: string(tip.Status), StatusClass: toneClass[tipTone(tip)],
			Action: string(tip.Action), ActionClass: toneClass[actionTone(tip.Action)],
			Reason: tip.Reason, Published: publishedWords(tip), Result: tipResultWords(tip), ResultClass: toneClass[tipTone(tip)],
		}
		if tip.Error != "" && !strings.Contains(tip.Reason, tip.Error) {
			out[i].Error = tip.Error
		}
	}
	return out
}

func newHTMLPrealerts(r *engine.Result) []string {
	out := make([]string, len(r.Prealerts))
	for i, p := range r.Prealerts {
		out[i] = prealertWords(p)
	}
	return out
}
