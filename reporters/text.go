package reporters

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/printable"
)

// TextOptions shape the terminal report.
type TextOptions struct {
	// Color turns on ANSI colours. The caller decides, from whether the
	// output is a terminal and NO_COLOR.
	Color bool
	// Width is the most columns a line may take, a terminal's width; 0
	// is no limit (a file or a pipe: nothing is ever cut).
	Width int
	// Brief keeps a bet to its row: only an error, and the first bet each
	// limit refused, say more (a folder of plans at a glance; the plan
	// alone, or --verbose, says everything).
	Brief bool
}

// unlimited is the width of output that is not a terminal.
const unlimited = 1 << 20

// WriteText writes the terminal report: a header, one row per bet (with the
// reason and any session that did not succeed under it), the sessions, and
// the totals last, every line at most opts.Width columns.
func WriteText(w io.Writer, r *engine.Result, opts TextOptions) error {
	if opts.Width <= 0 {
		opts.Width = unlimited
	}
	t := &textWriter{w: bufio.NewWriter(w), opts: opts}
	t.header(r)
	if r.Kind == engine.KindPlan {
		t.planTable(r)
		if len(r.Bets) > 0 || len(r.Tips) == 0 {
			t.limits(r)
		}
	} else {
		t.betTable(r)
		t.sessions(r)
		t.limits(r)
	}
	t.tipTable(r)
	t.alerts(r)
	t.totals(r)
	return t.w.Flush()
}

type textWriter struct {
	w    *bufio.Writer
	opts TextOptions
}

var ansi = map[tone]string{
	toneGood: "\x1b[32m",
	toneBad:  "\x1b[31m",
	toneWarn: "\x1b[33m",
	toneBusy: "\x1b[36m",
	toneDim:  "\x1b[2m",
}

const ansiBold, ansiReset = "\x1b[1m", "\x1b[0m"

func (t *textWriter) paint(s string, tn tone) string {
	if !t.opts.Color || ansi[tn] == "" || s == "" {
		return s
	}
	return ansi[tn] + s + ansiReset
}

func (t *textWriter) bold(s string) string {
	if !t.opts.Color || s == "" {
		return s
	}
	return ansiBold + s + ansiReset
}

// line writes s, shown through the one sanitiser of human output and cut
// to the width; its colour is the tone's alone.
func (t *textWriter) line(s string, tn tone) {
	t.w.WriteString(t.paint(truncate(printable.Text(s), t.opts.Width), tn))
	t.w.WriteByte('\n')
}

func (t *textWriter) header(r *engine.Result) {
	title := "betplan " + kindTitle(r) + ": " + r.PlanName
	if r.Kind == engine.KindPlan {
		title += " (what run would do now)"
	}
	if r.Simulated {
		title += " [simulated service]"
	}
	t.w.WriteString(t.bold(truncate(printable.Text(title), t.opts.Width)) + "\n")
	planLine := r.PlanFile
	if r.PlanHash != "" {
		planLine += " (" + shortHash(r.PlanHash) + ")"
	}
	if r.Version != "" {
		planLine += ", betplan " + r.Version
	}
	t.fact("plan", strings.TrimPrefix(planLine, ", "), tonePlain)
	t.fact("service", r.BaseURL, tonePlain)
	when := span(r)
	if r.EndReason != "" && !readOnly(r) {
		when += ", ended: " + string(r.EndReason)
	}
	t.fact("time", strings.TrimPrefix(when, ", "), tonePlain)
	t.fact("running", runningWords(r), toneBusy)
	t.fact("error", oneLine(r.Error), toneBad)
	t.w.WriteByte('\n')
}

func (t *textWriter) fact(name, value string, tn tone) {
	if value != "" {
		t.line(fmt.Sprintf("%-8s %s", name, value), tn)
	}
}

// wrap writes words as lines of at most the width, separated by sep and
// continuing lines with indent; each word keeps its own tone.
func (t *textWriter) wrap(words []cell, sep, indent string) {
	n := 0
	trail := len(strings.TrimRight(sep, " "))
	for i, w := range words {
		text := truncate(printable.Text(w.text), t.opts.Width-len(indent))
		if i > 0 {
			// Leave room for the separator a line ends with when it breaks.
			room := t.opts.Width
			if i < len(words)-1 {
				room -= trail
			}
			if n+len(sep)+utf8.RuneCountInString(text) > room {
				t.w.WriteString(strings.TrimRight(sep, " ") + "\n" + indent)
				n = len(indent)
			} else {
				t.w.WriteString(sep)
				n += len(sep)
			}
		}
		t.w.WriteString(t.paint(text, w.tone))
		n += utf8.RuneCountInString(text)
	}
	t.w.WriteByte('\n')
}

func (t *textWriter) betTable(r *engine.Result) {
	anyProvisional := false
	t.bets(r, []column{
		{title: "STATUS"},
		{title: "ACCEPTED", right: true, drop: 1},
		{title: "PROFIT", right: true},
	}, func(b *engine.BetResult) []cell {
		anyProvisional = anyProvisional || provisional(b)
		return []cell{
			{text: statusCell(b, outcome(b)), tone: outcomeTone(b)},
			{text: acceptedWords(b)},
			{text: profitWords(b), tone: profitTone(b.Profit)},
		}
	}, func() {
		if anyProvisional {
			t.line("* provisional: the race is not finally resulted yet", toneDim)
		}
	})
}

// bets writes one table of r's bets: the columns every bet table starts
// with, then extra, whose cells more gives; footnotes come under it.
func (t *textWriter) bets(r *engine.Result, extra []column, more func(*engine.BetResult) []cell, footnotes func()) {
	if len(r.Bets) == 0 {
		if len(r.Tips) > 0 {
			return // a tipster's plan
		}
		t.line("No bets.", tonePlain)
		t.w.WriteByte('\n')
		return
	}
	cols := append(betColumns(), extra...)
	rows := make([]row, len(r.Bets))
	said := saidOnce{common: commonAtRisk(r.Bets), limits: map[string]string{}, brief: t.opts.Brief}
	for i := range r.Bets {
		b := &r.Bets[i]
		rows[i] = row{cells: append(betCells(b), more(b)...), notes: said.notes(b)}
	}
	t.table(cols, rows)
	if said.common != "" {
		t.line(oneLine("at risk of each bet: "+said.common), toneDim)
	}
	if footnotes != nil {
		footnotes()
	}
	if anyTargetProfit(r) {
		t.line("tp: target profit, the stake is sized to win this", toneDim)
	}
	t.w.WriteByte('\n')
}

// saidOnce keeps what a table of bets said already, so each thing is said
// once: how every bet's risk was worked out when they share it (common,
// said under the table), and each limit's refusal at the first bet it
// refused.
type saidOnce struct {
	common string
	limits map[string]string // a limit's key → the first bet it refused
	brief  bool
}

// commonAtRisk is the basis of at risk of every bet when they all share
// one and it needs saying (atRiskNote); "" otherwise.
func commonAtRisk(bets []engine.BetResult) string {
	if len(bets) < 2 {
		return ""
	}
	common := ""
	for i := range bets {
		b := &bets[i]
		if atRiskNote(b) == "" || (common != "" && b.AtRiskBasis != common) {
			return ""
		}
		common = b.AtRiskBasis
	}
	return common
}

// notes are the lines under a bet: why it has its status, its error, and
// each session that did not simply succeed, each said once.
func (s *saidOnce) notes(b *engine.BetResult) []cell {
	var notes []cell
	if b.Reason != "" || b.Why.Code != "" {
		why := b.Why
		first, seen := s.limits[why.LimitKey()]
		switch {
		case why.Limit != "" && seen:
			notes = append(notes, cell{text: "↳ [" + reasonCode(b) + "] refused by the same limit as " + first + " (" + why.LimitKey() + ")"})
		case why.Limit != "":
			s.limits[why.LimitKey()] = b.InstanceID
			notes = append(notes, cell{text: "↳ " + reasonLine(b)})
		case !s.brief:
			notes = append(notes, cell{text: "↳ " + reasonLine(b)})
		}
	}
	if s.brief {
		if b.Error != "" {
			notes = append(notes, cell{text: "error: " + oneLine(b.Error), tone: toneBad})
		}
		return notes
	}
	if p := placedWords(b); p != "" {
		notes = append(notes, cell{text: oneLine(p), tone: toneDim})
	}
	if a := atRiskNote(b); a != "" && s.common == "" {
		notes = append(notes, cell{text: oneLine(a), tone: toneDim})
	}
	if b.Error != "" {
		notes = append(notes, cell{text: "error: " + oneLine(b.Error), tone: toneBad})
	}
	for _, rec := range b.Records {
		if strings.EqualFold(rec.SubmitResult, "Success") {
			continue
		}
		tn := toneWarn
		if strings.EqualFold(rec.SubmitResult, "Error") {
			tn = toneBad
		}
		notes = append(notes, cell{text: "session " + recordWords(rec), tone: tn})
	}
	return notes
}

func (t *textWriter) planTable(r *engine.Result) {
	t.bets(r, []column{
		{title: "ACTION"},
		{title: "STATUS", drop: 1},
	}, func(b *engine.BetResult) []cell {
		return []cell{
			{text: string(b.Action), tone: actionTone(b.Action)},
			{text: statusCell(b, statusWords(b.Status)), tone: statusTone(b)},
		}
	}, nil)
}

// betColumns are the columns every bet table starts with: what the bet is.
func betColumns() []column {
	return []column{
		{title: "BET", wrap: 24}, // never cut: it is what cancel takes
		{title: "RACE", flex: true, min: 13},
		{title: "START", drop: 2},
		{title: "SELECTION", flex: true, min: 6},
		{title: "MARKET", flex: true, min: 11, drop: 3},
		{title: "STAKE", right: true},
		{title: "AT RISK", right: true},
	}
}

// betCells fills betColumns for one bet.
func betCells(b *engine.BetResult) []cell {
	return []cell{
		{text: rowID(b)},
		raceCell(b.Race),
		{text: startClock(b.Race)},
		{text: b.Selection},
		{text: marketWords(b)},
		{text: stakeWords(b)},
		{text: atRiskWords(b)},
	}
}

func raceCell(r engine.RaceInfo) cell {
	c := cell{text: raceName(r)}
	if r.EventNumber > 0 {
		c.tail = " R" + strconv.Itoa(r.EventNumber)
	}
	return c
}

func anyTargetProfit(r *engine.Result) bool {
	for i := range r.Bets {
		if r.Bets[i].Stake == nil && r.Bets[i].TargetProfit != nil {
			return true
		}
	}
	return false
}

func (t *textWriter) sessions(r *engine.Result) {
	ss := sessions(r)
	if len(ss) == 0 {
		return
	}
	cols := []column{
		{title: "SESSION", flex: true, min: 12},
		{title: "BETS", right: true},
		{title: "ACCEPTED", right: true},
		{title: "ERRORS", right: true, drop: 2},
		{title: "IN REVIEW", right: true, drop: 1},
		{title: "AMOUNT", right: true},
		{title: "PROFIT", right: true},
	}
	rows := make([]row, len(ss))
	for i, s := range ss {
		errTone := tonePlain
		if s.Errors > 0 {
			errTone = toneBad
		}
		rows[i] = row{cells: []cell{
			{text: sessionName(s.Bookie, s.Name)},
			{text: strconv.Itoa(s.Bets)},
			{text: strconv.Itoa(s.Accepted)},
			{text: strconv.Itoa(s.Errors), tone: errTone},
			{text: strconv.Itoa(s.InReview)},
			{text: dollars(s.Amount)},
			{text: signedDollars(s.Profit), tone: profitTone(s.Profit)},
		}}
	}
	t.table(cols, rows)
	t.w.WriteByte('\n')
}

// limits writes the plan's limits and what is used of each, in the
// periods the report's bets are in. A run's report shows what is used; a
// preview adds what it would create.
func (t *textWriter) limits(r *engine.Result) {
	l := r.Limits
	if r.Kind != engine.KindPlan && !l.Any() {
		return
	}
	t.w.WriteString(t.bold("LIMITS") + " " + truncate(printable.Text(l.PeriodTitle()), t.opts.Width-len("LIMITS ")) + "\n")
	cols := []column{{title: "", flex: true, min: 12}, {title: "USED", right: true}}
	if r.Kind == engine.KindPlan {
		cols = append(cols, column{title: "AFTER THIS RUN", right: true})
	}
	cols = append(cols, column{title: "LIMIT", right: true})
	t.limitTable(r, cols, planLimits(r))
	t.accountLimits(r, cols)
}

// accountLimits writes the account's limits and what every plan sharing
// the state uses of them, in the columns of the plan's.
func (t *textWriter) accountLimits(r *engine.Result, cols []column) {
	a := r.Account
	if a == nil {
		return
	}
	t.w.WriteString(t.bold("ACCOUNT LIMITS") + " " + truncate(printable.Text(accountTitle(a)), t.opts.Width-len("ACCOUNT LIMITS ")) + "\n")
	if a.Unread != "" {
		t.line("  not counted: "+a.Unread, tonePlain)
	}
	t.limitTable(r, cols, accountLimits(r))
}

// limitTable writes limit rows in cols: what a preview would leave after
// it in its own column, a limit passed in the bad tone.
func (t *textWriter) limitTable(r *engine.Result, cols []column, limits []limitRow) {
	var rows []row
	for _, lr := range limits {
		cells := []cell{{text: lr.Name}, {text: lr.Used}}
		if r.Kind == engine.KindPlan {
			cells = append(cells, cell{text: lr.After})
		}
		tn := tonePlain
		if lr.Over {
			tn = toneBad
		}
		cells = append(cells, cell{text: lr.Limit, tone: tn})
		rows = append(rows, row{cells: cells})
	}
	t.table(cols, rows)
	t.w.WriteByte('\n')
}

func (t *textWriter) totals(r *engine.Result) {
	d := newTotals(r)
	t.w.WriteString(t.bold("TOTALS") + "\n")
	t.tipTotals(r)
	if len(r.Bets) == 0 && len(r.Tips) > 0 {
		return
	}
	if r.Kind == engine.KindPlan {
		t.wrap(countWords(d.Bets, actionCounts(r)), ", ", "  ")
		return
	}
	t.wrap(countWords(d.Bets, statusCounts(r)), ", ", "  ")
	t.wrap([]cell{
		{text: "requested " + dollars(d.StakeRequested)},
		{text: "at risk " + dollars(d.AtRisk)},
		{text: "accepted " + dollars(d.AmountAccepted)},
		{text: "profit " + signedDollars(d.Profit), tone: profitTone(d.Profit)},
		{text: "return " + percent(d.ReturnOnStake)},
	}, "  ", "")
}

// countWords is "14 bets: 1 waiting, 5 settled" split at its commas.
func countWords(n int, counts string) []cell {
	head := fmt.Sprintf("%d bets", n)
	if n == 1 {
		head = "1 bet"
	}
	if counts != "" {
		head += ": " + counts
	}
	var words []cell
	for _, w := range strings.Split(head, ", ") {
		words = append(words, cell{text: w})
	}
	return words
}

func (t *textWriter) tipTable(r *engine.Result) {
	if len(r.Tips) == 0 {
		return
	}
	plan := r.Kind == engine.KindPlan
	cols := []column{
		{title: "TIP", flex: true, min: 10},
		{title: "RACE", flex: true, min: 13},
		{title: "START", drop: 2},
		{title: "SELECTION", flex: true, min: 6},
		{title: "MARKET", flex: true, min: 11, drop: 3},
		{title: "UNITS", right: true},
		{title: "ODDS", right: true},
	}
	if plan {
		cols = append(cols, column{title: "ACTION"})
	}
	cols = append(cols, column{title: "STATUS"})
	if !plan {
		cols = append(cols, column{title: "RESULT", right: true})
	}
	rows := make([]row, len(r.Tips))
	for i := range r.Tips {
		tip := &r.Tips[i]
		cells := []cell{
			{text: tip.ID}, raceCell(tip.Race), {text: startClock(tip.Race)}, {text: tip.Selection},
			{text: tip.Market}, {text: strconv.FormatFloat(tip.AmountUnits, 'f', -1, 64)}, {text: oddsWords(tip.Odds)},
		}
		if plan {
			cells = append(cells, cell{text: string(tip.Action), tone: actionTone(tip.Action)})
		}
		cells = append(cells, cell{text: string(tip.Status), tone: tipTone(tip)})
		if !plan {
			cells = append(cells, cell{text: tipResultWords(tip), tone: tipTone(tip)})
		}
		var notes []cell
		if tip.Reason != "" {
			notes = append(notes, cell{text: "↳ " + oneLine(tip.Reason)})
		}
		if !tip.PublishedAt.IsZero() {
			p := "published " + publishedWords(tip)
			if tip.Answer != "" {
				p += " (" + oneLine(tip.Answer) + ")"
			}
			notes = append(notes, cell{text: p, tone: toneDim})
		}
		if tip.Error != "" && !strings.Contains(tip.Reason, tip.Error) {
			notes = append(notes, cell{text: "error: " + oneLine(tip.Error), tone: toneBad})
		}
		rows[i] = row{cells: cells, notes: notes}
	}
	t.table(cols, rows)
	t.w.WriteByte('\n')
	if len(r.Prealerts) > 0 {
		t.w.WriteString(t.bold("PRE-ALERTS") + "\n")
		for _, p := range r.Prealerts {
			tn := tonePlain
			switch p.Status {
			case engine.AlertUnknown, engine.AlertFailed:
				tn = toneBad
			case engine.AlertWaiting:
				tn = toneWarn
			}
			t.line(oneLine(prealertWords(p)), tn)
		}
		t.w.WriteByte('\n')
	}
	if len(r.Assumptions) > 0 {
		t.w.WriteString(t.bold("ASSUMED") + "\n")
		for _, a := range r.Assumptions {
			t.wrap(wordsOf("- "+a), " ", "  ")
		}
		t.w.WriteByte('\n')
	}
}

// wordsOf splits text into cells of one word, for wrap.
func wordsOf(s string) []cell {
	var out []cell
	for _, w := range strings.Fields(s) {
		out = append(out, cell{text: w})
	}
	return out
}

func (t *textWriter) tipTotals(r *engine.Result) {
	if len(r.Tips) == 0 {
		return
	}
	t.wrap(wordsOf(tipCounts(r)), " ", "  ")
	if s := tipRecordWords(r); s != "" {
		t.line(s, profitTone(newTipTotals(r).Units))
	}
}
