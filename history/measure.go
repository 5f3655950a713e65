package history

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Fields are the --by fields, in the order the choices are listed.
var Fields = []string{"plan", "day", "week", "month", "venue", "code", "session", "market", "type"}

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
	By      []string // the --by fields, account first when rows are split by it
	Rows    []Row
	Total   Measures
	Skipped []Skipped
	Curves  []Curve // cumulative profit over time, one a plan
	// Differences are what --reconcile found (Reconciled: it was asked).
	Differences []Difference
	Reconciled  bool
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

// item is what a row sums: a bet, or one session's part of one.
type item struct {
	keys     []string
	result   string
	accepted int64
	profit   int64
	odds     float64
	units    *float64
	day      string
	at       time.Time
	order    string
	created  bool // counts as a bet
}

// Summarise sums bets as q asks.
func Summarise(bets []Bet, q Query) Summary {
	by := q.By
	if len(by) == 0 {
		by = []string{"plan"}
	}
	kept := make([]*Bet, 0, len(bets))
	accounts := map[string]bool{}
	for i := range bets {
		b := &bets[i]
		if !q.keeps(b) {
			continue
		}
		kept = append(kept, b)
		if b.Account != "" { // a journal of an earlier betplan names none: it is not a second account
			accounts[b.Account] = true
		}
	}
	if q.Account == "" && len(accounts) > 1 {
		by = append([]string{"account"}, by...)
	}
	if q.Sim {
		by = append([]string{"rehearsal"}, by...)
	}
	session := slices.Contains(by, "session")
	n := len(kept)
	if session {
		for _, b := range kept {
			n += len(b.Sessions)
		}
	}
	items := make([]item, 0, n)
	// Every item's keys are cut from one array, not made one at a time.
	keys := make([]string, n*len(by))
	keysFor := func(b *Bet, s *Session) []string {
		k := keys[:len(by):len(by)]
		keys = keys[len(by):]
		keysOf(k, b, s, by)
		return k
	}
	for _, b := range kept {
		if !session || len(b.Sessions) == 0 {
			units := b.Units
			if !b.Tips {
				units = nil // the service's echo of an odds floor, not a tip's
			}
			items = append(items, item{keys: keysFor(b, nil), result: b.Result, accepted: b.Accepted, profit: b.Profit,
				odds: b.Odds, units: units, day: b.Day, at: b.At, order: b.Label, created: true})
			continue
		}
		for i := range b.Sessions {
			s := &b.Sessions[i]
			items = append(items, item{keys: keysFor(b, s), result: sessionResult(b, s), accepted: s.Accepted, profit: s.Profit,
				odds: s.Odds, day: b.Day, at: b.At, order: fmt.Sprintf("%s#%03d", b.Label, i), created: true})
		}
	}
	order := inTime(items)
	groups := map[string][]int32{}
	var rows []string
	for _, i := range order {
		k := strings.Join(items[i].keys, "\x00")
		if _, ok := groups[k]; !ok {
			rows = append(rows, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.Slice(rows, func(a, b int) bool { return lessKeys(items[groups[rows[a]][0]].keys, items[groups[rows[b]][0]].keys) })
	s := Summary{By: by, Total: measure(items, order)}
	for _, k := range rows {
		g := groups[k]
		row := Row{Keys: map[string]string{}, Measures: measure(items, g)}
		for i, f := range by {
			row.Keys[f] = items[g[0]].keys[i]
		}
		s.Rows = append(s.Rows, row)
	}
	s.Curves = curves(kept)
	return s
}

// keeps reports whether q counts b: its plan, account, days and
// rehearsal.
func (q *Query) keeps(b *Bet) bool {
	if (b.Sim != "") != q.Sim || !matchAccount(b, q.Account) || len(q.Plans) > 0 && !slices.Contains(q.Plans, b.Plan) {
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
		case "account":
			keys[i] = b.Account
		case "rehearsal":
			keys[i] = b.Sim
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

// inTime is the order of items by their result's time; bets still open
// (no time) come last, in the order of their labels.
func inTime(items []item) []int32 {
	order := make([]int32, len(items))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &items[a], &items[b]
		if x.at.IsZero() != y.at.IsZero() {
			if y.at.IsZero() {
				return -1
			}
			return 1
		}
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return strings.Compare(x.order, y.order)
	})
	return order
}

// measure sums the items of order, in that (time) order.
func measure(all []item, order []int32) Measures {
	var m Measures
	var cum, peak int64
	run := 0
	days := map[string]int64{}
	var dayOrder []string
	for _, i := range order {
		it := &all[i]
		if it.created {
			m.Bets++
		}
		switch it.result {
		case "won", "lost", "void":
		case "not_placed":
			m.Refused++
			continue
		default:
			continue
		}
		m.Settled++
		m.Accepted += it.accepted
		m.Profit += it.profit
		switch it.result {
		case "won":
			m.Won++
			run = 0
		case "lost":
			m.Lost++
			run++
			m.LongestLosingRun = max(m.LongestLosingRun, run)
		case "void":
			m.Void++
		}
		if it.result != "void" {
			m.WonLostAccepted += it.accepted
			m.WonLostProfit += it.profit
			m.OddsWeight += it.odds * float64(it.accepted)
		}
		cum += it.profit
		peak = max(peak, cum)
		m.MaxDrawdown = max(m.MaxDrawdown, peak-cum)
		if _, ok := days[it.day]; !ok {
			dayOrder = append(dayOrder, it.day)
		}
		days[it.day] += it.profit
		if it.units != nil {
			if m.Units == nil {
				m.Units = new(float64)
			}
			*m.Units += *it.units
		}
	}
	sort.Strings(dayOrder)
	for _, d := range dayOrder {
		p := days[d]
		if m.BestDay == nil || p > m.BestDay.Profit {
			m.BestDay = &DayProfit{d, p}
		}
		if m.WorstDay == nil || p < m.WorstDay.Profit {
			m.WorstDay = &DayProfit{d, p}
		}
	}
	return m
}

// curves are each plan's cumulative profit over time, for the chart.
func curves(bets []*Bet) []Curve {
	ends := func(b *Bet) bool { return b.Final && b.Result != "not_placed" && !b.At.IsZero() }
	count := map[string]int{}
	for _, b := range bets {
		if ends(b) {
			count[b.Plan]++
		}
	}
	byPlan := make(map[string][]*Bet, len(count))
	for _, b := range bets {
		if ends(b) {
			if byPlan[b.Plan] == nil {
				byPlan[b.Plan] = make([]*Bet, 0, count[b.Plan])
			}
			byPlan[b.Plan] = append(byPlan[b.Plan], b)
		}
	}
	var out []Curve
	for _, p := range slices.Sorted(maps.Keys(byPlan)) {
		bs := byPlan[p]
		sort.SliceStable(bs, func(a, b int) bool { return bs[a].At.Before(bs[b].At) })
		c := Curve{Plan: p, Points: make([]Point, 0, len(bs))}
		var cum int64
		for _, b := range bs {
			cum += b.Profit
			c.Points = append(c.Points, Point{At: b.At, Profit: cum})
		}
		out = append(out, c)
	}
	return out
}
