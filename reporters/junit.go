package reporters

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
)

// JUnit XML, as the common junit-10.xsd (Jenkins xUnit) describes it, so CI
// systems list a plan's bets as tests. One testcase per bet:
//
//   - error: the bet met a runtime error (BetResult.Error); the fatal error
//     of the command (Result.Error) is one more testcase, named after the
//     command, with an error;
//   - failure: the bet failed, was not taken or its race was unresolved
//     (what makes the exit code 1); in previews, a refused or unresolved bet;
//   - skipped: the bet was skipped, is still waiting, or was cancelled: it
//     neither passed nor failed;
//   - passed: created, placed or settled, whatever the profit: losing money
//     is not a test failure. Profit and sessions are in system-out.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitOutcome `xml:"skipped"`
	Error     *junitOutcome `xml:"error"`
	Failure   *junitOutcome `xml:"failure"`
	SystemOut *junitText    `xml:"system-out"`
}

// junitText is CDATA so multi-line output stays readable in the file.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitOutcome struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes the result as JUnit XML: one test suite named after the
// plan, one testcase per bet (see the package's JUnit notes for what counts
// as failure, error and skipped).
func WriteJUnit(w io.Writer, r *engine.Result) error {
	suites := junitPlanSuites(r)
	doc := junitSuites{
		Name:   "betplan " + string(r.Kind) + " " + r.PlanName,
		Time:   suites[0].Time,
		Suites: suites,
	}
	doc.count()
	return doc.encode(w)
}

// count totals the document's suites.
func (d *junitSuites) count() {
	for _, s := range d.Suites {
		d.Tests += s.Tests
		d.Failures += s.Failures
		d.Errors += s.Errors
	}
}

func (d *junitSuites) encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("encode JUnit report: %w", err)
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// junitPlanSuites is one plan's test suites: its bets, then its tips if
// it has any.
func junitPlanSuites(r *engine.Result) []junitSuite {
	suite := junitSuite{
		Name:      r.PlanName,
		Time:      seconds(r),
		Timestamp: junitTime(r),
		Properties: []junitProperty{
			{"kind", string(r.Kind)},
			{"plan_file", r.PlanFile},
			{"plan_hash", r.PlanHash},
			{"betplan_version", r.Version},
			{"base_url", r.BaseURL},
			{"simulated", strconv.FormatBool(r.Simulated)},
			{"end_reason", string(r.EndReason)},
			// The plan's money, as every other format sums it.
			{"stake_requested", money2(r.Totals.StakeRequested)},
			{"at_risk", money2(r.Totals.AtRisk)},
			{"accepted", money2(r.Totals.AmountAccepted)},
			{"profit", money2(r.Totals.Profit)},
		},
		Cases: make([]junitCase, 0, len(r.Bets)+1),
	}
	if r.Error != "" {
		suite.Cases = append(suite.Cases, junitCase{
			Name:      "betplan " + string(r.Kind),
			Classname: r.PlanName,
			Time:      "0",
			Error:     &junitOutcome{Type: "fatal", Message: oneLine(r.Error), Text: xmlSafe(r.Error)},
		})
	}
	for i := range r.Bets {
		suite.Cases = append(suite.Cases, junitBet(r, &r.Bets[i]))
	}
	suite.tally()
	suites := []junitSuite{suite}
	if tips := junitTips(r); tips != nil {
		suites = append(suites, *tips)
	}
	return suites
}

// tally counts the suite's cases: each is a test, and an error, a
// failure or skipped by how it ended.
func (s *junitSuite) tally() {
	for _, c := range s.Cases {
		s.Tests++
		switch {
		case c.Error != nil:
			s.Errors++
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
}

func junitBet(r *engine.Result, b *engine.BetResult) junitCase {
	c := junitCase{
		Name:      junitName(b),
		Classname: r.PlanName,
		Time:      "0",
		SystemOut: &junitText{xmlSafe(junitDetail(b))},
	}
	message := statusWords(b.Status)
	if r.Kind == engine.KindPlan {
		message = string(b.Action)
	}
	if code := reasonCode(b); code != "" {
		message += " [" + code + "]"
	}
	if b.Reason != "" {
		message += ": " + oneLine(b.Reason)
	}
	switch {
	case b.Error != "":
		c.Error = &junitOutcome{Type: "error", Message: oneLine(b.Error), Text: xmlSafe(b.Error)}
	case r.Kind == engine.KindPlan:
		switch b.Action {
		case engine.ActionRefuse, engine.ActionUnresolved:
			c.Failure = &junitOutcome{Type: string(b.Action), Message: message}
		case engine.ActionSkip, engine.ActionWait:
			c.Skipped = &junitOutcome{Type: string(b.Action), Message: message}
		}
	default:
		switch b.Status {
		case engine.StatusFailed, engine.StatusNotTaken, engine.StatusUnresolved, engine.StatusInDoubt:
			c.Failure = &junitOutcome{Type: string(b.Status), Message: message}
		case engine.StatusSkipped:
			if b.MissedNow {
				// The run that found the window missed fails for it, once.
				c.Failure = &junitOutcome{Type: string(b.Why.Code), Message: message}
				break
			}
			c.Skipped = &junitOutcome{Type: string(b.Status), Message: message}
		case engine.StatusWaiting, engine.StatusCanceled:
			if b.PlacedThenCanceled() {
				break // placed: a bet like any placed one, its cancel in the output
			}
			c.Skipped = &junitOutcome{Type: string(b.Status), Message: message}
		}
	}
	return c
}

// junitName names a bet's testcase by its row's id and race.
func junitName(b *engine.BetResult) string {
	name := rowID(b)
	if race := raceName(b.Race); race != "-" {
		name += " (" + race
		if !b.Race.Start.IsZero() {
			name += " " + startClock(b.Race)
		}
		name += ")"
	}
	return name
}

// junitDetail is what CI shows as the test's output: everything a person
// needs to understand the bet without opening report.json.
func junitDetail(b *engine.BetResult) string {
	var s strings.Builder
	fmt.Fprintf(&s, "status: %s\n", statusCell(b, statusWords(b.Status)))
	if b.Action != "" {
		fmt.Fprintf(&s, "action: %s\n", b.Action)
	}
	fmt.Fprintf(&s, "label: %s\n", b.Label)
	fmt.Fprintf(&s, "selection: %s (%s, %s)\n", b.Selection, b.Type, b.Market)
	fmt.Fprintf(&s, "stake: %s\n", stakeWords(b))
	if code := reasonCode(b); code != "" {
		fmt.Fprintf(&s, "reason_code: %s\n", code)
	}
	if b.Reason != "" {
		fmt.Fprintf(&s, "reason: %s\n", b.Reason)
	}
	if p := placedWords(b); p != "" {
		fmt.Fprintf(&s, "%s\n", p)
	}
	if b.NotificationID != 0 {
		fmt.Fprintf(&s, "notification: %d\n", b.NotificationID)
		fmt.Fprintf(&s, "accepted: %s\n", dollars(b.AmountAccepted))
	}
	switch {
	case b.Status == engine.StatusSettled && b.Final:
		fmt.Fprintf(&s, "profit: %s (final)\n", signedDollars(b.Profit))
	case b.Status == engine.StatusSettled || b.Status == engine.StatusPlaced:
		fmt.Fprintf(&s, "profit: %s (provisional)\n", signedDollars(b.Profit))
	}
	for _, rec := range b.Records {
		fmt.Fprintf(&s, "session %s\n", recordWords(rec))
	}
	return s.String()
}

func seconds(r *engine.Result) string {
	if r.StartedAt.IsZero() || r.FinishedAt.IsZero() || r.FinishedAt.Before(r.StartedAt) {
		return "0"
	}
	return strconv.FormatFloat(r.FinishedAt.Sub(r.StartedAt).Seconds(), 'f', 3, 64)
}

// junitTime is the start in UTC without a zone, as JUnit consumers expect.
func junitTime(r *engine.Result) string {
	if r.StartedAt.IsZero() {
		return ""
	}
	return r.StartedAt.UTC().Format("2006-01-02T15:04:05")
}

// xmlSafe drops the characters XML 1.0 cannot hold. Attributes and text are
// escaped by encoding/xml, but CDATA is written as it is.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return -1
		}
		return r
	}, s)
}

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
	}
	s.tally()
	for _, a := range r.Assumptions {
		s.Properties = append(s.Properties, junitProperty{Name: "assumed", Value: a})
	}
	return s
}

// money2 is dollars as a property value: two decimals, no sign for a gain.
func money2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
