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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/engine/bet"
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
	// Reason is why a bet was not placed (its outcome's reason code), or
	// not created; "" for a bet placed. NotCreated marks a bet a run
	// decided not to create (read only for --by reason), and Requested is
	// its stake or target profit, what the plan meant to bet.
	Reason     string
	NotCreated bool
	Requested  int64

	// seq places the bet in the state: its journal's place, then the
	// record it was first seen in. Results at one time are taken in it.
	seq uint64
	// corrupt marks a bet whose outcome was a corrupt record: it is in
	// no sum.
	corrupt bool
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

// Reading is what Read made of a state.
type Reading struct {
	// Tally holds the bets that ended, as the query sums them.
	Tally *Tally
	// Open are the bets of the plans asked for whose journal kept no
	// outcome: history may read them from the service (Complete), then
	// adds them (Tally.Add), in the journals' order.
	Open []Bet
	// Kept are the bets the query counts, when Read was asked to keep
	// them (--reconcile), in the journals' order.
	Kept []Bet
	// Skipped are the journals that did not read: none of their bets is
	// in the tally.
	Skipped []Skipped
	// Corrupt are the records left out for amounts that are not money.
	Corrupt Corruption
	// Predating is how many journals hold bets written before runs
	// journalled their verdict (Bet.Predates), counted as real.
	Predating int
}

// Read reads every journal of the plans q asks for as the store hands
// their records on, summing each bet into the tally as soon as its
// outcome is read: what it keeps is a small entry a settled bet (for the
// measures taken in time order), a row's sums a row, and a journal's bets
// still without an outcome, never a journal or its bets whole. Journals
// that do not read are skipped and named; a journal's bets reach the
// tally only once the whole journal read. The store is asked only for
// the records history reads. A store reads journals side by side, one a
// CPU: each has a fold of its own. With keep, the bets q counts are kept
// too (Reading.Kept).
func Read(ctx context.Context, store state.EveryReader, q Query, keep bool) (*Reading, error) {
	return read(ctx, store, q, keep, false)
}

// ReadBets is every bet of every journal of store, rehearsals and all, in
// the journals' order, each as its journal ends: Read keeping them all.
// Its memory grows with the bets: for tests and tools, not history.
func ReadBets(ctx context.Context, store state.EveryReader) ([]Bet, []Skipped, error) {
	rd, err := read(ctx, store, Query{}, true, true)
	if err != nil {
		return nil, nil, err
	}
	bets := append(rd.Kept, rd.Open...)
	slices.SortStableFunc(bets, func(a, b Bet) int { return cmpSeq(a.seq, b.seq) })
	return bets, rd.Skipped, nil
}

func cmpSeq(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// read is Read; all keeps every bet, whatever q counts.
func read(ctx context.Context, store state.EveryReader, q Query, keep, all bool) (*Reading, error) {
	type journal struct {
		open, kept []Bet
		skipped    *Skipped
		corrupt    Corruption
	}
	var (
		mu    sync.Mutex
		rd    = &Reading{Tally: NewTally(q)}
		read  []journal // by Seq
		folds []*fold   // folds no journal is using
	)
	each := func(j state.StoredJournal) error {
		if !all && len(q.Plans) > 0 && !slices.Contains(q.Plans, j.Name) {
			return nil // not asked for: not read
		}
		mu.Lock()
		var f *fold
		if n := len(folds); n > 0 {
			f, folds = folds[n-1], folds[:n-1]
		} else {
			f = newFold()
		}
		mu.Unlock()
		f.begin(j, &q, keep, all)
		var err error
		if j.Rows != nil {
			err = j.Rows(state.JournalRows{Record: f.record, Outcome: f.outcomeRow, Created: f.created})
		} else {
			err = j.Read(f.record)
		}
		if err == nil {
			err = f.finish()
		}
		mu.Lock()
		defer mu.Unlock()
		folds = append(folds, f)
		if j.Seq >= len(read) {
			read = append(read, make([]journal, j.Seq+1-len(read))...)
		}
		if err != nil {
			read[j.Seq].skipped = &Skipped{Where: j.Where, Reason: err.Error()}
			return nil
		}
		if !all && q.Account != "" && !matchAccount(&Bet{Account: f.account}, q.Account) {
			return nil // another account's
		}
		if f.predates && !f.inProcess {
			rd.Predating++
		}
		if err := rd.Tally.merge(&f.tally, f.account); err != nil {
			return err
		}
		read[j.Seq] = journal{open: f.takeOpen(), kept: f.takeKept(), corrupt: f.corrupt}
		f.corrupt = Corruption{}
		return nil
	}
	// A store that keeps outcome entries as rows hands them so, when its
	// schema does.
	// Their rows keep no reasons: --by reason reads the entries.
	reasons := slices.Contains(q.By, "reason")
	rowsRead := false
	var err error
	if r, ok := store.(state.OutcomeRowsReader); ok && !reasons {
		rowsRead, err = r.ReadOutcomeRows(ctx, each)
	}
	if err == nil && !rowsRead {
		ops := wantedOps
		if reasons {
			ops = slices.Concat(wantedOps, reasonOps)
		}
		err = store.ReadEvery(ctx, ops, each)
	}
	if err != nil {
		return nil, err
	}
	for _, j := range read {
		if j.skipped != nil {
			rd.Skipped = append(rd.Skipped, *j.skipped)
		}
		rd.Corrupt.merge(&j.corrupt)
		rd.Open = append(rd.Open, j.open...)
		rd.Kept = append(rd.Kept, j.kept...)
	}
	return rd, nil
}

// Corrupt is a record history left out because an amount in it is not
// money (bet.Cents): where it came from, the bet it is of, and why.
type Corrupt struct {
	Where  string
	Label  string
	Reason string
}

// Corruption counts the corrupt records left out, and keeps the first
// few of them to name.
type Corruption struct {
	N     int
	First []Corrupt
}

// namedCorrupt is how many corrupt records the warning names.
const namedCorrupt = 5

func (c *Corruption) add(k Corrupt) {
	c.N++
	if len(c.First) < namedCorrupt {
		c.First = append(c.First, k)
	}
}

func (c *Corruption) merge(o *Corruption) {
	for _, k := range o.First {
		c.add(k)
	}
	c.N += o.N - len(o.First)
}

// Warning is the one line that names the corrupt records, "" for none.
func (c *Corruption) Warning() string {
	if c.N == 0 {
		return ""
	}
	names := make([]string, len(c.First))
	for i, k := range c.First {
		names[i] = fmt.Sprintf("%s (bet %s): %s", k.Where, k.Label, k.Reason)
	}
	more := ""
	if c.N > len(c.First) {
		more = fmt.Sprintf("; and %d more", c.N-len(c.First))
	}
	return fmt.Sprintf("warning: %d corrupt record(s) left out of every total, an amount in each not money: %s%s", c.N, strings.Join(names, "; "), more)
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
	// Code and Amount (not_created, decided, missed) are why a bet was
	// not created and what it meant to bet.
	Code   string  `json:"code"`
	Amount float64 `json:"amount"`
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
	ReasonCode string                  `json:"reason_code"`
	Requested  float64                 `json:"requested"`
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
var wanted = map[string]bool{"init": true, "service": true, "created": true, "adopted": true, "outcome": true, unknownOp: true,
	"not_created": true, "decided": true, "missed": true}

// wantedOps are the ops of wanted, for the store to select records by,
// but for those of reasonOps.
var wantedOps = []string{"init", "service", "created", "adopted", "outcome"}

// reasonOps are the entries of a bet a run decided not to create, and
// why: read only for --by reason.
var reasonOps = []string{"not_created", "decided", "missed"}

// unknownOp is opOf's answer for a record whose op it cannot read.
const unknownOp = "?"

// fold folds one journal at a time, a record at a time, into the tally:
// a bet is summed once its outcome is read, and only the bets still
// without one are kept, with what their created records said.
type fold struct {
	// Of the journal being read:
	j                state.StoredJournal
	q                *Query
	keep, all        bool
	n                int // records read
	service, account string
	// run is the verdict of the run whose bets come next (nil: none said
	// yet); inProcess marks a journal of run --sim's own service, a
	// rehearsal whatever it says; predates that a bet came in before any
	// verdict.
	run       *engine.RunVerdict
	inProcess bool
	predates  bool
	// open are the journal's bets without an outcome yet, by label; done
	// the labels whose outcome was read (a bet ends once).
	open map[string]*openBet
	done map[string]struct{}
	// spent are open bets summed already, made again for the next bets.
	spent []*openBet
	// tally sums the journal's bets as they end, merged into the
	// reading's once the journal read whole; kept are the bets kept.
	tally   Tally
	kept    []Bet
	corrupt Corruption
	// entry and spare are what an outcome entry is read into, and names
	// the strings outcomes repeat, made once.
	entry outcomeEntry
	spare outcomeRecord
	names map[string]string
	// reasons says the query groups by reason: the bets runs decided not
	// to create are read too (reasonOps), into unmade by label, and summed
	// as the journal ends unless a create of theirs came after all.
	reasons bool
	unmade  map[string]*Bet
}

// openBet is a bet without an outcome yet, and its created (and adopted)
// records: a bet whose outcome comes needs nothing of them (the outcome
// says it all), so they are applied only to a bet still without one when
// the journal ends.
type openBet struct {
	Bet
	pending []pendingRecord
}

// pendingRecord is a created record kept to be applied at the journal's
// end, and its number in the journal.
type pendingRecord struct {
	n int
	e createdEntry
	b []byte // the record, when e could not be read from it
}

func newFold() *fold {
	return &fold{open: map[string]*openBet{}, done: map[string]struct{}{}, names: map[string]string{}, unmade: map[string]*Bet{}}
}

// begin starts on the journal j.
func (f *fold) begin(j state.StoredJournal, q *Query, keep, all bool) {
	f.j, f.q, f.keep, f.all, f.n = j, q, keep, all, 0
	f.service, f.account, f.run, f.inProcess, f.predates = "", "", nil, j.Rehearsal, false
	clear(f.open)
	clear(f.done)
	clear(f.unmade)
	f.reasons = slices.Contains(q.By, "reason")
	f.tally.reset(q)
	f.kept = f.kept[:0]
	f.corrupt = Corruption{}
}

// takeOpen hands over the journal's bets still without an outcome (but
// those whose outcome was a corrupt record), in the order they were first
// seen, marked with its service and account.
func (f *fold) takeOpen() []Bet {
	out := make([]Bet, 0, len(f.open))
	for _, o := range f.open {
		if !o.corrupt {
			out = append(out, o.Bet)
		}
	}
	slices.SortFunc(out, func(a, b Bet) int { return cmpSeq(a.seq, b.seq) })
	for i := range out {
		f.mark(&out[i])
	}
	return out
}

// takeKept hands over the bets kept (keep), marked as takeOpen's are.
func (f *fold) takeKept() []Bet {
	out := slices.Clone(f.kept)
	for i := range out {
		f.mark(&out[i])
	}
	return out
}

// mark gives b its journal's service and account, which the journal
// names as a whole (a journal moved from an older betplan names them
// after the entries it moved).
func (f *fold) mark(b *Bet) { b.Service, b.Account = f.service, f.account }

// bet is the open bet labelled l, made on its first record; nil when its
// outcome was read already.
func (f *fold) bet(l string) *openBet {
	if o, ok := f.open[l]; ok {
		return o
	}
	if _, ok := f.done[l]; ok {
		return nil
	}
	var b *openBet
	if n := len(f.spent); n > 0 {
		b, f.spent = f.spent[n-1], f.spent[:n-1]
		*b = openBet{Bet: Bet{Sessions: b.Sessions[:0]}, pending: b.pending[:0]}
	} else {
		b = &openBet{}
	}
	b.Plan, b.Label, b.seq = f.j.Name, l, uint64(f.j.Seq)<<40|uint64(f.n)
	f.verdict(&b.Bet)
	f.open[l] = b
	return b
}

// verdict marks b with the verdict of the run whose bets come now: real
// money, a rehearsal's, or from before runs said.
func (f *fold) verdict(b *Bet) {
	switch {
	case f.inProcess:
		b.Sim = engine.SimInProcess
	case f.run == nil:
		b.Predates = true
		f.predates = true
	case f.run.Money != engine.MoneyReal:
		b.Sim = f.run.Sim
		if b.Sim == "" {
			b.Sim = engine.SimServed
		}
	}
	b.Tips = f.run != nil && f.run.Tips
}

// identify takes what r says of the bet: its instance id and its race
// (venue, code, and the meeting day of its start), each where r says it.
func (b *Bet) identify(r *record) {
	if r.BetID != "" {
		b.BetID = r.BetID
	}
	if r.Race != nil {
		b.Venue, b.Code = r.Race.Venue, r.Race.Code
		if !r.Race.Start.IsZero() {
			b.Day = r.Race.Start.Format("2006-01-02")
		}
	}
}

// notCreated keeps r, an entry of a bet a run decided not to create
// (not_created, decided, missed), for --by reason: its reason, what it
// meant to bet and its race. The last such entry of a label says why.
func (f *fold) notCreated(r *record) {
	if r.Label == "" {
		return
	}
	b := f.unmade[r.Label]
	if b == nil {
		b = &Bet{Plan: f.j.Name, Label: r.Label, Result: "not_created", Final: true, NotCreated: true,
			seq: uint64(f.j.Seq)<<40 | uint64(f.n)}
		f.verdict(b)
		f.unmade[r.Label] = b
	}
	b.identify(r)
	switch {
	case r.Code != "":
		b.Reason = r.Code
	case r.Op == "missed":
		b.Reason = "missed"
	}
	if c, err := bet.Cents(r.Amount); err == nil && c > 0 {
		b.Requested = c
	}
	if t, err := time.Parse(time.RFC3339Nano, r.Time); err == nil {
		b.At = t
	}
}

// betOf is bet for a label as a record's bytes: a string is made of it
// only for a label not seen before.
func (f *fold) betOf(l []byte) *openBet {
	if o, ok := f.open[string(l)]; ok {
		return o
	}
	if _, ok := f.done[string(l)]; ok {
		return nil
	}
	return f.bet(string(l))
}

// settle applies the outcome its journal kept at to b, and sums b: its
// outcome is read, once. An outcome whose amounts are not money is a
// corrupt record: left out, named, and b with it unless a later outcome
// of b is money.
func (f *fold) settle(b *openBet, o *outcomeRecord, at string) error {
	if err := applyOutcome(&b.Bet, o, at); err != nil {
		b.corrupt = true
		f.corrupt.add(Corrupt{Where: fmt.Sprintf("%s record %d", f.j.Where, f.n), Label: b.Label, Reason: err.Error()})
		return nil
	}
	b.corrupt = false
	delete(f.open, b.Label)
	f.done[b.Label] = struct{}{}
	if err := f.tally.add(&b.Bet, "", !f.all); err != nil {
		return err
	}
	if f.keep && (f.all || f.q.keepsBet(&b.Bet)) {
		k := b.Bet
		k.Sessions = slices.Clone(b.Sessions) // b is made again for another bet
		f.kept = append(f.kept, k)
	}
	f.spent = append(f.spent, b)
	return nil
}

// record folds the journal's next record; b is the store's until it
// returns.
func (f *fold) record(b []byte) error {
	f.n++
	op := opOf(b)
	if !wanted[op] {
		return nil
	}
	if slices.Contains(reasonOps, op) && !f.reasons {
		return nil
	}
	if op == "created" || op == "adopted" {
		if l, ok := labelOf(b); ok {
			if o := f.bet(l); o != nil {
				o.pending = append(o.pending, pendingRecord{n: f.n})
				p := &o.pending[len(o.pending)-1]
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
			var o *openBet
			switch {
			case len(e.label) > 0:
				o = f.betOf(e.label)
			case e.labelText != "":
				o = f.bet(e.labelText)
			default:
				return nil
			}
			if o == nil {
				return nil // its outcome was read already
			}
			applies := e.outcome != nil
			switch {
			case applies && e.outcome.BetID != "": // the outcome's bet id is the one kept
			case len(e.betID) > 0:
				o.BetID = string(e.betID)
			case e.betIDText != "":
				o.BetID = e.betIDText
			}
			if applies {
				var at string
				if e.outcome.ResultTime.IsZero() && len(e.time) > 1 {
					if err := json.Unmarshal(e.time, &at); err != nil {
						return fmt.Errorf("record %d does not read (%v)", f.n, err)
					}
				}
				return f.settle(o, e.outcome, at)
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
	case "not_created", "decided", "missed":
		if f.reasons {
			f.notCreated(&r)
		}
		return nil
	}
	if r.Label == "" {
		return nil
	}
	o := f.bet(r.Label)
	if o == nil {
		return nil // its outcome was read already
	}
	o.identify(&r)
	if r.Outcome != nil {
		return f.settle(o, r.Outcome, r.Time)
	}
	return nil
}

// finish applies the created records of the bets left without an
// outcome.
func (f *fold) finish() error {
	open := make([]*openBet, 0, len(f.open))
	for _, o := range f.open {
		open = append(open, o)
	}
	slices.SortFunc(open, func(a, b *openBet) int { return cmpSeq(a.seq, b.seq) })
	for _, o := range open {
		for _, p := range o.pending {
			if p.b != nil {
				if err := f.decode(p.b, p.n); err != nil {
					return err
				}
				continue
			}
			if err := p.e.apply(&o.Bet); err != nil {
				return fmt.Errorf("record %d does not read (%v)", p.n, err)
			}
		}
		o.pending = nil
	}
	// The bets decided not to create, and never created after all.
	unmade := make([]*Bet, 0, len(f.unmade))
	for l, b := range f.unmade {
		_, created := f.open[l]
		if _, ended := f.done[l]; !created && !ended {
			unmade = append(unmade, b)
		}
	}
	slices.SortFunc(unmade, func(a, b *Bet) int { return cmpSeq(a.seq, b.seq) })
	for _, b := range unmade {
		if err := f.tally.add(b, "", !f.all); err != nil {
			return err
		}
	}
	return nil
}

// applyOutcome fills bet from the outcome its journal kept at, or says
// which of its amounts is not money (bet.Cents), bet untouched.
func applyOutcome(b *Bet, o *outcomeRecord, at string) error {
	accepted, profit, err := amountsOf(o)
	if err != nil {
		return err
	}
	b.Final, b.Result = true, o.Result
	b.Accepted, b.Profit, b.Odds, b.Units = accepted, profit, o.Odds, o.Units
	if o.BetID != "" {
		b.BetID = o.BetID
	}
	if o.Venue != "" {
		b.Venue, b.Code = o.Venue, o.Code
	}
	if o.Day != "" {
		b.Day = o.Day
	}
	b.Market, b.Type = o.Market, o.Type
	b.Reason = o.ReasonCode
	if o.Result != "not_placed" {
		b.Reason = "" // placed: a reason it once had is no longer why
	}
	b.Requested, _ = bet.Cents(o.Requested)
	b.At = o.ResultTime
	if b.At.IsZero() {
		b.At, _ = time.Parse(time.RFC3339Nano, at)
	}
	b.Sessions = b.Sessions[:0]
	for _, s := range o.Sessions {
		// amountsOf read them already.
		a, _ := bet.Cents(s.Accepted)
		p, _ := bet.Cents(s.Profit)
		b.Sessions = append(b.Sessions, Session{Name: s.Session, Accepted: a, Odds: s.Odds, Profit: p})
	}
	return nil
}

// amountsOf are an outcome's amount accepted and profit in cents, after
// every number of it (its sessions', the odds and units too) was found
// to be one a bet could have (bet.Cents): a corrupt record otherwise.
func amountsOf(o *outcomeRecord) (accepted, profit int64, err error) {
	for i, s := range o.Sessions {
		for _, v := range []struct {
			name string
			v    float64
		}{{"accepted amount", s.Accepted}, {"profit", s.Profit}, {"odds", s.Odds}} {
			if err := bet.CheckDollars(v.v); err != nil {
				return 0, 0, fmt.Errorf("its session %d's %s %v", i+1, v.name, err)
			}
		}
	}
	if err := bet.CheckDollars(o.Odds); err != nil {
		return 0, 0, fmt.Errorf("its odds %v", err)
	}
	if err := bet.CheckDollars(o.Requested); err != nil {
		return 0, 0, fmt.Errorf("its requested amount %v", err)
	}
	if o.Units != nil {
		if err := bet.CheckDollars(*o.Units); err != nil {
			return 0, 0, fmt.Errorf("its units %v", err)
		}
	}
	if accepted, err = bet.Cents(o.Accepted); err != nil {
		return 0, 0, fmt.Errorf("its accepted amount %v", err)
	}
	if profit, err = bet.Cents(o.Profit); err != nil {
		return 0, 0, fmt.Errorf("its profit %v", err)
	}
	return accepted, profit, nil
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
	for _, w := range reasonOps {
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

// PredatingNote is the line that says how many journals predate runs'
// verdicts (Reading.Predating), "" for none.
func PredatingNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("note: %d journal(s) predate the run's verdict (whether it was real money or a rehearsal) and are shown as real", n)
}

// Dollars is cents as dollars.
func Dollars(cents int64) float64 { return float64(cents) / 100 }

// AccountKey is how a journal names the account called name.
func AccountKey(name string) string { return engine.AccountKey(name) }

// matchAccount reports whether a bet's account is the one key names: the
// journal's name of it, or the account's own name.
func matchAccount(bet *Bet, key string) bool {
	return key == "" || strings.EqualFold(bet.Account, key) || bet.Account == AccountKey(key)
}
