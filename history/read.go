// Package history reads every journal of a state and says how its plans'
// bets ended, summed by plan, day, venue and the like: `betplan history`.
// It reads through the state contract, without any lock and writing
// nothing, so it may run while runs hold their plans.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
)

// rehearsalService is what a rehearsal's (run --sim) journal names as
// its service.
const rehearsalService = "betplan run --sim"

// Bet is one bet a plan created, and how it ended once it did. Money is
// in whole cents.
type Bet struct {
	Plan, Account, Service string
	Label, BetID           string
	// Sim is the rehearsal a bet is of, as the run that brought it into
	// its journal said (engine.RunVerdict): engine.SimServed (betplan sim
	// over loopback, which said it is simulated) or engine.SimInProcess
	// (run --sim); "" for real money.
	Sim string
	// Predates marks a bet written before runs journalled their verdict:
	// it is counted as real.
	Predates bool
	// Tips marks a bet of a plan that publishes tips: only its units are
	// tip figures.
	Tips bool
	// Final is set once the journal kept the bet's outcome.
	Final    bool
	Result   string // won, lost, void, not_placed ("" until final)
	Accepted int64
	Profit   int64
	Odds     float64
	Units    *float64
	Sessions []Session
	Venue    string
	Code     string
	Day      string // the race's meeting day, as the limits count it
	Market   string
	Type     string
	// At orders the bet's result: its result time, else when the outcome
	// was kept.
	At time.Time
}

// Session is one session's part of a bet.
type Session struct {
	Name     string
	Accepted int64
	Odds     float64
	Profit   int64
}

// Skipped is a journal history could not read: the rest is shown, and it
// is named.
type Skipped struct {
	Where  string
	Reason string
}

// Read reads every journal store keeps into its bets, in plan and journal
// order; journals that do not read are skipped and named. Each journal is
// folded record by record as the store reads it, so none is held whole,
// and the store is asked only for the records history reads (wanted). A
// store reads journals side by side, one a CPU: each has a fold of its own.
func Read(ctx context.Context, store state.EveryReader) ([]Bet, []Skipped, error) {
	type journal struct {
		bets    []Bet
		skipped *Skipped
	}
	var (
		mu    sync.Mutex
		read  []journal // by Seq
		folds []*fold   // folds no journal is using
	)
	each := func(j state.StoredJournal) error {
		mu.Lock()
		var f *fold
		if n := len(folds); n > 0 {
			f, folds = folds[n-1], folds[:n-1]
		} else {
			f = newFold()
		}
		mu.Unlock()
		var out journal
		f.begin(j)
		var err error
		if j.Rows != nil {
			err = j.Rows(state.JournalRows{Record: f.record, Outcome: f.outcomeRow, Created: f.created})
		} else {
			err = j.Read(f.record)
		}
		if err == nil {
			err = f.finish()
		}
		if err != nil {
			out.skipped = &Skipped{Where: j.Where, Reason: err.Error()}
		} else {
			out.bets = f.take()
		}
		mu.Lock()
		defer mu.Unlock()
		folds = append(folds, f)
		if j.Seq >= len(read) {
			read = append(read, make([]journal, j.Seq+1-len(read))...)
		}
		read[j.Seq] = out
		return nil
	}
	// A store that keeps outcome entries as rows hands them so, when its
	// schema does.
	rowsRead := false
	var err error
	if r, ok := store.(state.OutcomeRowsReader); ok {
		rowsRead, err = r.ReadOutcomeRows(ctx, each)
	}
	if err == nil && !rowsRead {
		err = store.ReadEvery(ctx, wantedOps, each)
	}
	if err != nil {
		return nil, nil, err
	}
	var skipped []Skipped
	n := 0
	for _, j := range read {
		n += len(j.bets)
		if j.skipped != nil {
			skipped = append(skipped, *j.skipped)
		}
	}
	bets := make([]Bet, 0, n)
	for _, j := range read {
		bets = append(bets, j.bets...)
	}
	return bets, skipped, nil
}

// record is what history reads of a journal entry.
type record struct {
	Op      string             `json:"op"`
	Run     *engine.RunVerdict `json:"run"`
	Time    string             `json:"time"` // parsed only when an outcome has no result time
	Label   string             `json:"label"`
	BetID   string             `json:"bet"`
	Race    *raceInfo          `json:"race"`
	Service string             `json:"service"`
	Account string             `json:"account"`
	Outcome *outcomeRecord     `json:"outcome"`
}

// outcomeRecord is what history reads of an outcome entry's outcome
// (engine.JournalOutcome): the fields it sums and groups by, no more, so
// a large journal decodes quickly.
type outcomeRecord struct {
	BetID      string                  `json:"bet_id"`
	Result     string                  `json:"result"`
	Accepted   float64                 `json:"accepted"`
	Odds       float64                 `json:"odds"`
	Profit     float64                 `json:"profit"`
	Units      *float64                `json:"units"`
	Sessions   []engine.SessionOutcome `json:"sessions"`
	Venue      string                  `json:"venue"`
	Code       string                  `json:"code"`
	Day        string                  `json:"day"`
	Market     string                  `json:"market"`
	Type       string                  `json:"type"`
	ResultTime time.Time               `json:"result_time"`
}

type raceInfo struct {
	Venue string
	Code  string
	Start time.Time
}

// wanted are the entries history reads; the rest (creating, placed,
// alerts, tips…) are passed over without decoding them.
// A record whose op is not found where it is looked for (opOf) is decoded
// whole: nothing wanted is passed over.
var wanted = map[string]bool{"init": true, "service": true, "created": true, "adopted": true, "outcome": true, unknownOp: true}

// wantedOps are the ops of wanted, for the store to select records by.
var wantedOps = []string{"init", "service", "created", "adopted", "outcome"}

// unknownOp is opOf's answer for a record whose op it cannot read.
const unknownOp = "?"

// fold folds the journals into their bets, one journal at a time and a
// record at a time: every label with a notification, and the outcome kept
// for it.
type fold struct {
	// Of the journal being read:
	j                state.StoredJournal
	bets             []Bet // its bets so far
	n                int   // records read
	service, account string
	// run is the verdict of the run whose bets come next (nil: none said
	// yet); inProcess marks a journal of run --sim's own service, a
	// rehearsal whatever it says.
	run       *engine.RunVerdict
	inProcess bool
	index     map[string]int // its bets by label
	// pending are the created (and adopted) records of the journal, in
	// order: a bet whose outcome was kept needs nothing of them (the
	// outcome says it all), so they are applied only to the bets still
	// without one when the journal ends.
	pending []pendingRecord
	// entry and spare are what an outcome entry is read into, and names
	// the strings outcomes repeat, made once.
	entry outcomeEntry
	spare outcomeRecord
	names map[string]string
}

// pendingRecord is a created record kept to be applied at the journal's
// end, its number in the journal, and its bet.
type pendingRecord struct {
	n   int
	bet int
	e   createdEntry
	b   []byte // the record, when e could not be read from it
}

func newFold() *fold {
	return &fold{index: map[string]int{}, names: map[string]string{}}
}

// begin starts on the journal j.
func (f *fold) begin(j state.StoredJournal) {
	f.j, f.n, f.service, f.account, f.run, f.inProcess = j, 0, "", "", nil, j.Rehearsal
	clear(f.index)
	clear(f.bets)
	f.bets = f.bets[:0]
	clear(f.pending)
	f.pending = f.pending[:0]
}

// take hands the journal's bets over: the next journal's are made anew,
// room for as many as this one's made at once.
func (f *fold) take() []Bet {
	bets := f.bets
	f.bets = make([]Bet, 0, len(bets))
	return bets
}

// bet is the index of the bet labelled l, made on its first record.
func (f *fold) bet(l string) int {
	k, ok := f.index[l]
	if !ok {
		k = len(f.bets)
		f.index[l] = k
		b := Bet{Plan: f.j.Name, Label: l}
		switch {
		case f.inProcess:
			b.Sim = engine.SimInProcess
		case f.run == nil:
			b.Predates = true
		case f.run.Money != engine.MoneyReal:
			b.Sim = f.run.Sim
			if b.Sim == "" {
				b.Sim = engine.SimServed
			}
		}
		b.Tips = f.run != nil && f.run.Tips
		f.bets = append(f.bets, b)
	}
	return k
}

// betOf is bet for a label as a record's bytes: a string is made of it
// only for a label not seen before.
func (f *fold) betOf(l []byte) int {
	if k, ok := f.index[string(l)]; ok {
		return k
	}
	return f.bet(string(l))
}

// record folds the journal's next record; b is the store's until it
// returns.
func (f *fold) record(b []byte) error {
	f.n++
	op := opOf(b)
	if !wanted[op] {
		return nil
	}
	if op == "created" || op == "adopted" {
		if l, ok := labelOf(b); ok {
			if k := f.bet(l); !f.bets[k].Final {
				f.pending = append(f.pending, pendingRecord{n: f.n, bet: k})
				p := &f.pending[len(f.pending)-1]
				if !decodeCreatedEntry(b, &p.e, f.names) {
					p.e = createdEntry{}
					p.b = bytes.Clone(b)
				}
			}
			return nil
		}
	}
	if op == "outcome" {
		f.spare = outcomeRecord{Sessions: f.spare.Sessions[:0]}
		f.entry = outcomeEntry{}
		if e := &f.entry; decodeOutcomeEntry(b, e, &f.spare, f.names) {
			var bet *Bet
			switch {
			case len(e.label) > 0:
				bet = &f.bets[f.betOf(e.label)]
			case e.labelText != "":
				bet = &f.bets[f.bet(e.labelText)]
			default:
				return nil
			}
			applies := e.outcome != nil && !bet.Final
			switch {
			case applies && e.outcome.BetID != "": // the outcome's bet id is the one kept
			case len(e.betID) > 0:
				bet.BetID = string(e.betID)
			case e.betIDText != "":
				bet.BetID = e.betIDText
			}
			if applies {
				var at string
				if e.outcome.ResultTime.IsZero() && len(e.time) > 1 {
					if err := json.Unmarshal(e.time, &at); err != nil {
						return fmt.Errorf("record %d does not read (%v)", f.n, err)
					}
				}
				applyOutcome(bet, e.outcome, at)
			}
			return nil
		}
	}
	return f.decode(b, f.n)
}

// decode folds a record read whole.
func (f *fold) decode(b []byte, n int) error {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("record %d does not read (%v)", n, err)
	}
	switch r.Op {
	case "init", "service":
		f.service, f.account = r.Service, r.Account
		if r.Service == rehearsalService {
			f.inProcess = true
		}
		if r.Run != nil {
			f.run = r.Run
		}
		return nil
	}
	if r.Label == "" {
		return nil
	}
	bet := &f.bets[f.bet(r.Label)]
	if r.BetID != "" {
		bet.BetID = r.BetID
	}
	if r.Race != nil {
		bet.Venue, bet.Code = r.Race.Venue, r.Race.Code
		if !r.Race.Start.IsZero() {
			bet.Day = r.Race.Start.Format("2006-01-02")
		}
	}
	if o := r.Outcome; o != nil && !bet.Final {
		applyOutcome(bet, o, r.Time)
	}
	return nil
}

// finish decodes the created records of the bets left without an
// outcome, and marks every bet with the journal's service and account.
func (f *fold) finish() error {
	for _, p := range f.pending {
		switch {
		case f.bets[p.bet].Final:
		case p.b != nil:
			if err := f.decode(p.b, p.n); err != nil {
				return err
			}
		default:
			if err := p.e.apply(&f.bets[p.bet]); err != nil {
				return fmt.Errorf("record %d does not read (%v)", p.n, err)
			}
		}
	}
	for i := range f.bets {
		f.bets[i].Service, f.bets[i].Account = f.service, f.account
	}
	return nil
}

// applyOutcome fills bet from the outcome its journal kept at.
func applyOutcome(bet *Bet, o *outcomeRecord, at string) {
	bet.Final, bet.Result = true, o.Result
	bet.Accepted, bet.Profit, bet.Odds, bet.Units = Cents(o.Accepted), Cents(o.Profit), o.Odds, o.Units
	if o.BetID != "" {
		bet.BetID = o.BetID
	}
	if o.Venue != "" {
		bet.Venue, bet.Code = o.Venue, o.Code
	}
	if o.Day != "" {
		bet.Day = o.Day
	}
	bet.Market, bet.Type = o.Market, o.Type
	bet.At = o.ResultTime
	if bet.At.IsZero() {
		bet.At, _ = time.Parse(time.RFC3339Nano, at)
	}
	bet.Sessions = make([]Session, len(o.Sessions))
	for i, s := range o.Sessions {
		bet.Sessions[i] = Session{Name: s.Session, Accepted: Cents(s.Accepted), Odds: s.Odds, Profit: Cents(s.Profit)}
	}
}

// opOf is a record's op, read without decoding the record: a journal
// holds many entries history has no use for (passedOver for those). It is the first "op" key of
// the object, which is the entry's own: the engine writes it before any
// nested object, and jsonb orders short keys first.
func opOf(b []byte) string {
	i := bytes.Index(b, []byte(`"op":`))
	if i < 0 {
		return unknownOp
	}
	rest := bytes.TrimLeft(b[i+5:], " ")
	if len(rest) == 0 || rest[0] != '"' {
		return unknownOp
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return unknownOp
	}
	op := rest[1 : end+1]
	// The ops history reads are named by its own strings: a record's op
	// is not made a string of its own (one allocation a record).
	for _, w := range wantedOps {
		if string(op) == w {
			return w
		}
	}
	if !wanted[string(op)] {
		return passedOver
	}
	return string(op)
}

// passedOver is opOf's answer for an op history does not read.
const passedOver = ""

// labelOf is a record's label, read without decoding the record, when it
// is written plainly (no escapes); false otherwise.
func labelOf(b []byte) (string, bool) {
	i := bytes.Index(b, []byte(`"label":`))
	if i < 0 {
		return "", false
	}
	rest := bytes.TrimLeft(b[i+8:], " ")
	if len(rest) == 0 || rest[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 || bytes.IndexByte(rest[1:end+1], '\\') >= 0 {
		return "", false
	}
	return string(rest[1 : end+1]), true
}

// Predating is how many journals of the plans and account q asks for hold
// bets written before runs journalled their verdict (Bet.Predates):
// history counts them as real.
func Predating(bets []Bet, q Query) int {
	type journal struct{ plan, service string }
	seen := map[journal]bool{}
	for i := range bets {
		if b := &bets[i]; b.Predates && matchAccount(b, q.Account) && (len(q.Plans) == 0 || slices.Contains(q.Plans, b.Plan)) {
			seen[journal{b.Plan, b.Service}] = true
		}
	}
	return len(seen)
}

// PredatingNote is the line that says so, "" for none.
func PredatingNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("note: %d journal(s) predate the run's verdict (whether it was real money or a rehearsal) and are shown as real", n)
}

// Cents is dollars in whole cents.
func Cents(dollars float64) int64 { return int64(math.Round(dollars * 100)) }

// Dollars is cents as dollars.
func Dollars(cents int64) float64 { return float64(cents) / 100 }

// AccountKey is how a journal names the account called name.
func AccountKey(name string) string { return engine.AccountKey(name) }

// matchAccount reports whether a bet's account is the one key names: the
// journal's name of it, or the account's own name.
func matchAccount(bet *Bet, key string) bool {
	return key == "" || strings.EqualFold(bet.Account, key) || bet.Account == AccountKey(key)
}
