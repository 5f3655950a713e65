package reporters

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
)

// A tipster plan's report: each tip with its state, when it was published,
// the odds it was given at and, once its race is resulted, the units won
// or lost at those odds (the record subscribers judge a tipster by); the
// pre-alerts; and what was assumed where the service's shapes are not
// known. Every format says the same, in the words below.

// Tip is one tip of the plan on one race, in report.json.
type Tip struct {
	ID          string   `json:"id" jsonschema_description:"The tip's id as written in the plan (for for_each_race tips, one tip per race shares the id)."`
	Race        Race     `json:"race"`
	Market      string   `json:"market" jsonschema_description:"Market as sent to the service."`
	Selection   string   `json:"selection" jsonschema_description:"The runner, or R:P pairs for Same Race Multi."`
	AmountUnits float64  `json:"amount_units" jsonschema_description:"Units subscribers stake."`
	Odds        float64  `json:"odds" jsonschema_description:"The odds the tip was given at: units won or lost count at them."`
	MaxOdds     float64  `json:"max_odds" jsonschema_description:"The highest odds subscribers' bots take."`
	Bookies     string   `json:"bookies" jsonschema_description:"Bookmaker ids joined by '&'."`
	UseBonus    bool     `json:"use_bonus" jsonschema_description:"Subscribers bet with bonus funds."`
	Confidence  string   `json:"confidence" jsonschema_description:"Low, Medium or High; empty when not given."`
	Status      string   `json:"status" jsonschema:"enum=waiting,enum=skipped,enum=unresolved,enum=published,enum=unknown,enum=failed" jsonschema_description:"Where the tip stands: waiting (its when is not true yet), skipped (its race started first), unresolved (its race was not found), published, unknown (a publish was sent and may have gone out: it is never sent again by itself; run --republish TIP-ID sends it again), failed (refused, or not sent)."`
	Action      string   `json:"action,omitempty" jsonschema:"enum=publish,enum=wait,enum=skip,enum=none,enum=unresolved" jsonschema_description:"Plan reports only: what run would do with the tip now."`
	Reason      string   `json:"reason" jsonschema_description:"Why the tip has its status, in words; may be empty."`
	PublishedAt *string  `json:"published_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the service took the tip, RFC 3339 in UTC; null until then."`
	Attempts    int      `json:"attempts" jsonschema_description:"Publish calls announced for the tip, ever (the journal's count)."`
	Answer      string   `json:"answer" jsonschema_description:"What the service answered the publish, e.g. Success."`
	Result      string   `json:"result" jsonschema_description:"The race's finishing order as the service gave it (runner numbers joined by '/'), or VOID; empty until resulted."`
	Outcome     string   `json:"outcome" jsonschema:"enum=,enum=won,enum=lost,enum=void" jsonschema_description:"won, lost or void once the race is resulted; empty before."`
	Units       *float64 `json:"units" jsonschema:"nullable" jsonschema_description:"Units won (positive) or lost (negative) at the tipped odds; null until resulted."`
	Final       bool     `json:"final" jsonschema_description:"True once nothing more will change: resulted, or past being published."`
	Error       string   `json:"error" jsonschema_description:"A runtime error met publishing the tip; empty when none."`
}

// Prealert is the pre-alert of one race, in report.json.
type Prealert struct {
	Race   Race    `json:"race"`
	Status string  `json:"status" jsonschema:"enum=waiting,enum=sent,enum=unknown,enum=failed,enum=skipped" jsonschema_description:"sent, unknown (may have gone out: not sent again), failed, skipped (no tip of the race was left to publish) or waiting."`
	Reason string  `json:"reason" jsonschema_description:"Why it has its status; may be empty."`
	SentAt *string `json:"sent_at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the service took it, RFC 3339 in UTC; null until then."`
	Path   string  `json:"path" jsonschema_description:"The path that answered: /pick/tipster/message/ or /pick/tipster/prealert/."`
}

// TipTotals is the tipster's record over the report's tips.
type TipTotals struct {
	Tips          int          `json:"tips" jsonschema_description:"Number of tips."`
	ByStatus      TipsByStatus `json:"by_status" jsonschema_description:"Number of tips in each status; every status is present."`
	Won           int          `json:"won" jsonschema_description:"Tips that won at their race."`
	Lost          int          `json:"lost" jsonschema_description:"Tips that lost."`
	Void          int          `json:"void" jsonschema_description:"Tips whose race or runner was void."`
	UnitsStaked   float64      `json:"units_staked" jsonschema_description:"Units of the tips that won or lost."`
	Units         float64      `json:"units" jsonschema_description:"Net units won (positive) or lost (negative) at the tipped odds."`
	ReturnOnUnits float64      `json:"return_on_units" jsonschema_description:"units / units_staked, a fraction rounded to 4 places; 0 when nothing was staked."`
}

// TipsByStatus counts tips per status, in report order.
type TipsByStatus struct {
	Waiting    int `json:"waiting"`
	Skipped    int `json:"skipped"`
	Unresolved int `json:"unresolved"`
	Published  int `json:"published"`
	Unknown    int `json:"unknown"`
	Failed     int `json:"failed"`
}

func (c *TipsByStatus) add(s engine.TipStatus) {
	switch s {
	case engine.TipWaiting:
		c.Waiting++
	case engine.TipSkipped:
		c.Skipped++
	case engine.TipUnresolved:
		c.Unresolved++
	case engine.TipPublished:
		c.Published++
	case engine.TipUnknown:
		c.Unknown++
	case engine.TipFailed:
		c.Failed++
	}
}

func newTips(r *engine.Result) []Tip {
	out := make([]Tip, len(r.Tips))
	for i := range r.Tips {
		t := &r.Tips[i]
		out[i] = Tip{
			ID: t.ID, Race: newRace(t.Race), Market: t.Market, Selection: t.Selection,
			AmountUnits: t.AmountUnits, Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
			Confidence: t.Confidence, Status: string(t.Status), Action: string(t.Action), Reason: t.Reason,
			PublishedAt: timePtr(t.PublishedAt), Attempts: t.Attempts, Answer: t.Answer,
			Result: t.Result, Outcome: t.Outcome, Units: unitsPtr(t.Units), Final: t.Final, Error: t.Error,
		}
	}
	return out
}

func newPrealerts(r *engine.Result) []Prealert {
	out := make([]Prealert, len(r.Prealerts))
	for i, p := range r.Prealerts {
		out[i] = Prealert{Race: newRace(p.Race), Status: p.Status, Reason: p.Reason, SentAt: timePtr(p.SentAt), Path: p.Path}
	}
	return out
}

func newRace(r engine.RaceInfo) Race {
	return Race{Venue: r.Venue, Code: r.Code, EventNumber: r.EventNumber, Start: raceTimePtr(r.Start)}
}

func newTipTotals(r *engine.Result) TipTotals {
	t := TipTotals{Tips: len(r.Tips)}
	for i := range r.Tips {
		tip := &r.Tips[i]
		t.ByStatus.add(tip.Status)
		switch tip.Outcome {
		case engine.TipWon:
			t.Won++
		case engine.TipLost:
			t.Lost++
		case engine.TipVoid:
			t.Void++
		}
		if tip.Units != nil && tip.Outcome != engine.TipVoid {
			t.UnitsStaked += tip.AmountUnits
			t.Units += *tip.Units
		}
	}
	t.UnitsStaked, t.Units = units(t.UnitsStaked), units(t.Units)
	if t.UnitsStaked > 0 {
		t.ReturnOnUnits = math.Round(t.Units/t.UnitsStaked*10000) / 10000
	}
	return t
}

// units rounds to hundredths of a unit and never yields -0.
func units(v float64) float64 { return cents(v) }

func unitsPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	u := units(*v)
	return &u
}

// unitsWords is a signed amount of units: "+5.00u", "-2.00u", "0.00u".
func unitsWords(v float64) string {
	v = units(v)
	s := strconv.FormatFloat(v, 'f', 2, 64) + "u"
	if v > 0 {
		s = "+" + s
	}
	return s
}

func tipTone(t *engine.TipResult) tone {
	switch t.Status {
	case engine.TipPublished:
		if t.Units != nil {
			return profitTone(*t.Units)
		}
		return toneBusy
	case engine.TipUnknown, engine.TipFailed, engine.TipUnresolved:
		return toneBad
	case engine.TipWaiting:
		return toneWarn
	case engine.TipSkipped:
		return toneDim
	}
	return tonePlain
}

// tipResultWords is the tip's result column: "won +5.00u", "lost -1.00u",
// "void", "-" before its race is resulted.
func tipResultWords(t *engine.TipResult) string {
	switch {
	case t.Outcome == engine.TipVoid:
		return "void"
	case t.Units != nil:
		return t.Outcome + " " + unitsWords(*t.Units)
	}
	return "-"
}

// publishedWords says when a tip was published, in its race's clock.
func publishedWords(t *engine.TipResult) string {
	if t.PublishedAt.IsZero() {
		return "-"
	}
	return raceClock(t.Race, t.PublishedAt)
}

// tipCounts is "3 tips: 2 published, 1 unknown".
func tipCounts(r *engine.Result) string {
	n := map[engine.TipStatus]int{}
	for i := range r.Tips {
		n[r.Tips[i].Status]++
	}
	var parts []string
	for _, s := range engine.TipStatuses() {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	head := fmt.Sprintf("%d tips", len(r.Tips))
	if len(r.Tips) == 1 {
		head = "1 tip"
	}
	if len(parts) > 0 {
		head += ": " + strings.Join(parts, ", ")
	}
	return head
}

// tipRecordWords is the tipster's record: "record: 1 won, 2 lost, 0 void;
// +1.50u on 4.00u staked (+37.5%)"; "" while nothing is resulted.
func tipRecordWords(r *engine.Result) string {
	t := newTipTotals(r)
	if t.Won+t.Lost+t.Void == 0 {
		return ""
	}
	return fmt.Sprintf("record: %d won, %d lost, %d void; %s on %.2fu staked (%s)", t.Won, t.Lost, t.Void, unitsWords(t.Units), t.UnitsStaked, percent(t.ReturnOnUnits))
}

// prealertWords describes one pre-alert in a line.
func prealertWords(p engine.PrealertResult) string {
	s := raceName(p.Race) + " " + startClock(p.Race) + ": " + p.Status
	if !p.SentAt.IsZero() {
		s += " at " + raceClock(p.Race, p.SentAt)
	}
	if p.Path != "" {
		s += " (" + p.Path + ")"
	}
	if p.Reason != "" {
		s += "; " + p.Reason
	}
	return s
}

// ---- text ----

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

// ---- Markdown ----

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
			cells = append(cells, strings.TrimSpace(tipMark(tip)+" "+string(tip.Status)), publishedWords(tip), tipResultWords(tip), reason)
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

// ---- JUnit ----

// junitTips is the tips' test suite: an unknown, failed or unresolved tip
// is a failure (it makes the exit code 1), a waiting or skipped one is
// skipped, a published one passes whatever its result.
func junitTips(r *engine.Result) *junitSuite {
	if len(r.Tips) == 0 {
		return nil
	}
	s := &junitSuite{Name: r.PlanName + " tips", Time: "0", Timestamp: junitTime(r)}
	for i := range r.Tips {
		tip := &r.Tips[i]
		name := tip.ID
		if race := raceName(tip.Race); race != "-" {
			name += " (" + race + " " + startClock(tip.Race) + ")"
		}
		var out strings.Builder
		fmt.Fprintf(&out, "status: %s\n", tip.Status)
		if tip.Action != "" {
			fmt.Fprintf(&out, "action: %s\n", tip.Action)
		}
		fmt.Fprintf(&out, "selection: %s (%s), %s units at %s, max %s\n", tip.Selection, tip.Market, strconv.FormatFloat(tip.AmountUnits, 'f', -1, 64), oddsWords(tip.Odds), oddsWords(tip.MaxOdds))
		if tip.Reason != "" {
			fmt.Fprintf(&out, "reason: %s\n", tip.Reason)
		}
		if !tip.PublishedAt.IsZero() {
			fmt.Fprintf(&out, "published: %s\n", formatTime(tip.PublishedAt))
		}
		if tip.Result != "" {
			fmt.Fprintf(&out, "result: %s, %s\n", tip.Result, tipResultWords(tip))
		}
		c := junitCase{Name: name, Classname: r.PlanName + ".tips", Time: "0", SystemOut: &junitText{xmlSafe(out.String())}}
		message := string(tip.Status)
		if tip.Reason != "" {
			message += ": " + oneLine(tip.Reason)
		}
		switch tip.Status {
		case engine.TipUnknown, engine.TipFailed, engine.TipUnresolved:
			c.Failure = &junitOutcome{Type: string(tip.Status), Message: message}
		case engine.TipWaiting, engine.TipSkipped:
			if r.Kind != engine.KindPlan || tip.Action == engine.ActionSkip {
				c.Skipped = &junitOutcome{Type: string(tip.Status), Message: message}
			}
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	for _, a := range r.Assumptions {
		s.Properties = append(s.Properties, junitProperty{Name: "assumed", Value: a})
	}
	return s
}

// ---- HTML ----

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
