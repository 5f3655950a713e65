package reporters

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
)

// WriteSummaryHTML writes the summary across plans as one self-contained
// page: a row per plan, linking to that plan's report.html in the folder
// beside it (as --report-dir lays them out), and the account's row.
func WriteSummaryHTML(w io.Writer, s *Summary) error {
	bw := bufio.NewWriter(w)
	if err := summaryHTMLTemplate.Execute(bw, s); err != nil {
		return fmt.Errorf("render HTML summary: %w", err)
	}
	return bw.Flush()
}

var summaryHTMLTemplate = template.Must(template.New("summary").Funcs(template.FuncMap{
	"dollars":        dollars,
	"signed":         signedDollars,
	"profitClass":    func(v float64) string { return toneClass[profitTone(v)] },
	"open":           Totals.open,
	"trouble":        Totals.trouble,
	"cancelled":      Totals.cancelled,
	"simulatedWords": func() string { return simulatedWords },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>betplan {{.Kind}}: {{len .Plans}} plans</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 12px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
th { background: #f6f8fa; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: #59636e; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.account td { font-weight: 600; border-top: 2px solid #d1d9e0; }
.good { color: #116329; }
.bad { color: #a40e26; }
.err { color: #82071e; font-size: 13px; margin-top: 2px; overflow-wrap: anywhere; }
.banner { border-radius: 6px; padding: 10px 14px; margin: 12px 0; background: #ddf4ff; border: 1px solid #54aeff66; color: #0a3069; }
</style>
</head>
<body>
<h1>betplan {{.Kind}}: {{len .Plans}} plans</h1>
{{if .Simulated}}<div class="banner">{{simulatedWords}}</div>
{{end -}}
<table>
<thead><tr><th>Plan</th><th class="n">Bets</th><th class="n">Settled</th><th class="n">Open</th><th class="n">Waiting</th><th class="n">Failed</th><th class="n">Cancelled</th><th class="n">Stake</th><th class="n">At risk</th><th class="n">Accepted</th><th class="n">Profit</th><th>Ended</th></tr></thead>
<tbody>
{{- range .Plans}}
<tr><td><a href="{{.Name}}/report.html">{{.Name}}</a>{{if .Error}}<div class="err">{{.Error}}</div>{{end}}</td><td class="n">{{.Totals.Bets}}</td><td class="n">{{.Totals.ByStatus.Settled}}</td><td class="n">{{open .Totals}}</td><td class="n">{{.Totals.ByStatus.Waiting}}</td><td class="n">{{trouble .Totals}}</td><td class="n">{{cancelled .Totals}}</td><td class="n">{{dollars .Totals.StakeRequested}}</td><td class="n">{{dollars .Totals.AtRisk}}</td><td class="n">{{dollars .Totals.AmountAccepted}}</td><td class="n {{profitClass .Totals.Profit}}">{{signed .Totals.Profit}}</td><td>{{.EndReason}}</td></tr>
{{- end}}
<tr class="account"><td>account</td><td class="n">{{.Account.Bets}}</td><td class="n">{{.Account.ByStatus.Settled}}</td><td class="n">{{open .Account}}</td><td class="n">{{.Account.ByStatus.Waiting}}</td><td class="n">{{trouble .Account}}</td><td class="n">{{cancelled .Account}}</td><td class="n">{{dollars .Account.StakeRequested}}</td><td class="n">{{dollars .Account.AtRisk}}</td><td class="n">{{dollars .Account.AmountAccepted}}</td><td class="n {{profitClass .Account.Profit}}">{{signed .Account.Profit}}</td><td></td></tr>
</tbody>
</table>
</body>
</html>
`))
