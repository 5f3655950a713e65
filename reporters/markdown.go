package reporters

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/printable"
)

// GitHub refuses step summaries and comments over 1 MiB. The bet table stops
// at whichever limit comes first, leaving room for what follows it.
const (
	markdownBudget  = 900 << 10 // bytes for everything up to the end of the bet table
	markdownMaxRows = 1000
	markdownCell    = 120 // runes per ordinary cell
	markdownReason  = 240 // runes for a reason
)

// WriteMarkdown writes the report for a pull request comment or
// $GITHUB_STEP_SUMMARY: a headline, the counts, the bets (those needing
// attention first; cut with a pointer to report.json when too many), the
// sessions and the run's details. It stays under 1 MiB whatever the plan.
func WriteMarkdown(w io.Writer, r *engine.Result) error {
	var buf bytes.Buffer
	m := &markdownWriter{b: &buf}
	if r.Kind == engine.KindPlan {
		m.plan(r)
	} else {
		m.run(r)
	}
	m.tips(r)
	m.alerts(r)
	m.details(r)
	bw := bufio.NewWriter(w)
	bw.Write(buf.Bytes())
	return bw.Flush()
}

type markdownWriter struct {
	b *bytes.Buffer
}

func (m *markdownWriter) printf(format string, args ...any) {
	fmt.Fprintf(m.b, format, args...)
}

func (m *markdownWriter) run(r *engine.Result) {
	d := newTotals(r)
	mark := ""
	if r.Failed() {
		mark = "❌ " // ✅ is kept for winning bets
	}
	m.printf("## %sbetplan %s: %s\n\n", mark, kindTitle(r), mdText(r.PlanName))
	if r.Simulated {
		m.printf("> [!NOTE]\n> %s\n\n", simulatedWords)
	}
	if r.Error != "" {
		m.printf("> [!CAUTION]\n> **Error:** %s\n\n", mdText(truncate(oneLine(r.Error), 1000)))
	}
	if len(r.Bets) == 0 && len(r.Tips) > 0 {
		return // a tipster's plan: the tips section says it all
	}
	m.printf("**%s** · requested **%s** · at risk **%s** · accepted **%s** · profit **%s** (return %s)",
		pluralBets(d.Bets), dollars(d.StakeRequested), dollars(d.AtRisk), dollars(d.AmountAccepted), signedDollars(d.Profit), percent(d.ReturnOnStake))
	if r.EndReason != "" && !readOnly(r) {
		m.printf(" · ended: %s", mdText(string(r.EndReason)))
	}
	if w := runningWords(r); w != "" {
		m.printf(" · running: %s", mdText(w))
	}
	m.printf("\n\n")

	if s := outcomeCounts(r); s != "" {
		m.printf("%s\n\n", s)
	}

	if len(r.Bets) > 0 {
		m.printf("### Bets\n\n")
		order := betOrder(r)
		slices.SortStableFunc(order, func(a, b int) int {
			return attention(&r.Bets[a]) - attention(&r.Bets[b])
		})
		m.table(r, order, []string{"Bet", "Race", "Date", "Start", "Selection", "Market", "Stake", "At risk", "Status", "Odds", "Accepted", "Return", "Profit", "Reason"},
			"|---|---|---|---|---|---|--:|--:|---|--:|--:|--:|--:|---|", func(b *engine.BetResult) []string {
				status := statusCell(b, outcome(b))
				if status == "won" {
					status = "✅ won"
				}
				reason := mdText(truncate(oneLine(b.Reason), markdownReason))
				if code := reasonCode(b); code != "" {
					reason = strings.TrimSuffix(mdCode(code)+" "+reason, " ")
				}
				if p := placedWords(b); p != "" {
					reason = strings.TrimPrefix(reason+"<br>"+mdText(truncate(oneLine(p), markdownReason)), "<br>")
				}
				if a := atRiskNote(b); a != "" {
					reason = strings.TrimPrefix(reason+"<br>"+mdText(truncate(oneLine(a), markdownReason)), "<br>")
				}
				if b.Error != "" {
					reason = strings.TrimPrefix(reason+"<br>**error:** "+mdText(truncate(oneLine(b.Error), markdownReason)), "<br>")
				}
				return []string{
					mdCode(rowID(b)),
					mdText(truncate(raceName(b.Race), markdownCell)),
					meetingDay(b.Race),
					startClock(b.Race),
					mdText(truncate(b.Selection, markdownCell)),
					mdText(truncate(marketWords(b), markdownCell)),
					stakeWords(b),
					atRiskWords(b),
					status,
					takenOdds(b),
					acceptedWords(b),
					returnWords(b),
					strings.ReplaceAll(profitWords(b), "*", `\*`),
					reason,
				}
			})
		for i := range r.Bets {
			if provisional(&r.Bets[i]) {
				m.printf("\n\\* provisional: the race is not finally resulted yet.\n")
				break
			}
		}
		m.printf("\n")
	}

	if r.Limits.Any() {
		m.printf("### Limits\n\n%s.\n\n", mdText(capitalize(r.Limits.PeriodTitle())))
		m.row("", "Used", "Limit")
		m.printf("|---|--:|--:|\n")
		for _, row := range planLimits(r) {
			m.row(mdText(row.Name), row.Used, row.Limit)
		}
		m.printf("\n")
	}
	if r.Account != nil {
		m.printf("### Account limits\n\n%s.\n\n", mdText(capitalize(accountTitle(r.Account))))
		m.row("", "Used", "Limit")
		m.printf("|---|--:|--:|\n")
		for _, row := range accountLimits(r) {
			m.row(mdText(row.Name), row.Used, row.Limit)
		}
		m.printf("\n")
	}

	if ss := sessions(r); len(ss) > 0 {
		m.printf("### Sessions\n\n")
		m.row("Session", "Bets", "Accepted", "Errors", "In review", "Amount", "Profit")
		m.printf("|---|--:|--:|--:|--:|--:|--:|\n")
		for i, s := range ss {
			if i == 100 {
				m.printf("\n… %d more sessions, see report.json\n", len(ss)-i)
				break
			}
			m.row(mdText(truncate(sessionName(s.Bookie, s.Name), markdownCell)), strconv.Itoa(s.Bets), strconv.Itoa(s.Accepted),
				strconv.Itoa(s.Errors), strconv.Itoa(s.InReview), dollars(s.Amount), signedDollars(s.Profit))
		}
		m.printf("\n")
	}
	m.groups("By venue", byVenue(r))
	m.groups("By meeting day", byDay(r))
}

// groups writes per-venue or per-day totals when there is more than one.
func (m *markdownWriter) groups(title string, gs []group) {
	if len(gs) < 2 {
		return
	}
	m.printf("### %s\n\n", title)
	m.row("", "Bets", "Accepted", "Profit")
	m.printf("|---|--:|--:|--:|\n")
	for _, g := range gs {
		m.row(mdText(g.Name), strconv.Itoa(g.Bets), dollars(g.Accepted), signedDollars(g.Profit))
	}
	m.printf("\n")
}

func (m *markdownWriter) plan(r *engine.Result) {
	m.printf("## betplan plan: %s\n\nWhat `betplan run` would do now.\n\n", mdText(r.PlanName))
	if r.Error != "" {
		m.printf("> [!CAUTION]\n> **Error:** %s\n\n", mdText(truncate(oneLine(r.Error), 1000)))
	}
	m.printf("**%s**", pluralBets(len(r.Bets)))
	if s := actionCounts(r); s != "" {
		m.printf(": %s", s)
	}
	m.printf("\n\n")

	m.printf("### Limits\n\n%s.\n\n", mdText(capitalize(r.Limits.PeriodTitle())))
	m.row("", "Already", "After this run", "Limit")
	m.printf("|---|--:|--:|--:|\n")
	for _, row := range planLimits(r) {
		m.row(mdText(row.Name), row.Used, row.After, row.Limit)
	}
	m.printf("\n")
	if r.Account != nil {
		m.printf("### Account limits\n\n%s.\n\n", mdText(capitalize(accountTitle(r.Account))))
		m.row("", "Already", "After this run", "Limit")
		m.printf("|---|--:|--:|--:|\n")
		for _, row := range accountLimits(r) {
			m.row(mdText(row.Name), row.Used, row.After, row.Limit)
		}
		m.printf("\n")
	}

	if len(r.Bets) > 0 {
		m.printf("### Bets\n\n")
		order := betOrder(r)
		m.table(r, order, []string{"Bet", "Race", "Start", "Selection", "Market", "Stake", "At risk", "Action", "Reason"},
			"|---|---|---|---|---|--:|--:|---|---|", func(b *engine.BetResult) []string {
				reason := mdText(truncate(oneLine(b.Reason), markdownReason))
				if a := atRiskNote(b); a != "" {
					reason = strings.TrimPrefix(reason+"<br>"+mdText(truncate(oneLine(a), markdownReason)), "<br>")
				}
				return []string{
					mdCode(rowID(b)),
					mdText(truncate(raceName(b.Race), markdownCell)),
					startClock(b.Race),
					mdText(truncate(b.Selection, markdownCell)),
					mdText(truncate(marketWords(b), markdownCell)),
					stakeWords(b),
					atRiskWords(b),
					actionMark(b.Action) + " " + string(b.Action),
					reason,
				}
			})
		m.printf("\n")
	}
}

// betOrder is the indexes of r's bets as the result lists them.
func betOrder(r *engine.Result) []int {
	order := make([]int, len(r.Bets))
	for i := range order {
		order[i] = i
	}
	return order
}

// table writes the bets in order, one row each, until the row or byte
// budget runs out, then says how many were left out.
func (m *markdownWriter) table(r *engine.Result, order []int, titles []string, align string, cells func(*engine.BetResult) []string) {
	m.row(titles...)
	m.printf("%s\n", align)
	var line bytes.Buffer
	for k, i := range order {
		line.Reset()
		writeRow(&line, cells(&r.Bets[i]))
		if k == markdownMaxRows || m.b.Len()+line.Len() > markdownBudget {
			m.printf("\n… %d more bets, see report.json\n", len(order)-k)
			return
		}
		m.b.Write(line.Bytes())
	}
}

func (m *markdownWriter) row(cells ...string) { writeRow(m.b, cells) }

func writeRow(b *bytes.Buffer, cells []string) {
	b.WriteByte('|')
	for _, c := range cells {
		b.WriteByte(' ')
		b.WriteString(c)
		b.WriteString(" |")
	}
	b.WriteByte('\n')
}

func (m *markdownWriter) details(r *engine.Result) {
	m.printf("<details><summary>Details</summary>\n\n")
	item := func(name, value string) {
		if value != "" {
			m.printf("- %s: %s\n", name, value)
		}
	}
	item("Plan", mdText(r.PlanName))
	item("Plan file", mdCode(r.PlanFile))
	item("Plan hash", mdCode(r.PlanHash))
	item("betplan", mdCode(r.Version))
	item("Service", mdCode(r.BaseURL))
	item("Time", span(r))
	item("Ended", mdText(endedWords(r)))
	m.printf("\nThe full report, with every bet and session, is report.json.\n\n</details>\n")
}

func pluralBets(n int) string {
	if n == 1 {
		return "1 bet"
	}
	return strconv.Itoa(n) + " bets"
}

func actionMark(a engine.Action) string {
	switch a {
	case engine.ActionCreate:
		return "➕"
	case engine.ActionPublish:
		return "📣"
	case engine.ActionAdopt:
		return "🔗"
	case engine.ActionWait:
		return "⏳"
	case engine.ActionNone:
		return "✔️"
	case engine.ActionSkip:
		return "⏭️"
	case engine.ActionUnresolved, engine.ActionRefuse:
		return "⛔"
	}
	return "❔"
}

// mdText makes text inert in a GitHub table cell or line, through the one
// sanitiser of human output: control characters shown escaped, HTML shown,
// not run; emphasis, links, code, math and table pipes shown as typed.
// Our own amounts skip it: a $ followed by a digit never closes GitHub
// math. Line breaks of our own messages fold into spaces first.
func mdText(s string) string { return printable.Markdown(oneLine(s)) }

// mdCode shows s as code; ids and paths read best that way.
func mdCode(s string) string { return printable.MarkdownCode(s) }

func (m *markdownWriter) tips(r *engine.Result) {
	if len(r.Tips) == 0 {
		return
	}
	m.printf("### Tips\n\n**%s**", mdText(tipCounts(r)))
	if s := tipRecordWords(r); s != "" {
		m.printf(" · %s", mdText(s))
	}
	m.printf("\n\n")
	plan := r.Kind == engine.KindPlan
	if plan {
		m.row("Tip", "Race", "Start", "Selection", "Market", "Units", "Odds", "Action", "Reason")
		m.printf("|---|---|---|---|---|--:|--:|---|---|\n")
	} else {
		m.row("Tip", "Race", "Start", "Selection", "Market", "Units", "Odds", "Status", "Published", "Result", "Reason")
		m.printf("|---|---|---|---|---|--:|--:|---|---|--:|---|\n")
	}
	for i := range r.Tips {
		tip := &r.Tips[i]
		if i == markdownMaxRows || m.b.Len() > markdownBudget {
			m.printf("\n… %d more tips, see report.json\n", len(r.Tips)-i)
			break
		}
		reason := mdText(truncate(oneLine(tip.Reason), markdownReason))
		cells := []string{
			mdCode(tip.ID), mdText(truncate(raceName(tip.Race), markdownCell)), startClock(tip.Race),
			mdText(truncate(tip.Selection, markdownCell)), mdText(truncate(tip.Market, markdownCell)),
			strconv.FormatFloat(tip.AmountUnits, 'f', -1, 64), oddsWords(tip.Odds),
		}
		if plan {
			cells = append(cells, actionMark(tip.Action)+" "+string(tip.Action), reason)
		} else {
			cells = append(cells, strings.TrimSpace(tipMark(tip)+" "+string(tip.Status)), mdText(publishedWords(tip)), mdText(tipResultWords(tip)), reason)
		}
		m.row(cells...)
	}
	m.printf("\n")
	if len(r.Prealerts) > 0 {
		m.printf("Pre-alerts:\n\n")
		for _, p := range r.Prealerts {
			m.printf("- %s\n", mdText(truncate(prealertWords(p), 2*markdownReason)))
		}
		m.printf("\n")
	}
	if len(r.Assumptions) > 0 {
		m.printf("<details><summary>What was assumed</summary>\n\n")
		for _, a := range r.Assumptions {
			m.printf("- %s\n", mdText(a))
		}
		m.printf("\n</details>\n\n")
	}
}

func tipMark(t *engine.TipResult) string {
	switch t.Status {
	case engine.TipPublished:
		if t.Units != nil && *t.Units > 0 {
			return "✅" // only a winner is ticked
		}
		return ""
	case engine.TipUnknown:
		return "❓"
	case engine.TipFailed, engine.TipUnresolved:
		return "❌"
	case engine.TipWaiting:
		return "⏳"
	case engine.TipSkipped:
		return "⏭️"
	}
	return "❔"
}
