package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// The sports world: like the race meetings, every fixture below is played
// once a day, its first round minutes after the simulator starts, so a
// plan naming "Collingwood v Carlton" rehearses whatever day it is. Each
// event has markets (head to head, a line, a total) with selections,
// prices and lines drawn from the seed, and a final score drawn at the
// same time, shown once the event is resulted (ResultDelay after its end).

type fixture struct {
	Sport, Competition string
	Home, Away         string
	After              time.Duration // after the round's start
	Length             time.Duration // from the start to the final siren
}

var fixtures = []fixture{
	{"NBA", "NBA Regular Season", "Lakers", "Celtics", 10 * time.Minute, 2*time.Hour + 15*time.Minute},
	{"Tennis", "Sample Open", "M. Ferraro", "J. Whitlock", 15 * time.Minute, time.Hour + 50*time.Minute},
	{"AFL", "AFL Premiership", "Collingwood", "Carlton", 20 * time.Minute, 2*time.Hour + 30*time.Minute},
	{"NBA", "NBA Regular Season", "Bulls", "Knicks", 3*time.Hour + 10*time.Minute, 2*time.Hour + 15*time.Minute},
	{"Tennis", "Sample Open", "A. Okafor", "L. Brandt", 2*time.Hour + 30*time.Minute, 2 * time.Hour},
	{"AFL", "AFL Premiership", "Richmond", "Essendon", 3*time.Hour + 40*time.Minute, 2*time.Hour + 30*time.Minute},
}

// sport is how one sport scores and prices: the spread of team strengths
// (the expected margin), the noise of a result around it, the usual total,
// its noise, and the names of its markets.
type sport struct {
	strength, noise float64
	total, totalSD  float64
	line, totalName string
	draws           bool
}

var sportRules = map[string]sport{
	"AFL":    {strength: 18, noise: 30, total: 165, totalSD: 22, line: "Line", totalName: "Total Points", draws: true},
	"NBA":    {strength: 6, noise: 11, total: 222, totalSD: 14, line: "Line", totalName: "Total Points"},
	"Tennis": {strength: 2.5, noise: 3.5, total: 22, totalSD: 3, line: "Games Handicap", totalName: "Total Games"},
}

// sportsMarkets lists each sport's markets (GET /bookie/markets/).
var sportsMarkets = func() map[string][]string {
	m := map[string][]string{}
	for name, r := range sportRules {
		m[name] = []string{marketH2H, r.line, r.totalName}
	}
	return m
}()

const marketH2H = "Head To Head"

// side is what a selection backs.
type side int

const (
	sideHome side = iota
	sideAway
	sideOver
	sideUnder
)

type sportSelection struct {
	ID      int
	Name    string
	Odds    float64
	Line    float64
	HasLine bool
	side    side
}

type sportMarket struct {
	ID         int
	Name       string
	Selections []*sportSelection
}

type sportEvent struct {
	ID         int
	Round      int
	fix        *fixture
	Start      time.Time
	End        time.Time
	resultIn   time.Duration
	home, away int // the final score (games, in tennis)
	Markets    []*sportMarket
}

func (e *sportEvent) name() string        { return e.fix.Home + " v " + e.fix.Away }
func (e *sportEvent) resultAt() time.Time { return e.End.Add(e.resultIn) }

// local shows t as the clock of the event: Melbourne's for every sport.
func (e *sportEvent) local(t time.Time) time.Time { return localTime(t, "VIC") }

func (e *sportEvent) score() string {
	return fmt.Sprintf("%s %d - %d %s", e.fix.Home, e.home, e.away, e.fix.Away)
}

func (e *sportEvent) market(id int) *sportMarket {
	for _, m := range e.Markets {
		if m.ID == id {
			return m
		}
	}
	return nil
}

func (m *sportMarket) selection(id int) *sportSelection {
	for _, s := range m.Selections {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// makeEvents adds a round's fixtures, after its races: ids 9001 + 100 a
// round + the fixture's place.
func (w *world) makeEvents(round int, base time.Time) {
	for i := range fixtures {
		f := &fixtures[i]
		rng := rand.New(rand.NewPCG(uint64(w.seed), mix(uint64(round), 7919, uint64(i))))
		r := sportRules[f.Sport]
		start := base.Add(f.After)
		e := &sportEvent{ID: 9001 + 100*round + i, Round: round, fix: f, Start: start, End: start.Add(f.Length), resultIn: w.resultDelay}

		margin := rng.NormFloat64() * r.strength // the home side's expected margin
		pHome := normalCDF(margin / r.noise)
		total := r.total + rng.NormFloat64()*r.totalSD/3
		id := e.ID * 100
		next := func() int { id++; return id }
		h2h := &sportMarket{ID: e.ID*10 + 0, Name: marketH2H, Selections: []*sportSelection{
			{ID: next(), Name: f.Home, Odds: price(pHome), side: sideHome},
			{ID: next(), Name: f.Away, Odds: price(1 - pHome), side: sideAway},
		}}
		line := halfPoint(margin)
		lines := &sportMarket{ID: e.ID*10 + 1, Name: r.line, Selections: []*sportSelection{
			{ID: next(), Name: f.Home, Odds: 1.90, Line: -line, HasLine: true, side: sideHome},
			{ID: next(), Name: f.Away, Odds: 1.90, Line: line, HasLine: true, side: sideAway},
		}}
		totalLine := math.Floor(total) + 0.5
		totals := &sportMarket{ID: e.ID*10 + 2, Name: r.totalName, Selections: []*sportSelection{
			{ID: next(), Name: "Over", Odds: 1.87, Line: totalLine, HasLine: true, side: sideOver},
			{ID: next(), Name: "Under", Odds: 1.87, Line: totalLine, HasLine: true, side: sideUnder},
		}}
		e.Markets = []*sportMarket{h2h, lines, totals}

		// The result, drawn now and shown once resulted.
		final := margin + rng.NormFloat64()*r.noise
		sum := math.Max(total+rng.NormFloat64()*r.totalSD, math.Abs(final)+2)
		e.home = int(math.Round((sum + final) / 2))
		e.away = int(math.Round((sum - final) / 2))
		if e.home == e.away && !r.draws {
			e.home++ // overtime, or a tie-break
		}
		w.events = append(w.events, e)
	}
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// price is the bookmaker's odds for a chance p, with a 5% margin, to the
// cent, between 1.01 and 51.
func price(p float64) float64 {
	o := 1 / (math.Max(p, 0.02) * 1.05)
	return math.Min(math.Max(math.Round(o*100)/100, 1.01), 51)
}

// halfPoint rounds a margin to the nearest x.5, so a line never pushes.
func halfPoint(x float64) float64 {
	return math.Copysign(math.Floor(math.Abs(x))+0.5, x)
}

func (w *world) event(id int) *sportEvent {
	for _, e := range w.events {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// status is where the event stands at now.
func (e *sportEvent) status(now time.Time) string {
	switch {
	case !now.Before(e.resultAt()):
		return "finished"
	case !now.Before(e.Start):
		return "live"
	}
	return "upcoming"
}

// listJSON is an entry of GET /event/list/.
func (e *sportEvent) listJSON(now time.Time) map[string]any {
	return map[string]any{
		"id": e.ID, "sports": e.fix.Sport, "name": e.name(), "competition": e.fix.Competition,
		"home": e.fix.Home, "away": e.fix.Away,
		"start_time": e.local(e.Start).Format(layoutSecond), "status": e.status(now),
	}
}

// detailJSON is GET /event/{id}/: the entry with its markets, and once
// resulted the score.
func (e *sportEvent) detailJSON(now time.Time) map[string]any {
	m := e.listJSON(now)
	markets := make([]any, 0, len(e.Markets))
	for _, mk := range e.Markets {
		sels := make([]any, 0, len(mk.Selections))
		for _, s := range mk.Selections {
			v := map[string]any{"id": s.ID, "name": s.Name, "odds": s.Odds}
			if s.HasLine {
				v["handicap"] = s.Line
			}
			sels = append(sels, v)
		}
		markets = append(markets, map[string]any{"id": mk.ID, "name": mk.Name, "selections": sels})
	}
	m["markets"] = markets
	m["result"] = nil
	if !now.Before(e.resultAt()) {
		m["result"] = e.score()
	}
	return m
}

// eventList is the events not started yet, soonest first.
func (w *world) eventList(now time.Time) []any {
	out := []any{}
	for _, e := range w.events {
		if e.Start.After(now) {
			out = append(out, e.listJSON(now))
		}
	}
	return out
}

// sportsBet is what a sports notification backs.
type sportsBet struct {
	event     *sportEvent
	market    *sportMarket
	selection *sportSelection
	line      float64 // asked for, when hasLine
	hasLine   bool
	better    bool // accept_better_line
	placedAt  float64
}

// readSports reads a sports create's event, market, selection and line.
// As the newer docs have it, only type and sports are required: a create
// without the ids is accepted and, like one for a race the world does not
// have, never placed nor resulted. The ids are the service's foreign keys:
// one given that names nothing, or not the event's, is a field error.
func (s *Service) readSports(n *notification, m map[string]json.RawMessage, fe fieldErrors) {
	id := func(key string) (int, bool) {
		v, ok := str(m, key)
		if !ok || strings.TrimSpace(v) == "" {
			return 0, false
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			fe.add(key, fmt.Sprintf("Incorrect type. Expected pk value, received %q.", v))
			return 0, false
		}
		return i, true
	}
	eid, hasEvent := id("event_id")
	mid, hasMarket := id("sports_market")
	sid, hasSelection := id("sports_selection")
	b := &sportsBet{better: boolean(m, "accept_better_line")}
	if v, present, ok := num(m, "handicap"); present {
		if !ok {
			fe.add("handicap", "A valid number is required.")
		}
		b.line, b.hasLine = v, ok
	}
	notFound := func(key string, id int) { fe.add(key, fmt.Sprintf("Invalid pk \"%d\" - object does not exist.", id)) }
	if hasEvent {
		if b.event = s.world.event(eid); b.event == nil {
			notFound("event_id", eid)
		} else if !strings.EqualFold(n.Sports, b.event.fix.Sport) {
			fe.add("sports", fmt.Sprintf("Event %d is %s, not %s.", eid, b.event.fix.Sport, n.Sports))
		}
	}
	if hasMarket {
		if b.event != nil {
			b.market = b.event.market(mid)
		}
		if b.market == nil {
			notFound("sports_market", mid)
		}
	}
	if hasSelection {
		if b.market != nil {
			b.selection = b.market.selection(sid)
		}
		if b.selection == nil {
			notFound("sports_selection", sid)
		}
	}
	if b.event == nil || b.market == nil || b.selection == nil {
		return // nothing to place
	}
	n.Market, n.Selection = b.market.Name, b.selection.Name
	n.sports = b
}

// sportsPrice is the odds a bookmaker offers for a sports notification,
// and the line it takes it at, or the error a bot meets: the line asked
// for is the line listed, or worse than it with accept_better_line.
func (b *sportsBet) price() (float64, float64, string) {
	sel := b.selection
	if !sel.HasLine || !b.hasLine || b.line == sel.Line {
		return sel.Odds, sel.Line, ""
	}
	better := sel.Line > b.line // more points start for a side, a higher bar for Under
	if sel.side == sideOver {
		better = sel.Line < b.line
	}
	if better && b.better {
		return sel.Odds, sel.Line, ""
	}
	return 0, 0, fmt.Sprintf("The line for %s is %s, not %s.", sel.Name, fmtLine(sel.Line), fmtLine(b.line))
}

func fmtLine(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// outcome is how a sports bet placed at line ends: won, lost or void (a
// draw in head to head, a line or total landed on exactly).
func (b *sportsBet) outcome() (won, void bool) {
	e, sel := b.event, b.selection
	mine, theirs := float64(e.home), float64(e.away)
	if sel.side == sideAway {
		mine, theirs = theirs, mine
	}
	var diff float64
	switch {
	case b.market.Name == marketH2H:
		diff = mine - theirs
	case sel.side == sideOver:
		diff = float64(e.home+e.away) - b.placedAt
	case sel.side == sideUnder:
		diff = b.placedAt - float64(e.home+e.away)
	default:
		diff = mine + b.placedAt - theirs
	}
	return diff > 0, diff == 0
}

// SportsEventInfo describes a sports event of the world, for tests.
type SportsEventInfo struct {
	ID          int
	Sport       string
	Name        string
	Competition string
	Start, End  time.Time
	Markets     []SportsMarketInfo
	Result      string // the score once resulted, else ""
	HomeScore   int    // the final score, drawn in advance: for tests only
	AwayScore   int
}

// SportsMarketInfo is one market of a SportsEventInfo.
type SportsMarketInfo struct {
	ID         int
	Name       string
	Selections []SportsSelectionInfo
}

// SportsSelectionInfo is one selection of a SportsMarketInfo.
type SportsSelectionInfo struct {
	ID      int
	Name    string
	Odds    float64
	Line    float64
	HasLine bool
}

// SportsEvents returns the world's sports events made so far, in order of
// creation: by round, then fixture.
func (s *Service) SportsEvents() []SportsEventInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.advance(now)
	out := make([]SportsEventInfo, 0, len(s.world.events))
	for _, e := range s.world.events {
		info := SportsEventInfo{ID: e.ID, Sport: e.fix.Sport, Name: e.name(), Competition: e.fix.Competition,
			Start: e.Start, End: e.End, HomeScore: e.home, AwayScore: e.away}
		if !now.Before(e.resultAt()) {
			info.Result = e.score()
		}
		for _, m := range e.Markets {
			mi := SportsMarketInfo{ID: m.ID, Name: m.Name}
			for _, sel := range m.Selections {
				mi.Selections = append(mi.Selections, SportsSelectionInfo{ID: sel.ID, Name: sel.Name, Odds: sel.Odds, Line: sel.Line, HasLine: sel.HasLine})
			}
			info.Markets = append(info.Markets, mi)
		}
		out = append(out, info)
	}
	return out
}

// off is when bots stop taking the notification up: its race's off or its
// event's start; false when the world has neither.
func (n *notification) off() (time.Time, bool) {
	switch {
	case n.race != nil:
		return n.race.off(), true
	case n.sports != nil:
		return n.sports.event.Start, true
	}
	return time.Time{}, false
}

// resultAt is when the notification's race or event is resulted; zero
// when the world has neither, and it is never resulted.
func (n *notification) resultAt() time.Time {
	switch {
	case n.race != nil:
		return n.race.resultAt()
	case n.sports != nil:
		return n.sports.event.resultAt()
	}
	return time.Time{}
}

// What a sports notification echoes of its create: the ids as numbers,
// the line asked for, or the line it was placed at once placed. Each is
// nil (omitted) on a racing notification.
func (b *sportsBet) eventID() any {
	if b == nil {
		return nil
	}
	return b.event.ID
}

func (b *sportsBet) marketID() any {
	if b == nil {
		return nil
	}
	return b.market.ID
}

func (b *sportsBet) selectionID() any {
	if b == nil {
		return nil
	}
	return b.selection.ID
}

func (b *sportsBet) handicap() any {
	switch {
	case b == nil:
		return nil
	case b.hasLine:
		return b.line
	case b.selection.HasLine:
		return b.selection.Line
	}
	return nil
}
