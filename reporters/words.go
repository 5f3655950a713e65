package reporters

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/engine/book"
)

// The words and numbers every human-readable format shares, so text,
// Markdown and HTML say the same thing the same way.

// rowID is the id a bet's row shows: the id cancel takes (the bet's own id
// in a result made without instance ids).
func rowID(b *engine.BetResult) string {
	if b.InstanceID != "" {
		return b.InstanceID
	}
	return b.ID
}

// raceName names a race as punters do: "Flemington R3". The race code
// (Galloping, Harness, Greyhounds) is in report.json; the venue says it.
func raceName(r engine.RaceInfo) string {
	if e := r.Event; e != nil {
		return eventName(e)
	}
	if r.Venue == "" && r.EventNumber == 0 {
		return "-"
	}
	s := r.Venue
	if r.EventNumber > 0 {
		s += " R" + strconv.Itoa(r.EventNumber)
	}
	return strings.TrimSpace(s)
}

// marketWords is what was backed, as punters say it: the market ("Fixed
// Win") says more than the bet type ("Fixed Wager").
func marketWords(b *engine.BetResult) string {
	if b.Market != "" {
		return b.Market
	}
	return b.Type
}

// outcome is where a bet stands in a punter's words: won, lost, void, not
// placed or in doubt, else the status's own words.
func outcome(b *engine.BetResult) string {
	switch b.Status {
	case engine.StatusSettled:
		switch {
		case isVoid(b):
			return "void"
		case cents(b.Profit) > 0:
			return "won"
		case cents(b.Profit) < 0:
			return "lost"
		}
		return "settled"
	case engine.StatusNotTaken, engine.StatusFailed:
		return "not placed"
	}
	return statusWords(b.Status)
}

// statusCell is a bet's status in a table: a bet cancelled after sessions
// placed it says both ("cancelled · $10.00 placed · lost").
func statusCell(b *engine.BetResult, status string) string {
	if !b.Canceled || cents(b.AmountAccepted) <= 0 {
		return status
	}
	s := "cancelled · " + dollars(b.AmountAccepted) + " placed"
	if b.Status == engine.StatusSettled {
		s += " · " + outcome(b)
	}
	return s
}

// outcomeCounts lists "2 won · 5 lost" for the outcomes that occur.
func outcomeCounts(r *engine.Result) string {
	n := map[string]int{}
	var order []string
	for i := range r.Bets {
		o := outcome(&r.Bets[i])
		if n[o] == 0 {
			order = append(order, o)
		}
		n[o]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return outcomeRank(a) - outcomeRank(b) })
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = strconv.Itoa(n[o]) + " " + o
	}
	return strings.Join(parts, " · ")
}

// outcomeRank orders outcome tiles: results first, then what needs eyes,
// then what is still going on.
func outcomeRank(o string) int {
	for i, w := range []string{"won", "lost", "void", "settled", "not placed", "in doubt", "failed", "unresolved", "placed", "created", "waiting", "skipped", "cancelled"} {
		if o == w {
			return i
		}
	}
	return 100
}

// isVoid reports whether the service resulted the bet void (a scratching,
// an abandoned race): the stake comes back.
func isVoid(b *engine.BetResult) bool {
	if len(b.Records) == 0 {
		return strings.HasPrefix(strings.ToLower(b.Reason), "void")
	}
	for _, rec := range b.Records {
		switch strings.ToUpper(rec.Status) {
		case "VOID", "REFUNDED", "SCRATCHED":
		default:
			if rec.Amount > 0 {
				return false
			}
		}
	}
	return true
}

// outcomeTone colours an outcome; the word always says it first.
func outcomeTone(b *engine.BetResult) tone {
	switch outcome(b) {
	case "won":
		return toneGood
	case "lost", "not placed":
		return toneBad
	case "void":
		return toneDim
	}
	return statusTone(b)
}

// takenOdds is the odds a bet was placed at, averaged over the sessions
// by amount placed, or "-" before any session placed it.
func takenOdds(b *engine.BetResult) string {
	var placed book.Total
	var weighted float64 // dollars × odds: no money of its own
	for _, rec := range b.Records {
		if rec.Amount > 0 && rec.Odds > 0 {
			placed.Add(rec.Amount)
			weighted += rec.Amount * rec.Odds
		}
	}
	if placed.Cents() == 0 {
		return "-"
	}
	return oddsWords(weighted / placed.Dollars())
}

// returnWords is the money a settled bet brought back (stake plus profit:
// $0.00 on a loser, the stake on a void), or "-" before it is settled.
func returnWords(b *engine.BetResult) string {
	if b.Status != engine.StatusSettled || !hasOutcome(b) {
		return "-"
	}
	return dollars(max(0, b.AmountAccepted+b.Profit))
}

// group sums the bets of one venue or one meeting day.
type group struct {
	Name     string
	Bets     int
	Accepted float64
	Profit   float64
	// accepted and profit add Accepted and Profit up (book.Total).
	accepted, profit book.Total
}

// groupBets sums r's bets by key, in order of first appearance; bets
// with an empty key are left out.
func groupBets(r *engine.Result, key func(*engine.BetResult) string) []group {
	var out []group
	at := map[string]int{}
	for i := range r.Bets {
		b := &r.Bets[i]
		name := key(b)
		if name == "" {
			continue
		}
		k := strings.ToLower(strings.Join(strings.Fields(name), " ")) // FLEMINGTON is Flemington
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, group{Name: name})
		}
		g := &out[j]
		g.Bets++
		g.accepted.Add(b.AmountAccepted)
		g.profit.Add(b.Profit)
		g.Accepted, g.Profit = g.accepted.Dollars(), g.profit.Dollars()
	}
	return out
}

func byVenue(r *engine.Result) []group {
	return groupBets(r, func(b *engine.BetResult) string { return b.Race.Venue })
}

func byDay(r *engine.Result) []group {
	return groupBets(r, func(b *engine.BetResult) string {
		if b.Race.Start.IsZero() {
			return ""
		}
		return meetingDay(b.Race)
	})
}

// stakeWords is what a bet asks for: its stake, or its target profit.
func stakeWords(b *engine.BetResult) string {
	switch {
	case b.Stake != nil:
		return dollars(*b.Stake)
	case b.TargetProfit != nil:
		return "tp " + dollars(*b.TargetProfit)
	}
	return "-"
}

// hasOutcome reports whether the bet's money columns mean anything: only a
// created notification can have accepted amounts or a profit.
func hasOutcome(b *engine.BetResult) bool {
	return b.NotificationID != 0 || b.AmountAccepted != 0 || b.Profit != 0 || len(b.Records) > 0
}

// provisional reports whether the bet's profit may still change.
func provisional(b *engine.BetResult) bool {
	return (b.Status == engine.StatusSettled || b.Status == engine.StatusPlaced) && !b.Final && b.Profit != 0
}

// profitWords is the profit column: signed, "*" when provisional, "-" when the
// bet has no notification.
func profitWords(b *engine.BetResult) string {
	if !hasOutcome(b) {
		return "-"
	}
	s := signedDollars(b.Profit)
	if provisional(b) {
		s += "*"
	}
	return s
}

func acceptedWords(b *engine.BetResult) string {
	if !hasOutcome(b) {
		return "-"
	}
	return dollars(b.AmountAccepted)
}

// statusWords is the status as a punter reads it.
func statusWords(s engine.Status) string { return s.Words() }

// readOnly reports whether r is a status that read the plan to the end:
// it ended nothing (a run may still be live), so "ended: completed" would
// mislead; an error still says how the read ended.
func readOnly(r *engine.Result) bool {
	return r.Kind == engine.KindStatus && r.EndReason == engine.EndCompleted
}

// tone is how a status, action or amount should strike the reader; each
// format turns it into a colour.
type tone int

const (
	tonePlain tone = iota
	toneGood
	toneBad
	toneWarn
	toneBusy
	toneDim
)

func statusTone(b *engine.BetResult) tone {
	switch b.Status {
	case engine.StatusSettled:
		return profitTone(b.Profit)
	case engine.StatusFailed, engine.StatusNotTaken, engine.StatusUnresolved, engine.StatusInDoubt:
		return toneBad
	case engine.StatusWaiting:
		return toneWarn
	case engine.StatusCreated, engine.StatusPlaced:
		return toneBusy
	case engine.StatusSkipped, engine.StatusCanceled:
		return toneDim
	}
	return tonePlain
}

func actionTone(a engine.Action) tone {
	switch a {
	case engine.ActionCreate, engine.ActionPublish:
		return toneGood
	case engine.ActionRefuse, engine.ActionUnresolved:
		return toneBad
	case engine.ActionWait:
		return toneWarn
	case engine.ActionAdopt:
		return toneBusy
	case engine.ActionSkip, engine.ActionNone:
		return toneDim
	}
	return tonePlain
}

func profitTone(p float64) tone {
	switch c := cents(p); {
	case c > 0:
		return toneGood
	case c < 0:
		return toneBad
	}
	return tonePlain
}

// attention ranks bets for summaries that must be short: what needs a
// person's eyes comes first (lower is earlier).
func attention(b *engine.BetResult) int {
	if b.Error != "" {
		return 0
	}
	switch b.Status {
	case engine.StatusFailed, engine.StatusNotTaken, engine.StatusUnresolved, engine.StatusInDoubt:
		return 0
	case engine.StatusWaiting, engine.StatusCreated, engine.StatusPlaced:
		return 1
	case engine.StatusSettled:
		if !b.Final {
			return 1
		}
		return 3
	case engine.StatusSkipped, engine.StatusCanceled:
		return 2
	}
	return 1
}

// statusCounts lists "3 settled, 1 failed" for the statuses that occur, in
// report order; unknown statuses follow.
func statusCounts(r *engine.Result) string {
	return counts(len(r.Bets), func(i int) engine.Status { return r.Bets[i].Status }, engine.Statuses(), true, statusWords)
}

// counts lists "3 settled, 1 failed": how many of the n items (item i is
// at(i)) are in each state of order that occurs, in order's order; with
// rest, the states order lacks follow in the order they first occur.
func counts[S comparable](n int, at func(int) S, order []S, rest bool, words func(S) string) string {
	seen := map[S]int{}
	for i := range n {
		seen[at(i)]++
	}
	var parts []string
	add := func(s S) {
		if seen[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", seen[s], words(s)))
			delete(seen, s)
		}
	}
	for _, s := range order {
		add(s)
	}
	if rest {
		for i := range n {
			add(at(i))
		}
	}
	return strings.Join(parts, ", ")
}

// actionOrder lists every action in the order previews list them.
var actionOrder = []engine.Action{engine.ActionCreate, engine.ActionAdopt, engine.ActionWait,
	engine.ActionNone, engine.ActionSkip, engine.ActionUnresolved, engine.ActionRefuse}

func actionCounts(r *engine.Result) string {
	return counts(len(r.Bets), func(i int) engine.Action { return r.Bets[i].Action }, actionOrder, false,
		func(a engine.Action) string { return string(a) })
}

// session sums what one bookmaker session did over a result.
type session struct {
	Bookie, Name     string
	Bets, Accepted   int
	Errors, InReview int
	Amount, Profit   float64
	// amount and profit add Amount and Profit up (book.Total).
	amount, profit book.Total
}

// sessions sums records per bookmaker session, in order of first appearance.
func sessions(r *engine.Result) []session {
	var out []session
	idx := map[[2]string]int{}
	for i := range r.Bets {
		for _, rec := range r.Bets[i].Records {
			k := [2]string{rec.Bookie, rec.DisplayName}
			j, ok := idx[k]
			if !ok {
				j = len(out)
				idx[k] = j
				out = append(out, session{Bookie: rec.Bookie, Name: rec.DisplayName})
			}
			s := &out[j]
			s.Bets++
			switch {
			case strings.EqualFold(rec.SubmitResult, "Success"):
				if rec.Amount > 0 {
					s.Accepted++
				}
			case strings.EqualFold(rec.SubmitResult, "Error"):
				s.Errors++
			case strings.EqualFold(rec.SubmitResult, "In Review"):
				s.InReview++
			}
			s.amount.Add(rec.Amount)
			s.profit.Add(rec.Profit)
			s.Amount, s.Profit = s.amount.Dollars(), s.profit.Dollars()
		}
	}
	return out
}

// sessionName names a bookmaker session by its display name, with the
// bookie beside it: "Main (bet365)", or "Main Sportsbet (#42)" when the
// service sends the bookie as a number.
func sessionName(bookie, name string) string {
	switch {
	case bookie == "":
		return name
	case name == "" || name == bookie:
		return bookie
	}
	if strings.Trim(bookie, "0123456789") == "" {
		bookie = "#" + bookie
	}
	return name + " (" + bookie + ")"
}

// recordWords describes one session's attempt in a line.
func recordWords(rec engine.Record) string {
	var b strings.Builder
	b.WriteString(sessionName(rec.Bookie, rec.DisplayName))
	b.WriteString(": ")
	res := rec.SubmitResult
	if res == "" {
		res = "no result"
	}
	b.WriteString(res)
	if rec.SubmitError != "" {
		b.WriteString(" (" + oneLine(rec.SubmitError) + ")")
	}
	if rec.Amount > 0 {
		b.WriteString(", " + dollars(rec.Amount))
		if rec.Odds > 0 {
			b.WriteString(" @ " + strconv.FormatFloat(rec.Odds, 'f', 2, 64))
		}
	}
	if rec.Status != "" {
		b.WriteString(", " + rec.Status)
	}
	if rec.Profit != 0 {
		b.WriteString(", " + signedDollars(rec.Profit))
	}
	return b.String()
}

func kindTitle(r *engine.Result) string {
	switch r.Kind {
	case engine.KindPlan:
		return "plan preview"
	case engine.KindStatus:
		if r.Command != "" {
			return r.Command
		}
		return "status"
	}
	return "run"
}

// span is the command's start and end in the machine's zone, marked
// "sim time" against a simulated service (times.go).
func span(r *engine.Result) string { return ClockOf(r).Span(r.StartedAt, r.FinishedAt) }

// atRiskWords is a bet's money at risk, "" while it is not known.
func atRiskWords(b *engine.BetResult) string {
	if b.AtRiskBasis == "" && b.AtRisk == 0 {
		return ""
	}
	return dollars(b.AtRisk)
}

// atRiskNote says how a bet's at-risk amount was worked out, when it is an
// estimate that differs from the requested amount (what the sessions
// accepted, or an amount placed once, needs no note).
func atRiskNote(b *engine.BetResult) string {
	if b.AtRiskBasis == "" || strings.HasPrefix(b.AtRiskBasis, "accepted by") || strings.HasPrefix(b.AtRiskBasis, "cancelled") {
		return ""
	}
	requested := b.Stake
	if requested == nil {
		requested = b.TargetProfit
	}
	if requested != nil && cents(*requested) == cents(b.AtRisk) {
		return ""
	}
	return "at risk " + dollars(b.AtRisk) + ": " + b.AtRiskBasis
}

// placedWords says when a bet was placed and by which sessions, in the
// race's own clock like its start; "" while nothing is placed.
func placedWords(b *engine.BetResult) string {
	if b.PlacedAt.IsZero() {
		return ""
	}
	s := "placed " + raceClock(b.Race, b.PlacedAt)
	if len(b.PlacedBy) > 0 {
		s += " by " + strings.Join(b.PlacedBy, ", ")
	}
	if len(b.RefusedBy) > 0 {
		s += "; refused by " + strings.Join(b.RefusedBy, "; ")
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

// tipCounts is "3 tips: 2 published, 1 unknown".
func tipCounts(r *engine.Result) string {
	head := fmt.Sprintf("%d tips", len(r.Tips))
	if len(r.Tips) == 1 {
		head = "1 tip"
	}
	if c := counts(len(r.Tips), func(i int) engine.TipStatus { return r.Tips[i].Status }, engine.TipStatuses(), false,
		func(s engine.TipStatus) string { return string(s) }); c != "" {
		head += ": " + c
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

// reasonCode is a bet's reason as a program reads it, shown beside its
// sentence in the formats people read: "odds_bound", "limit
// max_total_stake", "limit account max_total_stake"; "" for none.
func reasonCode(b *engine.BetResult) string {
	if b.Why.Code == "" {
		return ""
	}
	s := string(b.Why.Code)
	if b.Why.Limit != "" {
		s += " " + b.Why.LimitKey()
	}
	return s
}

// reasonLine is a bet's reason in one line, its code first in brackets:
// "[odds_bound] every session refused it: …"; "" for none.
func reasonLine(b *engine.BetResult) string {
	code := reasonCode(b)
	text := oneLine(b.Reason)
	switch {
	case code == "":
		return text
	case text == "":
		return "[" + code + "]"
	}
	return "[" + code + "] " + text
}

// simulatedWords mark every report of a run against the simulated
// service (a rehearsal), whatever its format.
const simulatedWords = "Simulated service: no real money moved."
