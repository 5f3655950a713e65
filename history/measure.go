package history

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/engine/book"
)

// Fields are the --by fields, in the order the choices are listed.
var Fields = []string{"plan", "day", "week", "month", "venue", "code", "session", "market", "type", "reason"}

// Query says which bets to sum and how to group them.
type Query struct {
	By []string // default plan
	// Since and Until bound the meeting days, both inclusive
	// ("2006-01-02"; "" for none).
	Since, Until string
	Plans        []string // only these plans; none: every plan
	Account      string   // only this account (its name or the journals' key)
	// Sim asks for rehearsals' bets instead of real ones, split by the
	// rehearsal's kind (the rehearsal field).
	Sim bool
	// Curves asks for each plan's cumulative profit over time (the HTML
	// chart): a point kept a settled bet.
	Curves bool
}

// Validate refuses an unknown field or an impossible range.
func (q *Query) Validate() error {
	for _, f := range q.By {
		if !slices.Contains(Fields, f) {
			return fmt.Errorf("--by %q: not a field; choose from %s", f, strings.Join(Fields, ", "))
		}
	}
	for _, d := range []struct{ flag, v string }{{"--since", q.Since}, {"--until", q.Until}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse("2006-01-02", d.v); err != nil {
			return fmt.Errorf("%s %q: want a meeting day as YYYY-MM-DD", d.flag, d.v)
		}
	}
	if q.Since != "" && q.Until != "" && q.Since > q.Until {
		return fmt.Errorf("--since %s is after --until %s: no meeting day is in that range", q.Since, q.Until)
	}
	return nil
}

// Measures are what a row (or the total) sums. Money is in cents.
type Measures struct {
	Bets, Settled, Won, Lost, Void, Refused int
	Accepted, Profit                        int64
	// wonLostAccepted and oddsWeight are over won and lost bets only.
	WonLostAccepted, WonLostProfit int64
	OddsWeight                     float64 // Σ odds × accepted cents
	MaxDrawdown                    int64
	LongestLosingRun               int
	BestDay, WorstDay              *DayProfit
	Units                          *float64
	// NotCreated counts the bets runs decided not to create, and Unplaced
	// is what the bets not placed (refused) and not created meant to bet
	// (their stakes or target profits): read and shown under --by reason.
	NotCreated int
	Unplaced   int64
}

// DayProfit is one meeting day's profit.
type DayProfit struct {
	Day    string
	Profit int64
}

// ROI is profit over accepted, won and lost bets; nil for none.
func (m *Measures) ROI() *float64 {
	if m.WonLostAccepted == 0 {
		return nil
	}
	v := float64(m.WonLostProfit) / float64(m.WonLostAccepted)
	return &v
}

// StrikeRate is won / (won + lost); nil for none.
func (m *Measures) StrikeRate() *float64 {
	if m.Won+m.Lost == 0 {
		return nil
	}
	v := float64(m.Won) / float64(m.Won+m.Lost)
	return &v
}

// AverageOdds is the odds taken, weighted by the amount accepted, over won
// and lost bets; nil for none.
func (m *Measures) AverageOdds() *float64 {
	if m.WonLostAccepted == 0 {
		return nil
	}
	v := m.OddsWeight / float64(m.WonLostAccepted)
	return &v
}

// Row is one group's measures, with its key per --by field (and the
// account, when the state holds several).
type Row struct {
	Keys map[string]string
	Measures
}

// Summary is what history shows: the rows and their total.
type Summary struct {
	By []string // the --by fields, account first when rows are split by it
	// Reasons says the rows are by reason: the bets not created are in
	// them, and the measures of what was not placed are shown.
	Reasons bool
	Rows    []Row
	Total   Measures
	Skipped []Skipped
	Curves  []Curve // cumulative profit over time, one a plan
	// Differences are what --reconcile found (Reconciled: it was asked),
	// and Read what it read of the service.
	Differences []Difference
	Reconciled  bool
	Read        *ServiceRead
}

// Curve is one plan's cumulative profit at each result.
type Curve struct {
	Plan   string
	Points []Point
}

// Point is the cumulative profit after a result.
type Point struct {
	At     time.Time
	Profit int64
}

// Summarise sums bets as q asks, curves and all.
func Summarise(bets []Bet, q Query) Summary {
	q.Curves = true
	t := NewTally(q)
	for i := range bets {
		if err := t.Add(&bets[i]); err != nil {
			panic(err) // a test's handful of bets
		}
	}
	s, err := t.Summary()
	if err != nil {
		panic(err)
	}
	return s
}

// keeps reports whether q counts b: its plan, account, days and
// rehearsal.
func (q *Query) keeps(b *Bet) bool {
	return matchAccount(b, q.Account) && (len(q.Plans) == 0 || slices.Contains(q.Plans, b.Plan)) && q.keepsBet(b)
}

// keepsBet is keeps for what a bet says of itself (its days and
// rehearsal); its journal says its plan and account.
func (q *Query) keepsBet(b *Bet) bool {
	if (b.Sim != "") != q.Sim {
		return false
	}
	return q.Since == "" && q.Until == "" || b.Day != "" && (q.Since == "" || b.Day >= q.Since) && (q.Until == "" || b.Day <= q.Until)
}

// Filter is the bets q counts.
func Filter(bets []Bet, q Query) []Bet {
	var out []Bet
	for i := range bets {
		if q.keeps(&bets[i]) {
			out = append(out, bets[i])
		}
	}
	return out
}

// Tally sums bets as a query asks, one at a time, in any order: a row's
// sums a row, and of each settled bet (or session's part) only what the
// measures taken in time order need (timed), so its memory grows with
// the rows and the settled bets, never with the records read. Every sum
// of cents is checked: one that would not fit int64 is an error, never a
// wrapped figure.
type Tally struct {
	q  Query
	by []string // the query's fields (default plan)
	// rows are the groups by their keys, every key: the account, the
	// rehearsal, then by's; which of the first two show is known only
	// once every bet is in (Summary).
	rows  map[string]int32
	keys  [][]string
	sums  []rowSums
	items []timed
	// points are the settled bets for the curves (Query.Curves), plans
	// the plans they name.
	points   []point
	plans    map[string]int32
	planList []string
	accounts map[string]bool
	// scratch
	keyBuf  []string
	joinBuf []byte
}

// rowSums are a row's sums in the order bets come: all of Measures but
// those taken in time order.
type rowSums struct {
	bets, settled, won, lost, void, refused int
	notCreated                              int
	accepted, profit, unplaced              int64
	wonLostAccepted, wonLostProfit          int64
	oddsWeight                              float64
	units                                   float64
	hasUnits                                bool
	days                                    map[string]int64
}

// timed is one settled bet (or session's part) in the time order the
// drawdown and the losing run are taken in: by its result's time (none:
// last), then its place in the state.
type timed struct {
	at     int64 // UnixNano; hasAt false: none
	seq    uint64
	profit int64
	row    int32
	result uint8
	hasAt  bool
}

// point is a settled bet on its plan's curve.
type point struct {
	at     time.Time
	seq    uint64
	profit int64
	plan   int32
}

const (
	resultWon uint8 = iota + 1
	resultLost
	resultVoid
)

// errOverflow is a sum of cents that does not fit int64.
var errOverflow = errors.New("the sums of these bets do not fit in 64-bit cents: a journal holds amounts no account could have")

// NewTally is an empty tally of q.
func NewTally(q Query) *Tally {
	t := &Tally{}
	t.reset(&q)
	return t
}

// reset empties t for q, keeping what it allocated.
func (t *Tally) reset(q *Query) {
	t.q = *q
	t.by = q.By
	if len(t.by) == 0 {
		t.by = []string{"plan"}
	}
	if t.rows == nil {
		t.rows, t.plans, t.accounts = map[string]int32{}, map[string]int32{}, map[string]bool{}
	}
	clear(t.rows)
	clear(t.plans)
	clear(t.accounts)
	t.keys, t.sums, t.items, t.points, t.planList = t.keys[:0], t.sums[:0], t.items[:0], t.points[:0], t.planList[:0]
}

// Add sums b, if the query counts it.
func (t *Tally) Add(b *Bet) error {
	if b.corrupt || !t.q.keeps(b) {
		return nil
	}
	return t.add(b, b.Account, false)
}

// add sums b into the row of account; filter checks first that the query
// counts what b says of itself (a journal's fold: its plan and account
// are the journal's, checked once it read).
func (t *Tally) add(b *Bet, account string, filter bool) error {
	if filter && !t.q.keepsBet(b) {
		return nil
	}
	if account != "" {
		t.accounts[account] = true
	}
	session := slices.Contains(t.by, "session")
	if !session || len(b.Sessions) == 0 {
		units := b.Units
		if !b.Tips {
			units = nil // the service's echo of an odds floor, not a tip's
		}
		if err := t.item(t.row(b, nil, account), b.Result, b.Accepted, b.Profit, b.Odds, units, b.Requested, b, b.seq); err != nil {
			return err
		}
	} else {
		for i := range b.Sessions {
			s := &b.Sessions[i]
			// A session's part has no stake of its own to count unplaced.
			if err := t.item(t.row(b, s, account), sessionResult(b, s), s.Accepted, s.Profit, s.Odds, nil, 0, b, b.seq|uint64(min(i, 255))<<32); err != nil {
				return err
			}
		}
	}
	if t.q.Curves && b.Final && b.Result != "not_placed" && b.Result != "not_created" && !b.At.IsZero() {
		p, ok := t.plans[b.Plan]
		if !ok {
			p = int32(len(t.planList))
			t.plans[b.Plan] = p
			t.planList = append(t.planList, b.Plan)
		}
		t.points = append(t.points, point{at: b.At, seq: b.seq, profit: b.Profit, plan: p})
	}
	return nil
}

// row is the index of the row of b (or its session s), made on its first
// bet.
func (t *Tally) row(b *Bet, s *Session, account string) int32 {
	k := append(t.keyBuf[:0], account, b.Sim)
	for range t.by {
		k = append(k, "")
	}
	keysOf(k[2:], b, s, t.by)
	t.keyBuf = k
	return t.rowOf(k)
}

// rowOf is the index of the row of keys, made if it is new.
func (t *Tally) rowOf(keys []string) int32 {
	j := t.joinBuf[:0]
	for _, k := range keys {
		j = append(append(j, k...), 0)
	}
	t.joinBuf = j
	if r, ok := t.rows[string(j)]; ok {
		return r
	}
	r := int32(len(t.sums))
	t.rows[string(j)] = r
	t.keys = append(t.keys, slices.Clone(keys))
	t.sums = append(t.sums, rowSums{days: map[string]int64{}})
	return r
}

// item sums one bet or session's part into row r; requested is what a
// bet not placed or not created meant to bet.
func (t *Tally) item(r int32, result string, accepted, profit int64, odds float64, units *float64, requested int64, b *Bet, seq uint64) error {
	m := &t.sums[r]
	var ok bool
	if result == "not_created" {
		m.notCreated++ // not a bet created
		if m.unplaced, ok = book.AddCents(m.unplaced, requested); !ok {
			return errOverflow
		}
		return nil
	}
	m.bets++
	var res uint8
	switch result {
	case "won":
		res = resultWon
	case "lost":
		res = resultLost
	case "void":
		res = resultVoid
	case "not_placed":
		m.refused++
		if m.unplaced, ok = book.AddCents(m.unplaced, requested); !ok {
			return errOverflow
		}
		return nil
	default:
		return nil
	}
	m.settled++
	if m.accepted, ok = book.AddCents(m.accepted, accepted); !ok {
		return errOverflow
	}
	if m.profit, ok = book.AddCents(m.profit, profit); !ok {
		return errOverflow
	}
	switch res {
	case resultWon:
		m.won++
	case resultLost:
		m.lost++
	case resultVoid:
		m.void++
	}
	if res != resultVoid {
		if m.wonLostAccepted, ok = book.AddCents(m.wonLostAccepted, accepted); !ok {
			return errOverflow
		}
		if m.wonLostProfit, ok = book.AddCents(m.wonLostProfit, profit); !ok {
			return errOverflow
		}
		m.oddsWeight += odds * float64(accepted)
	}
	if m.days[b.Day], ok = book.AddCents(m.days[b.Day], profit); !ok {
		return errOverflow
	}
	if units != nil {
		m.units += *units
		m.hasUnits = true
	}
	it := timed{seq: seq, profit: profit, row: r, result: res}
	if !b.At.IsZero() {
		it.at, it.hasAt = b.At.UnixNano(), true
	}
	t.items = append(t.items, it)
	return nil
}

// addSums adds o's sums into m.
func (m *rowSums) addSums(o *rowSums) error {
	m.bets += o.bets
	m.settled += o.settled
	m.won += o.won
	m.lost += o.lost
	m.void += o.void
	m.refused += o.refused
	m.notCreated += o.notCreated
	var ok bool
	for _, a := range []struct{ to, v *int64 }{{&m.accepted, &o.accepted}, {&m.profit, &o.profit}, {&m.unplaced, &o.unplaced},
		{&m.wonLostAccepted, &o.wonLostAccepted}, {&m.wonLostProfit, &o.wonLostProfit}} {
		if *a.to, ok = book.AddCents(*a.to, *a.v); !ok {
			return errOverflow
		}
	}
	m.oddsWeight += o.oddsWeight
	m.units += o.units
	m.hasUnits = m.hasUnits || o.hasUnits
	for d, p := range o.days {
		if m.days[d], ok = book.AddCents(m.days[d], p); !ok {
			return errOverflow
		}
	}
	return nil
}

// merge adds a journal's tally, its rows given the journal's account.
func (t *Tally) merge(o *Tally, account string) error {
	to := make([]int32, len(o.sums))
	for r := range o.sums {
		k := append(t.keyBuf[:0], o.keys[r]...)
		k[0] = account
		t.keyBuf = k
		to[r] = t.rowOf(k)
		if err := t.sums[to[r]].addSums(&o.sums[r]); err != nil {
			return err
		}
		if account != "" {
			t.accounts[account] = true
		}
	}
	for _, it := range o.items {
		it.row = to[it.row]
		t.items = append(t.items, it)
	}
	for _, p := range o.points {
		name := o.planList[p.plan]
		q, ok := t.plans[name]
		if !ok {
			q = int32(len(t.planList))
			t.plans[name] = q
			t.planList = append(t.planList, name)
		}
		p.plan = q
		t.points = append(t.points, p)
	}
	return nil
}

// Summary is the tally's rows and total: rows split by account when the
// bets are of more than one and the query names none, and by rehearsal
// under --sim; the measures taken in time order over every row's bets
// merged in time.
func (t *Tally) Summary() (Summary, error) {
	by := t.by
	showAccount := t.q.Account == "" && len(t.accounts) > 1
	if showAccount {
		by = append([]string{"account"}, by...)
	}
	if t.q.Sim {
		by = append([]string{"rehearsal"}, by...)
	}
	// The rows as shown: every row's keys less those not shown.
	shown := map[string]int{}
	var keys [][]string
	var sums []rowSums
	to := make([]int, len(t.sums))
	for r, k := range t.keys {
		var vis []string
		if t.q.Sim {
			vis = append(vis, k[1])
		}
		if showAccount {
			vis = append(vis, k[0])
		}
		vis = append(vis, k[2:]...)
		j := strings.Join(vis, "\x00")
		i, ok := shown[j]
		if !ok {
			i = len(sums)
			shown[j] = i
			keys = append(keys, vis)
			sums = append(sums, rowSums{days: map[string]int64{}})
		}
		to[r] = i
		if err := sums[i].addSums(&t.sums[r]); err != nil {
			return Summary{}, err
		}
	}
	total := rowSums{days: map[string]int64{}}
	for i := range sums {
		if err := total.addSums(&sums[i]); err != nil {
			return Summary{}, err
		}
	}
	// The drawdown and the losing runs, in time order.
	slices.SortFunc(t.items, func(a, b timed) int {
		if a.hasAt != b.hasAt {
			if a.hasAt {
				return -1
			}
			return 1
		}
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return cmpSeq(a.seq, b.seq)
	})
	runs := make([]timeRun, len(sums)+1) // the rows', then the total's
	for _, it := range t.items {
		for _, r := range []int{to[it.row], len(sums)} {
			if err := runs[r].step(it); err != nil {
				return Summary{}, err
			}
		}
	}
	s := Summary{By: by, Total: total.measures(&runs[len(sums)]), Reasons: slices.Contains(t.by, "reason")}
	order := make([]int, len(sums))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return lessKeys(keys[order[a]], keys[order[b]]) })
	for _, i := range order {
		row := Row{Keys: make(map[string]string, len(by)), Measures: sums[i].measures(&runs[i])}
		for k, f := range by {
			row.Keys[f] = keys[i][k]
		}
		s.Rows = append(s.Rows, row)
	}
	var err error
	s.Curves, err = t.curves()
	return s, err
}

// timeRun is a row's walk in time order: the cumulative profit, its
// peak, the largest fall from it, and the losing runs.
type timeRun struct {
	cum, peak, drawdown int64
	run, longest        int
}

func (r *timeRun) step(it timed) error {
	var ok bool
	if r.cum, ok = book.AddCents(r.cum, it.profit); !ok || r.cum == math.MinInt64 {
		return errOverflow
	}
	r.peak = max(r.peak, r.cum)
	fall, ok := book.AddCents(r.peak, -r.cum)
	if !ok {
		return errOverflow
	}
	r.drawdown = max(r.drawdown, fall)
	switch it.result {
	case resultWon:
		r.run = 0
	case resultLost:
		r.run++
		r.longest = max(r.longest, r.run)
	}
	return nil
}

// measures are m's sums and r's, as Measures.
func (m *rowSums) measures(r *timeRun) Measures {
	out := Measures{Bets: m.bets, Settled: m.settled, Won: m.won, Lost: m.lost, Void: m.void, Refused: m.refused,
		NotCreated: m.notCreated, Unplaced: m.unplaced,
		Accepted: m.accepted, Profit: m.profit, WonLostAccepted: m.wonLostAccepted, WonLostProfit: m.wonLostProfit,
		OddsWeight: m.oddsWeight, MaxDrawdown: r.drawdown, LongestLosingRun: r.longest}
	if m.hasUnits {
		u := m.units
		out.Units = &u
	}
	days := make([]string, 0, len(m.days))
	for d := range m.days {
		days = append(days, d)
	}
	sort.Strings(days)
	for _, d := range days {
		p := m.days[d]
		if out.BestDay == nil || p > out.BestDay.Profit {
			out.BestDay = &DayProfit{d, p}
		}
		if out.WorstDay == nil || p < out.WorstDay.Profit {
			out.WorstDay = &DayProfit{d, p}
		}
	}
	return out
}

// curves are each plan's cumulative profit over time, for the chart.
func (t *Tally) curves() ([]Curve, error) {
	if len(t.points) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(t.points, func(a, b point) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmpSeq(a.seq, b.seq)
	})
	byPlan := make([][]Point, len(t.planList))
	cum := make([]int64, len(t.planList))
	for _, p := range t.points {
		var ok bool
		if cum[p.plan], ok = book.AddCents(cum[p.plan], p.profit); !ok {
			return nil, errOverflow
		}
		byPlan[p.plan] = append(byPlan[p.plan], Point{At: p.at, Profit: cum[p.plan]})
	}
	order := make([]int, len(t.planList))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return t.planList[order[a]] < t.planList[order[b]] })
	out := make([]Curve, 0, len(order))
	for _, i := range order {
		out = append(out, Curve{Plan: t.planList[i], Points: byPlan[i]})
	}
	return out, nil
}

// sessionResult is how one session's part ended.
func sessionResult(b *Bet, s *Session) string {
	switch {
	case !b.Final:
		return ""
	case s.Accepted == 0:
		return "not_placed"
	case s.Profit > 0:
		return "won"
	case s.Profit < 0:
		return "lost"
	}
	return "void"
}

// keysOf fills keys, one for each field of by, with b's key for it.
func keysOf(keys []string, b *Bet, s *Session, by []string) {
	for i, f := range by {
		switch f {
		case "plan":
			keys[i] = b.Plan
		case "day":
			keys[i] = b.Day
		case "week":
			if d, err := time.Parse("2006-01-02", b.Day); err == nil {
				y, w := d.ISOWeek()
				keys[i] = fmt.Sprintf("%04d-W%02d", y, w)
			}
		case "month":
			if len(b.Day) >= 7 {
				keys[i] = b.Day[:7]
			}
		case "venue":
			keys[i] = b.Venue
		case "code":
			keys[i] = b.Code
		case "session":
			if s != nil {
				keys[i] = s.Name
			}
		case "market":
			keys[i] = b.Market
		case "type":
			keys[i] = b.Type
		case "reason":
			keys[i] = b.Reason
		}
	}
}

// lessKeys orders rows by their keys: days, weeks and months are written
// to sort as text; names alphabetically, case aside.
func lessKeys(a, b []string) bool {
	for i := range a {
		x, y := strings.ToLower(a[i]), strings.ToLower(b[i])
		if x != y {
			return x < y
		}
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
