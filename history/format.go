package history

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/betplan/betplan/internal/printable"
)

// Formats are the formats history writes.
var Formats = []string{"text", "json", "csv", "markdown", "html"}

// Write writes s in format f.
func Write(w io.Writer, f string, s *Summary) error {
	switch f {
	case "json":
		return WriteJSON(w, s)
	case "csv":
		return WriteCSV(w, s)
	case "markdown":
		return WriteMarkdown(w, s)
	case "html":
		return WriteHTML(w, s)
	}
	return WriteText(w, s)
}

// measuresJSON is MEASURES of the JSON contract, its keys in contract
// order.
type measuresJSON struct {
	Bets             int      `json:"bets"`
	Settled          int      `json:"settled"`
	Won              int      `json:"won"`
	Lost             int      `json:"lost"`
	Void             int      `json:"void"`
	Refused          int      `json:"refused"`
	Accepted         float64  `json:"accepted"`
	Profit           float64  `json:"profit"`
	ROI              *float64 `json:"roi"`
	StrikeRate       *float64 `json:"strike_rate"`
	AverageOdds      *float64 `json:"average_odds"`
	MaxDrawdown      float64  `json:"max_drawdown"`
	LongestLosingRun int      `json:"longest_losing_run"`
	BestDay          *dayJSON `json:"best_day"`
	WorstDay         *dayJSON `json:"worst_day"`
	Units            *float64 `json:"units,omitempty"`
	// Under --by reason only.
	NotCreated *int     `json:"not_created,omitempty"`
	Unplaced   *float64 `json:"unplaced,omitempty"`
}

type dayJSON struct {
	Day    string  `json:"day"`
	Profit float64 `json:"profit"`
}

func round(v *float64, places int) *float64 {
	if v == nil {
		return nil
	}
	p := math.Pow(10, float64(places))
	r := math.Round(*v*p) / p
	return &r
}

// jsonOf is m as the JSON contract has it; reasons adds what --by
// reason shows.
func (m *Measures) jsonOf(reasons bool) measuresJSON {
	j := m.json()
	if reasons {
		n, u := m.NotCreated, Dollars(m.Unplaced)
		j.NotCreated, j.Unplaced = &n, &u
	}
	return j
}

func (m *Measures) json() measuresJSON {
	day := func(d *DayProfit) *dayJSON {
		if d == nil {
			return nil
		}
		return &dayJSON{d.Day, Dollars(d.Profit)}
	}
	return measuresJSON{
		Bets: m.Bets, Settled: m.Settled, Won: m.Won, Lost: m.Lost, Void: m.Void, Refused: m.Refused,
		Accepted: Dollars(m.Accepted), Profit: Dollars(m.Profit),
		ROI: round(m.ROI(), 4), StrikeRate: round(m.StrikeRate(), 4), AverageOdds: round(m.AverageOdds(), 4),
		MaxDrawdown: Dollars(m.MaxDrawdown), LongestLosingRun: m.LongestLosingRun,
		BestDay: day(m.BestDay), WorstDay: day(m.WorstDay), Units: round(m.Units, 2),
	}
}

// WriteJSON writes the JSON contract: {"rows": [ROW...], "total":
// MEASURES}, each ROW its --by keys then MEASURES, and "skipped" naming
// the journals left out when there are any.
func WriteJSON(w io.Writer, s *Summary) error {
	var b bytes.Buffer
	b.WriteString("{\n  \"rows\": [")
	for i, r := range s.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    {")
		for _, f := range s.By {
			k, _ := json.Marshal(f)
			v, _ := json.Marshal(r.Keys[f])
			fmt.Fprintf(&b, "%s:%s,", k, v)
		}
		m, err := json.Marshal(r.Measures.jsonOf(s.Reasons))
		if err != nil {
			return err
		}
		b.Write(m[1:])
	}
	if len(s.Rows) > 0 {
		b.WriteString("\n  ")
	}
	t, err := json.Marshal(s.Total.jsonOf(s.Reasons))
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "],\n  \"total\": %s", t)
	if s.Reconciled {
		d := s.Differences
		if d == nil {
			d = []Difference{}
		}
		dj, err := json.Marshal(d)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, ",\n  \"differences\": %s", dj)
		if s.Read != nil {
			rj, err := json.Marshal(s.Read)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, ",\n  \"reconcile\": %s", rj)
		}
	}
	if len(s.Skipped) > 0 {
		sk, err := json.Marshal(s.Skipped)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, ",\n  \"skipped\": %s", sk)
	}
	b.WriteString("\n}\n")
	_, err = w.Write(b.Bytes())
	return err
}

// MarshalJSON names a skipped journal's fields as the contract does.
func (k Skipped) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Journal string `json:"journal"`
		Reason  string `json:"reason"`
	}{k.Where, k.Reason})
}

// csvHeader is the measures' columns, in contract order.
var csvHeader = []string{"bets", "settled", "won", "lost", "void", "refused", "accepted", "profit", "roi", "strike_rate",
	"average_odds", "max_drawdown", "longest_losing_run", "best_day", "best_day_profit", "worst_day", "worst_day_profit", "units"}

// WriteCSV writes a header row of the --by fields and the measures, then
// one row per group; null is an empty cell. The total is not a row: it is
// the sum a spreadsheet makes of them (less the drawdown and streaks).
// Text cells are kept from being formulas (csvText); the numbers betplan
// writes itself are left as they are.
func WriteCSV(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	header := append(append([]string(nil), s.By...), csvHeader...)
	if s.Reasons {
		header = append(header, csvReasonHeader...)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range s.Rows {
		rec := make([]string, 0, len(header))
		for _, f := range s.By {
			rec = append(rec, csvText(r.Keys[f]))
		}
		rec = append(rec, measureCells(&r.Measures)...)
		if s.Reasons {
			rec = append(rec, strconv.Itoa(r.NotCreated), money(Dollars(r.Unplaced)))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvText is a text cell as a spreadsheet shows it, never runs it. A
// cell that begins with =, +, - or @, or with a tab or a carriage return,
// is a formula to Excel, LibreOffice or Google Sheets (a venue called
// =cmd|' /C calc'!A0, a session called +1+2): such a cell starts with a
// ' instead, which they show as text (OWASP's CSV injection guidance). So
// does one where =, +, - or @ comes after spaces or line breaks, which an
// import may trim. Text comes from the service, a journal or the
// database; the numbers betplan writes never pass here.
func csvText(v string) string {
	if v == "" {
		return v
	}
	if strings.ContainsAny(v[:1], "\t\r") {
		return "'" + v
	}
	if t := strings.TrimLeft(v, " \t\r\n"); t != "" && strings.ContainsAny(t[:1], "=+-@") {
		return "'" + v
	}
	return v
}

// csvReasonHeader are the columns --by reason adds.
var csvReasonHeader = []string{"not_created", "unplaced"}

// measureCells are m's CSV cells: numbers as betplan writes them, and
// the best and worst days, text.
func measureCells(m *Measures) []string {
	j := m.json()
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	day := func(d *dayJSON) (string, string) {
		if d == nil {
			return "", ""
		}
		return csvText(d.Day), money(d.Profit)
	}
	bd, bp := day(j.BestDay)
	wd, wp := day(j.WorstDay)
	return []string{strconv.Itoa(j.Bets), strconv.Itoa(j.Settled), strconv.Itoa(j.Won), strconv.Itoa(j.Lost), strconv.Itoa(j.Void),
		strconv.Itoa(j.Refused), money(j.Accepted), money(j.Profit), num(j.ROI), num(j.StrikeRate), num(j.AverageOdds),
		money(j.MaxDrawdown), strconv.Itoa(j.LongestLosingRun), bd, bp, wd, wp, num(j.Units)}
}

func money(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// textColumns are the measures a table shows.
var textColumns = []string{"BETS", "SETTLED", "WON", "LOST", "VOID", "REFUSED", "ACCEPTED", "PROFIT", "ROI", "STRIKE", "AVG ODDS", "MAX DD", "LOSE RUN"}

// reasonColumns are the measures a table by reason shows too: the bets
// not created, and what the bets not placed or not created meant to bet.
var reasonColumns = []string{"NOT CREATED", "UNPLACED"}

// columns are the measures s's table shows.
func (s *Summary) columns() []string {
	if s.Reasons {
		return slices.Concat(textColumns, reasonColumns)
	}
	return textColumns
}

// cells are m's cells in s's table.
func (s *Summary) cells(m *Measures) []string {
	c := tableCells(m)
	if s.Reasons {
		c = append(c, strconv.Itoa(m.NotCreated), "$"+money(Dollars(m.Unplaced)))
	}
	return c
}

func tableCells(m *Measures) []string {
	j := m.json()
	pct := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", *v*100)
	}
	odds := "-"
	if j.AverageOdds != nil {
		odds = fmt.Sprintf("%.2f", *j.AverageOdds)
	}
	return []string{strconv.Itoa(j.Bets), strconv.Itoa(j.Settled), strconv.Itoa(j.Won), strconv.Itoa(j.Lost), strconv.Itoa(j.Void),
		strconv.Itoa(j.Refused), "$" + money(j.Accepted), signed(j.Profit), pct(j.ROI), pct(j.StrikeRate), odds,
		"$" + money(j.MaxDrawdown), strconv.Itoa(j.LongestLosingRun)}
}

func signed(v float64) string {
	if v < 0 {
		return "-$" + money(-v)
	}
	return "+$" + money(v)
}

// keyCell is a row's key as people read it.
func keyCell(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// WriteText writes the table, its total, the total's best and worst days
// and the journals left out.
func WriteText(w io.Writer, s *Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := append(upper(s.By), s.columns()...)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range s.Rows {
		var cells []string
		for _, f := range s.By {
			cells = append(cells, printable.Text(keyCell(r.Keys[f])))
		}
		fmt.Fprintln(tw, strings.Join(append(cells, s.cells(&r.Measures)...), "\t")+"\t")
	}
	total := make([]string, len(s.By))
	total[0] = "TOTAL"
	fmt.Fprintln(tw, strings.Join(append(total, s.cells(&s.Total)...), "\t")+"\t")
	if err := tw.Flush(); err != nil {
		return err
	}
	footer(w, s, "", printable.Text)
	return nil
}

func upper(fs []string) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = strings.ToUpper(f)
	}
	return out
}

// writeFooter says the total's best and worst days, its units, and which
// journals were left out; prefix starts each line.
func writeFooter(w io.Writer, s *Summary, prefix string) {
	footer(w, s, prefix, func(v string) string { return v })
}

// footer is writeFooter with text from outside betplan (days, journals'
// names, labels, reasons) shown by show: printable.Text or
// printable.Markdown.
func footer(w io.Writer, s *Summary, prefix string, show func(string) string) {
	j := s.Total.json()
	if j.BestDay != nil {
		fmt.Fprintf(w, "%sbest day %s %s, worst day %s %s\n", prefix, show(j.BestDay.Day), signed(j.BestDay.Profit), show(j.WorstDay.Day), signed(j.WorstDay.Profit))
	}
	if j.Units != nil {
		fmt.Fprintf(w, "%stipped units: %+.2f at the published odds\n", prefix, *j.Units)
	}
	for _, k := range s.Skipped {
		fmt.Fprintf(w, "%sskipped journal %s: %s\n", prefix, show(k.Where), show(k.Reason))
	}
	if r := s.Read; s.Reconciled && r != nil {
		fmt.Fprintf(w, "%s%s\n", prefix, show(r.words()))
	}
	if s.Reconciled && len(s.Differences) == 0 {
		fmt.Fprintf(w, "%sreconciled: the journals agree with the service's bet records\n", prefix)
	}
	for _, d := range s.Differences {
		plan := ""
		if d.Plan != "" {
			plan = " (" + show(d.Plan) + ")"
		}
		fmt.Fprintf(w, "%sdifference %s %s%s: %s\n", prefix, d.Kind, show(d.Label), plan, show(d.Words))
	}
}

// WriteMarkdown writes the table as a Markdown table.
func WriteMarkdown(w io.Writer, s *Summary) error {
	head := append(upper(s.By), s.columns()...)
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat(" --- |", len(head)))
	row := func(keys []string, m *Measures) {
		fmt.Fprintf(w, "| %s |\n", strings.Join(append(keys, s.cells(m)...), " | "))
	}
	for _, r := range s.Rows {
		var keys []string
		for _, f := range s.By {
			keys = append(keys, printable.Markdown(keyCell(r.Keys[f])))
		}
		row(keys, &r.Measures)
	}
	total := make([]string, len(s.By))
	total[0] = "**TOTAL**"
	row(total, &s.Total)
	fmt.Fprintln(w)
	footer(w, s, "- ", printable.Markdown)
	return nil
}
