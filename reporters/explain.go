package reporters

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/invopop/jsonschema"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/printable"
	"github.com/betplan/betplan/reason"
)

// `betplan explain` as a person reads it (text) and as a program does
// (JSON, whose contract ExplainDocument is): per bet, what its journal
// kept, in order, and where it stands.

// ExplainSchemaVersion is the version of explain --format json's contract.
const ExplainSchemaVersion = 1

// ExplainDocument is `betplan explain --format json`.
type ExplainDocument struct {
	SchemaVersion int           `json:"schema_version" jsonschema_description:"Version of this document's contract; 1."`
	Plans         []ExplainPlan `json:"plans" jsonschema_description:"Each journal of each plan explained, in the order the plans were given."`
}

// ExplainPlan is what one journal of a plan tells of its bets.
type ExplainPlan struct {
	Plan      string       `json:"plan" jsonschema_description:"The plan's name."`
	File      string       `json:"file" jsonschema_description:"The plan file as given on the command line."`
	Journal   string       `json:"journal" jsonschema_description:"The journal read: its file, or the state that keeps it; where none was found, the state looked in."`
	Service   string       `json:"service,omitempty" jsonschema_description:"The service the journal was kept for, as its first entry names it; absent when it does not say."`
	Rehearsal bool         `json:"rehearsal,omitempty" jsonschema_description:"True for a rehearsal's journal (run --sim)."`
	Empty     bool         `json:"empty" jsonschema_description:"True when no journal of the plan was found: no run decided anything yet."`
	Refreshed bool         `json:"refreshed" jsonschema_description:"True with --refresh: each bet's now was read from the service, as betplan status reads it."`
	Bets      []ExplainBet `json:"bets" jsonschema_description:"Every bet of the plan (one per race for for_each_race bets) in plan order, then those the journal knows that the plan no longer has."`
}

// ExplainBet is one bet's story.
type ExplainBet struct {
	ID         string        `json:"id" jsonschema_description:"The bet's id as written in the plan."`
	InstanceID string        `json:"instance_id" jsonschema_description:"The id reports show and cancel takes: the bet's id, or a for_each_race bet's race instance (box1@the-meadows-r5)."`
	Label      string        `json:"label" jsonschema_description:"The notification label; empty for a bet no run decided yet."`
	Race       Race          `json:"race"`
	Event      string        `json:"event,omitempty" jsonschema_description:"A sports event bet's event; absent on racing bets."`
	NotInPlan  bool          `json:"not_in_plan,omitempty" jsonschema_description:"True when the journal knows the bet and the plan no longer has it."`
	Steps      []ExplainStep `json:"steps" jsonschema_description:"What the journal kept of the bet, in the order it was kept; empty when nothing."`
	Now        ExplainNow    `json:"now" jsonschema_description:"Where the bet stands."`
}

// ExplainStep is one thing the journal kept of a bet.
type ExplainStep struct {
	At             *string          `json:"at" jsonschema:"nullable,format=date-time" jsonschema_description:"When the journal kept it, by the machine's clock, RFC 3339 in UTC: the steps are in that order."`
	Op             string           `json:"op" jsonschema:"enum=looked,enum=decided,enum=not_created,enum=creating,enum=created,enum=adopted,enum=absent,enum=failed,enum=canceled,enum=placed,enum=detail_read,enum=missed,enum=outcome,enum=alert" jsonschema_description:"The journal entry: looked (a run saw the bet waiting, its race still to come: the last look of a row), decided or not_created (a run decided the bet is not created, and why), creating (a create announced), created, adopted (found by its label), absent (the create did not land), failed (the service refused the create), canceled, placed, detail_read (the service's words for a bet not placed), missed (a named race's window passed between two runs), outcome (how it ended), alert (an alert told of it)."`
	Words          string           `json:"words" jsonschema_description:"The step in one line, as the text format shows it."`
	Status         string           `json:"status,omitempty" jsonschema_description:"The status the bet was decided with (decided, not_created, outcome)."`
	ReasonCode     ReasonCode       `json:"reason_code,omitempty" jsonschema_description:"Why, as a program reads it (decided, not_created, missed, detail_read, and an outcome not placed)."`
	Reason         string           `json:"reason,omitempty" jsonschema_description:"Why, in words, the service's own among them."`
	Limit          *Limit           `json:"limit,omitempty" jsonschema_description:"For reason_code limit or stop: the limit and whose it is."`
	Period         string           `json:"period,omitempty" jsonschema_description:"The period the limit counts in (2026-11-21, 2026-W47); absent for all time."`
	Amount         *float64         `json:"amount,omitempty" jsonschema_description:"The bet's stake or target profit, in dollars (creating, not_created)."`
	AtRisk         *float64         `json:"at_risk,omitempty" jsonschema_description:"Dollars the bet was worked out to put at risk (creating, not_created)."`
	AtRiskBasis    string           `json:"at_risk_basis,omitempty" jsonschema_description:"How at_risk was worked out."`
	Sums           *ExplainSums     `json:"sums,omitempty" jsonschema_description:"What the limit that held the bet back saw, before the bet (not_created by a limit)."`
	NotificationID *int64           `json:"notification_id,omitempty" jsonschema_description:"The service's notification id (created, adopted)."`
	Attempt        int              `json:"attempt,omitempty" jsonschema_description:"Which attempt a creating announced (1, 2, …)."`
	Error          string           `json:"error,omitempty" jsonschema_description:"The service's or the run's words (failed, absent)."`
	PlacedAt       *string          `json:"placed_at,omitempty" jsonschema:"format=date-time" jsonschema_description:"When the bet was placed, by the service's clock, RFC 3339 in UTC (placed)."`
	PlacedFrom     string           `json:"placed_from,omitempty" jsonschema_description:"How the placement time is known: records (the bet records' submit time) or first poll."`
	Outcome        *ExplainOutcome  `json:"outcome,omitempty" jsonschema_description:"How the bet ended (outcome)."`
	ServiceWords   []string         `json:"service_words,omitempty" jsonschema_description:"The service's own words a detail_read entry keeps: the bots' lines, and the bot log as it came."`
	Sessions       []ExplainSession `json:"sessions,omitempty" jsonschema_description:"The sessions' answers a detail_read entry keeps (their bet records)."`
	SeenBy         []string         `json:"seen_by,omitempty" jsonschema_description:"The sessions the notification names (its session_info), from a detail_read entry."`
	Blocked        []string         `json:"blocked,omitempty" jsonschema_description:"The sessions the bet targets that could not bet it as betplan read them before the create, each with why (creating)."`
	WindowClosed   *string          `json:"window_closed,omitempty" jsonschema:"format=date-time" jsonschema_description:"When the bet's window closed, its race's start, RFC 3339 in UTC (missed)."`
	LastLooked     *string          `json:"last_looked,omitempty" jsonschema:"format=date-time" jsonschema_description:"When a run last looked at the bet before its window closed, RFC 3339 in UTC (missed)."`
	Alert          string           `json:"alert,omitempty" jsonschema_description:"The alert's event (alert)."`
	Target         string           `json:"target,omitempty" jsonschema_description:"Where the alert went: its scheme and host only (alert)."`
}

// ExplainSums are what a limit saw.
type ExplainSums struct {
	Staked        float64 `json:"staked" jsonschema_description:"Dollars the period's bets put at risk (max_total_stake)."`
	OpenStake     float64 `json:"open_stake" jsonschema_description:"Dollars at risk on the period's bets not resulted yet (max_open_stake)."`
	Profit        float64 `json:"profit" jsonschema_description:"Settled profit of the period."`
	WorstCase     float64 `json:"worst_case" jsonschema_description:"The profit if every open bet lost (max_loss)."`
	LowestProfit  float64 `json:"lowest_profit" jsonschema_description:"The settled profit at its lowest in the period (stop_loss)."`
	HighestProfit float64 `json:"highest_profit" jsonschema_description:"The settled profit at its highest in the period (take_profit)."`
	Bets          int     `json:"bets" jsonschema_description:"Bets of the period (max_bets)."`
	RaceStake     float64 `json:"race_stake" jsonschema_description:"Dollars at risk on the bet's race (max_stake_per_race)."`
	RaceBets      int     `json:"race_bets" jsonschema_description:"Bets on the bet's race (max_bets_per_race)."`
}

// ExplainOutcome is how a bet ended, as its outcome entry keeps it.
type ExplainOutcome struct {
	Result   string           `json:"result" jsonschema:"enum=won,enum=lost,enum=void,enum=not_placed" jsonschema_description:"won, lost or void by the sign of the profit, or not_placed."`
	Accepted float64          `json:"accepted" jsonschema_description:"Dollars the sessions accepted."`
	Odds     float64          `json:"odds,omitempty" jsonschema_description:"The average odds taken."`
	Profit   float64          `json:"profit" jsonschema_description:"The service's profit, signed."`
	ResultAt *string          `json:"result_at,omitempty" jsonschema:"format=date-time" jsonschema_description:"When the race was resulted, by the service's clock, RFC 3339 in UTC."`
	Sessions []ExplainSession `json:"sessions" jsonschema_description:"What each session did with the bet, from its bet record."`
}

// ExplainSession is one session's part of a bet.
type ExplainSession struct {
	Session  string  `json:"session" jsonschema_description:"The session's display name."`
	Accepted float64 `json:"accepted" jsonschema_description:"Dollars it placed; 0 when it refused."`
	Odds     float64 `json:"odds,omitempty" jsonschema_description:"Odds taken."`
	Profit   float64 `json:"profit" jsonschema_description:"Its profit, signed."`
	Result   string  `json:"result,omitempty" jsonschema_description:"Its submit_result when it did not succeed."`
	Error    string  `json:"error,omitempty" jsonschema_description:"Its submit_error: the service's words."`
}

// ExplainNow is where a bet stands.
type ExplainNow struct {
	Source     string     `json:"source" jsonschema:"enum=journal,enum=service" jsonschema_description:"journal, or service with --refresh."`
	Known      bool       `json:"known" jsonschema_description:"False for a bet no run decided yet (and, with --refresh, that the service does not show)."`
	Status     string     `json:"status" jsonschema_description:"Where the bet stands, lower case, as reports say it; empty when not known."`
	ReasonCode ReasonCode `json:"reason_code,omitempty" jsonschema_description:"Why, as a program reads it."`
	Reason     string     `json:"reason,omitempty" jsonschema_description:"Why, in words."`
	Limit      *Limit     `json:"limit,omitempty" jsonschema_description:"For reason_code limit or stop: the limit and whose it is."`
	PlacedBy   []string   `json:"placed_by" jsonschema_description:"The sessions that placed it."`
	RefusedBy  []string   `json:"refused_by" jsonschema_description:"The sessions that refused it, each with the service's words."`
	Accepted   float64    `json:"accepted" jsonschema_description:"Dollars the sessions accepted."`
	Profit     float64    `json:"profit" jsonschema_description:"Its profit, signed."`
}

// ExplainInput is one plan's stories with the file it was given as.
type ExplainInput struct {
	File    string
	Stories []engine.Story
}

// NewExplainDocument is the JSON document of plans' stories.
func NewExplainDocument(in []ExplainInput) ExplainDocument {
	doc := ExplainDocument{SchemaVersion: ExplainSchemaVersion, Plans: []ExplainPlan{}}
	for _, p := range in {
		for i := range p.Stories {
			s := &p.Stories[i]
			ep := ExplainPlan{Plan: s.Plan, File: p.File, Journal: s.Journal, Service: s.Service, Rehearsal: s.Rehearsal,
				Empty: s.Empty, Refreshed: s.Refreshed, Bets: []ExplainBet{}}
			for j := range s.Bets {
				ep.Bets = append(ep.Bets, explainBet(&s.Bets[j]))
			}
			doc.Plans = append(doc.Plans, ep)
		}
	}
	return doc
}

func explainBet(st *engine.BetStory) ExplainBet {
	b := ExplainBet{ID: st.BetID, InstanceID: st.InstanceID, Label: st.Label, Race: newRace(st.Race), NotInPlan: st.NotInPlan, Steps: []ExplainStep{}}
	if e := st.Race.Event; e != nil {
		b.Event = e.Name
	}
	for i := range st.Steps {
		s := &st.Steps[i]
		es := ExplainStep{At: timePtr(s.At), Op: s.Op, Words: stepWords(st.Race, s), PlacedAt: timePtr(s.PlacedAt), Status: string(s.Status), ReasonCode: ReasonCode(s.Why.Code),
			Reason: s.Why.Text, Limit: limitOf(s.Why), Period: s.Why.Period, AtRiskBasis: s.Basis, Attempt: s.Attempt, Error: s.Error,
			PlacedFrom: s.PlacedFrom, ServiceWords: s.Words, SeenBy: s.Seen, Blocked: s.Blocked, Alert: s.Alert, Target: s.Where,
			WindowClosed: timePtr(s.WindowClosed), LastLooked: timePtr(s.LastLooked)}
		for _, so := range s.Sessions {
			es.Sessions = append(es.Sessions, ExplainSession{Session: so.Session, Accepted: so.Accepted, Odds: so.Odds, Profit: so.Profit, Result: so.Result, Error: so.Error})
		}
		if s.Amount != 0 {
			es.Amount = &s.Amount
		}
		if s.AtRisk != 0 {
			es.AtRisk = &s.AtRisk
		}
		if s.NotificationID != 0 {
			es.NotificationID = &s.NotificationID
		}
		if m := s.Sums; m != nil {
			es.Sums = &ExplainSums{Staked: m.Staked, OpenStake: m.OpenStake, Profit: m.Profit, WorstCase: m.WorstCase, LowestProfit: m.LowestProfit,
				HighestProfit: m.HighestProfit, Bets: m.Bets, RaceStake: m.RaceStake, RaceBets: m.RaceBets}
		}
		if o := s.Outcome; o != nil {
			eo := &ExplainOutcome{Result: o.Result, Accepted: o.Accepted, Odds: o.Odds, Profit: o.Profit, ResultAt: timePtr(o.ResultTime), Sessions: []ExplainSession{}}
			for _, so := range o.Sessions {
				eo.Sessions = append(eo.Sessions, ExplainSession{Session: so.Session, Accepted: so.Accepted, Odds: so.Odds, Profit: so.Profit, Result: so.Result, Error: so.Error})
			}
			es.Outcome = eo
		}
		b.Steps = append(b.Steps, es)
	}
	n := st.Now
	b.Now = ExplainNow{Source: n.Source, Known: n.Known, Status: string(n.Status), ReasonCode: ReasonCode(n.Why.Code), Reason: n.Why.Text,
		Limit: limitOf(n.Why), PlacedBy: nonNil(n.PlacedBy), RefusedBy: nonNil(n.RefusedBy), Accepted: n.Accepted, Profit: n.Profit}
	if b.Now.Source == "" {
		b.Now.Source = "journal"
	}
	return b
}

func limitOf(w reason.Why) *Limit {
	if w.Limit == "" {
		return nil
	}
	return &Limit{Name: w.Limit, Scope: string(w.Scope)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteExplainJSON writes the stories as ExplainDocument, indented.
func WriteExplainJSON(w io.Writer, in []ExplainInput) error {
	b, err := encodeJSON(NewExplainDocument(in), "")
	if err != nil {
		return fmt.Errorf("encode explain: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// explainSchemaID is where the published schema lives in the repository.
const explainSchemaID = "https://github.com/betplan/betplan/schema/explain.schema.json"

// ExplainJSONSchema is the JSON Schema of explain --format json,
// generated from ExplainDocument; schema/explain.schema.json is this
// output.
func ExplainJSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{ExpandedStruct: true, AllowAdditionalProperties: true}
	s := r.ReflectFromType(reflect.TypeFor[ExplainDocument]())
	s.ID = explainSchemaID
	s.Title = "betplan explain --format json"
	s.Description = fmt.Sprintf("What each bet's journal kept, in order, and where it stands (schema_version %d).", ExplainSchemaVersion)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode explain schema: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteExplainText writes the stories as a person reads them: a block per
// bet, each step on a line with its time in the race's zone.
func WriteExplainText(w io.Writer, in []ExplainInput) error {
	bw := bufio.NewWriter(w)
	first := true
	for _, p := range in {
		for i := range p.Stories {
			s := &p.Stories[i]
			if !first {
				bw.WriteString("\n")
			}
			first = false
			writeStoryText(bw, p.File, s)
		}
	}
	return bw.Flush()
}

func writeStoryText(w *bufio.Writer, file string, s *engine.Story) {
	head := "plan " + printable.Text(s.Plan)
	if file != "" {
		head += " (" + printable.Text(file) + ")"
	}
	switch {
	case s.Empty:
		head += ": no journal in " + printable.Text(s.Journal) + ": no run of it decided anything yet"
	default:
		head += ", journal " + printable.Text(s.Journal)
		if s.Service != "" {
			head += " kept for " + printable.Text(s.Service)
		}
		if s.Rehearsal {
			head += " (a rehearsal's)"
		}
	}
	if s.Refreshed {
		head += "; now as the service shows it"
	}
	fmt.Fprintln(w, head)
	for i := range s.Bets {
		st := &s.Bets[i]
		w.WriteString("\n")
		fmt.Fprintln(w, storyHead(st))
		for j := range st.Steps {
			step := &st.Steps[j]
			when := storyClock(st.Race, step.At)
			lines := stepLines(st.Race, step)
			fmt.Fprintf(w, "  %s  %s\n", when, lines[0])
			pad := strings.Repeat(" ", 4+len([]rune(when)))
			for _, l := range lines[1:] {
				fmt.Fprintf(w, "%s%s\n", pad, l)
			}
		}
		if len(st.Steps) == 0 {
			w.WriteString("  nothing in the journal: no run decided this bet yet\n")
		}
		fmt.Fprintf(w, "  now: %s\n", nowWords(&st.Now, said(st.Steps, st.Now.Why.Text)))
		if st.Now.Source != "service" {
			continue // the journal's sessions are in its outcome step
		}
		for _, l := range nowSessions(&st.Now) {
			fmt.Fprintf(w, "       %s\n", l)
		}
	}
}

// storyHead names a bet: its instance id, race, start and label.
func storyHead(st *engine.BetStory) string {
	parts := []string{printable.Text(st.InstanceID)}
	if race := raceName(st.Race); race != "-" {
		r := printable.Text(race)
		if st.Race.Code != "" && st.Race.Event == nil {
			r += " (" + printable.Text(st.Race.Code) + ")"
		}
		parts = append(parts, r)
	}
	if !st.Race.Start.IsZero() {
		parts = append(parts, raceTime(st.Race, st.Race.Start).Format("2006-01-02")+" "+startClock(st.Race))
	}
	if st.Label != "" {
		parts = append(parts, "label "+printable.Text(st.Label))
	}
	if st.NotInPlan {
		parts = append(parts, "no longer in the plan")
	}
	return strings.Join(parts, " · ")
}

// storyClock is a step's time in the race's zone: the time of day on the
// race's meeting day, the date too on another day.
func storyClock(race engine.RaceInfo, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	rt := raceTime(race, t)
	if race.Start.IsZero() || rt.Format("2006-01-02") != raceTime(race, race.Start).Format("2006-01-02") {
		return rt.Format("2006-01-02 15:04:05") + " " + zoneName(rt)
	}
	return raceClock(race, t)
}

// stepWords is a step in one line.
func stepWords(race engine.RaceInfo, s *engine.Step) string {
	return strings.Join(stepLines(race, s), "; ")
}

// stepLines are a step's words: its first line, then what the limit saw,
// each session's part, the service's words.
func stepLines(race engine.RaceInfo, s *engine.Step) []string {
	t := func(v string) string { return printable.Text(oneLine(v)) }
	var lines []string
	switch s.Op {
	case "creating":
		l := "create announced"
		if s.Attempt > 1 {
			l += " (attempt " + strconv.Itoa(s.Attempt) + ")"
		}
		if s.Amount > 0 {
			l += ": " + dollars(s.Amount) + " requested"
			if s.AtRisk > 0 {
				l += ", " + dollars(s.AtRisk) + " at risk"
				if s.Basis != "" {
					l += " (" + t(s.Basis) + ")"
				}
			}
		}
		lines = append(lines, l)
		if len(s.Blocked) > 0 {
			lines = append(lines, "no session it targets could bet it, as betplan read them just before:")
			for _, b := range s.Blocked {
				lines = append(lines, "  "+t(b))
			}
		}
	case "created":
		lines = append(lines, fmt.Sprintf("created: notification %d", s.NotificationID))
	case "adopted":
		lines = append(lines, fmt.Sprintf("found on the service by its label: notification %d (adopted)", s.NotificationID))
	case "absent":
		lines = append(lines, "the create did not land: "+t(s.Error))
	case "failed":
		lines = append(lines, "the service refused the create: "+t(s.Error))
	case "canceled":
		lines = append(lines, "cancelled")
	case "placed":
		l := "placed"
		if !s.PlacedAt.IsZero() {
			l += " at " + storyClock(race, s.PlacedAt)
		}
		switch s.PlacedFrom {
		case "records":
			l += " (the bet records' submit time)"
		case "first poll":
			l += " (when a poll first saw it placed)"
		}
		lines = append(lines, l)
	case "decided", "not_created", "missed":
		l := "not created"
		text := s.Why.Text
		switch {
		case s.Op == "missed":
			l = "missed"
			text = strings.TrimPrefix(text, "missed: ")
		case s.Status == engine.StatusSkipped:
			l = "skipped"
		case s.Status == engine.StatusWaiting:
			l = "held back"
		}
		l += " " + whyTag(s.Why)
		if text != "" {
			l += ": " + t(text)
		}
		lines = append(lines, l)
		if m := s.Sums; m != nil {
			lines = append(lines, sumsWords(m, s))
		}
		if !s.WindowClosed.IsZero() && text == "" {
			w := "its window closed at " + storyClock(race, s.WindowClosed)
			if !s.LastLooked.IsZero() {
				w += "; a run last looked at it at " + storyClock(race, s.LastLooked)
			}
			lines = append(lines, w)
		}
	case "detail_read":
		l := "the service's words"
		if s.Why.Code != "" {
			l += " " + whyTag(s.Why)
		}
		if s.Why.Text != "" {
			l += ": " + t(s.Why.Text)
		}
		lines = append(lines, l)
		if len(s.Seen) > 0 {
			lines = append(lines, "sessions: "+t(strings.Join(s.Seen, ", ")))
		}
		for _, so := range s.Sessions {
			lines = append(lines, sessionWords(so))
		}
		for _, w := range s.Words {
			lines = append(lines, "“"+t(w)+"”")
		}
	case "outcome":
		o := s.Outcome
		var l string
		switch o.Result {
		case engine.OutcomeNotPlaced:
			l = "not placed"
			if s.Why.Code != "" {
				l += " " + whyTag(s.Why)
			}
			if s.Why.Text != "" {
				l += ": " + t(s.Why.Text)
			}
		default:
			l = fmt.Sprintf("settled: %s %s on %s accepted", o.Result, signedDollars(o.Profit), dollars(o.Accepted))
			if o.Odds > 0 {
				l += fmt.Sprintf(" at %.2f", o.Odds)
			}
			if !o.ResultTime.IsZero() {
				l += ", resulted " + storyClock(race, o.ResultTime)
			}
		}
		lines = append(lines, l)
		for _, so := range o.Sessions {
			lines = append(lines, sessionWords(so))
		}
	case "looked":
		lines = append(lines, "waiting: a run looked at it, its race still to come")
	case "alert":
		lines = append(lines, "alert "+t(s.Alert)+" queued for "+t(s.Where))
	default:
		lines = append(lines, t(s.Op))
	}
	return lines
}

// whyTag is a reason's code in brackets, with the limit, whose and its
// period: "[limit: max_total_stake, the plan's, day 2026-11-28]".
func whyTag(w reason.Why) string {
	if w.Code == "" {
		return "[no reason code]"
	}
	s := string(w.Code)
	if w.Limit != "" {
		s += ": " + w.Limit
		if w.Scope == reason.ScopeAccount {
			s += ", the account's"
		} else {
			s += ", the plan's"
		}
		switch {
		case strings.Contains(w.Period, "-W"):
			s += ", week " + w.Period
		case w.Period != "":
			s += ", day " + w.Period
		}
	}
	return "[" + printable.Text(s) + "]"
}

// sumsWords says what a limit saw before the bet, and the bet itself.
func sumsWords(m *engine.LimitSums, s *engine.Step) string {
	l := fmt.Sprintf("the limit saw: %s staked, %s open, settled profit %s, worst case %s, %d %s; on the race %s (%d %s)",
		dollars(m.Staked), dollars(m.OpenStake), signedDollars(m.Profit), signedDollars(m.WorstCase), m.Bets, pluralWord(m.Bets, "bet", "bets"),
		dollars(m.RaceStake), m.RaceBets, pluralWord(m.RaceBets, "bet", "bets"))
	if m.LowestProfit != 0 || m.HighestProfit != 0 {
		l += fmt.Sprintf("; profit ran from %s to %s", signedDollars(m.LowestProfit), signedDollars(m.HighestProfit))
	}
	if s.AtRisk > 0 {
		l += "; this bet " + dollars(s.AtRisk)
	}
	return l
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sessionWords is one session's part of a bet.
func sessionWords(so engine.SessionOutcome) string {
	name := printable.Text(oneLine(so.Session))
	if so.Accepted > 0 {
		l := name + ": " + dollars(so.Accepted)
		if so.Odds > 0 {
			l += fmt.Sprintf(" at %.2f", so.Odds)
		}
		return l + ", " + signedDollars(so.Profit)
	}
	l := name + ": nothing placed"
	if so.Result != "" {
		l += ", " + printable.Text(oneLine(so.Result))
	}
	if so.Error != "" {
		l += ": “" + printable.Text(oneLine(so.Error)) + "”"
	}
	return l
}

// said reports whether a step gave the sentence text already.
func said(steps []engine.Step, text string) bool {
	for _, s := range steps {
		if text != "" && s.Why.Text == text {
			return true
		}
	}
	return false
}

// nowWords says where a bet stands, and from what; the reason's sentence
// unless a step said it (repeated).
func nowWords(n *engine.Standing, repeated bool) string {
	if !n.Known {
		if n.Source == "service" {
			return "not shown by the service (as status reads it)"
		}
		return "not known from the journal (betplan explain --refresh reads the service)"
	}
	l := statusWords(n.Status)
	if n.Why.Code != "" {
		l += " " + whyTag(n.Why)
	}
	if n.Why.Text != "" && !repeated {
		l += ": " + printable.Text(oneLine(n.Why.Text))
	}
	switch {
	case n.Accepted > 0 && (n.Status == engine.StatusSettled):
		l += fmt.Sprintf(", %s on %s accepted", signedDollars(n.Profit), dollars(n.Accepted))
	case n.Accepted > 0:
		l += fmt.Sprintf(", %s accepted", dollars(n.Accepted))
	}
	if n.Source == "service" {
		return l + " (as the service shows it now)"
	}
	return l + " (as the journal keeps it)"
}

// nowSessions are the sessions' parts of where a bet stands: the records
// the service showed, else who placed and who refused it.
func nowSessions(n *engine.Standing) []string {
	var out []string
	if len(n.Records) > 0 {
		for _, rec := range n.Records {
			out = append(out, printable.Text(oneLine(recordWords(rec))))
		}
		return out
	}
	if len(n.PlacedBy) > 0 {
		out = append(out, "placed by "+printable.Text(strings.Join(n.PlacedBy, ", ")))
	}
	for _, r := range n.RefusedBy {
		out = append(out, "refused by "+printable.Text(oneLine(r)))
	}
	return out
}
