package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
)

// labelState is what the journal knows of one label.
type labelState struct {
	BetID          string
	Race           RaceInfo
	Amount         float64
	AtRisk         float64
	Basis          string
	NotificationID int64
	// Pending is true when the last entry is `creating`: the create may
	// have landed.
	Pending  bool
	Attempts int
	Failed   string
	Canceled bool
	// CreatedAt is when the journal learnt the bet was created (its
	// created or adopted entry).
	CreatedAt time.Time
	// PlacedAt is when the bet was placed, as a placed entry keeps it,
	// and PlacedFromRecords whether the bet records said so.
	PlacedAt          time.Time
	PlacedFromRecords bool
	// Decided and DecidedWhy are the status and reason a run decided the
	// bet with, without a create (a decided entry).
	Decided    Status
	DecidedWhy string
	// DecidedCode, DecidedLimit and DecidedScope are its reason's code.
	DecidedCode   reason.Code
	DecidedLimit  string
	DecidedScope  reason.Scope
	DecidedPeriod string
	// Resulted is set once a run logged how the bet ended.
	Resulted bool
	// Outcome is set once a run recorded the bet's outcome (opOutcome),
	// and Kept is that outcome as the book counts it.
	Outcome bool
	Kept    *book.Kept
	// Blocked are the sessions that could not bet it just before its
	// create (its creating entry), when none could.
	Blocked []sessionBlock
	// Detail is what was read of its notification to say why it was not
	// placed (its last detail_read entry), DetailCode the reason it gave.
	Detail     *journalDetail
	DetailCode reason.Code
	// Looked is when a run last saw it waiting before its race (its last
	// looked entry); Missed says its window passed between runs (a missed
	// entry, which decides it: Decided and its reason say so).
	Looked time.Time
	Missed bool
	// announced is the serial of the label's last creating entry.
	announced int64
}

// decidedOnly reports whether all the journal knows of the label is that
// a run decided it without a create: nothing was tried, so a run that
// finds its race still to come decides it afresh.
func (s *labelState) decidedOnly() bool { return s.Decided != "" && s.untried() }

// untried reports whether nothing was tried for the label: no create
// announced or found. All the journal may know of it then is that a run
// decided it without a create, or looked at it waiting.
func (s *labelState) untried() bool {
	return !s.created() && !s.Pending && s.Attempts == 0 && s.Failed == "" && !s.Canceled
}

// lookedOnly reports whether all the journal knows of the label is that
// runs looked at it waiting before its race: nothing tried, nothing
// decided.
func (s *labelState) lookedOnly() bool { return s.Decided == "" && s.untried() && !s.Looked.IsZero() }

// limitReachedKey names a cap reached in a period.
func limitReachedKey(scope reason.Scope, limit, period string) string {
	return string(scope) + "|" + limit + "|" + period
}

// LimitReached reports whether the journal keeps that why's cap held a
// bet back before in its period.
func (j *Journal) LimitReached(why reason.Why) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.limits[limitReachedKey(why.Scope, why.Limit, why.Period)]
}

// notCreatedKey names the decision a not_created entry keeps: its reason's
// code, and the limit, whose and in which period.
func notCreatedKey(why reason.Why) string {
	return string(why.Code) + "|" + string(why.Scope) + "|" + why.Limit + "|" + why.Period
}

// notCreatedSaid reports whether the label's last not_created entry keeps
// the decision why.
func (j *Journal) notCreatedSaid(label string, why reason.Why) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	k, ok := j.notCreated[label]
	return ok && k == notCreatedKey(why)
}

// decidedWhy is the reason a run decided the label with.
func (s *labelState) decidedWhy() reason.Why {
	return reason.Why{Code: s.DecidedCode, Limit: s.DecidedLimit, Scope: s.DecidedScope, Period: s.DecidedPeriod, Text: s.DecidedWhy}
}

// created reports whether the label has a notification.
func (s *labelState) created() bool { return s.NotificationID != 0 }

// Journal is a plan's write-ahead log of creates. What it knows is folded
// from its entries in memory; where the entries are kept is its log's
// business (a local file, or the shared state), so replay means the same
// everywhere.
type Journal struct {
	mu      sync.Mutex
	log     JournalLog // nil: read-only
	lineage string
	serial  int64
	labels  map[string]*labelState
	order   []string // labels in first-seen order
	fresh   bool     // the journal did not exist before
	// repaired says what opening the journal cut off, for the run's log.
	repaired string
	// doubt is why every label is in doubt (opInDoubt) until settled.
	doubt   string
	settled bool
	pubs    pubBook         // tips and pre-alerts (tips_journal.go)
	limits  map[string]bool // the caps that held a bet back, by limitReachedKey
	// notCreated is, by label, the reason (notCreatedKey) of the label's
	// last not_created entry: a run that decides the same again writes
	// nothing.
	notCreated map[string]string
	alerts     alertBook // the outbox of alerts (journal_alerts.go)
	// changes lists, entry by entry, the label each entry changed, so the
	// limits' running sums need read only what changed (changedSince).
	changes []labelChange
	// service and account are whose journal it is, as its init (or
	// service) entry says; "" when it does not say (an earlier betplan's).
	// accountName is the account's name, "" in a journal begun before
	// journals named it.
	service, account, accountName string
	// intents is this host's intent file (intent.go), nil when the store
	// keeps none; inFlight its labels whose outcome is still to come.
	intents  state.Intents
	inFlight map[string]bool
	// reportDir is where the last run wrote the plan's reports (an
	// opReports entry); "" for the default.
	reportDir string
	// verdict, set by the run holding the journal, is its verdict now;
	// said is the one it last wrote (nil: none yet).
	verdict func() RunVerdict
	said    *RunVerdict
}

// JournalLog keeps a journal's entries: a lease's log (state.Log), or a
// journal file opened without a lock.
type JournalLog interface {
	// Append makes one entry durable before it returns. entry is its JSON
	// object; serial numbers it within the plan's journal (1, 2, ...).
	Append(serial int64, entry []byte) error
}

func newJournal(log JournalLog) *Journal {
	return &Journal{log: log, labels: make(map[string]*labelState)}
}

// replayRecords builds a journal from its records (JSON objects in serial
// order, as Append received them), open for writing with a log. Every
// record must read: a store hands over whole records only.
func replayRecords(where string, records [][]byte, log JournalLog) (*Journal, error) {
	j := newJournal(log)
	j.fresh = len(records) == 0
	for i, b := range records {
		e, err := readRecord(where, i, b)
		if err != nil {
			return nil, err
		}
		j.apply(e)
	}
	return j, nil
}

// readRecord reads the i-th record (from 0) of the journal at where, its
// amounts checked: a record that does not read, or holds an amount that
// is not money, is a damaged journal, named at its line.
func readRecord(where string, i int, b []byte) (journalEntry, error) {
	var e journalEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return e, &state.BadJournalError{Path: where, Line: i + 1, Reason: fmt.Sprintf("record %d does not read (%v)", i+1, err)}
	}
	if err := e.checkAmounts(); err != nil {
		return e, &state.BadJournalError{Path: where, Line: i + 1, Reason: fmt.Sprintf("record %d is corrupt: %v", i+1, err)}
	}
	return e, nil
}

// begin gives a journal with no lineage yet its lineage and init entry.
// A new journal on a host that ran the plan before (earlier) is a lost
// one: a create may have been in flight when it was lost, and lands after
// a single look-up finds nothing. Its init entry says so, in the same
// write, so every label is in doubt until a run settles it.
func (j *Journal) begin(earlier state.LockOwner, owner journalOwner) error {
	if j.lineage != "" {
		return nil
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	j.lineage = hex.EncodeToString(b[:])
	init := journalEntry{Op: opInit, Service: owner.service, Account: owner.account, AccountName: owner.name}
	if earlier.PID != 0 {
		init.Error = fmt.Sprintf("no journal of this plan was found, but %s ran it on this host", earlier)
	}
	return j.append(init)
}

func (j *Journal) apply(e journalEntry) {
	if e.Lineage != "" && j.lineage == "" {
		j.lineage = e.Lineage
	}
	if e.Serial > j.serial {
		j.serial = e.Serial
	}
	switch e.Op {
	case opInit:
		j.doubt = e.Error
		j.service, j.account, j.accountName = e.Service, e.Account, e.AccountName
	case opService:
		j.service, j.account, j.accountName = e.Service, e.Account, e.AccountName
		return
	case opSettled:
		j.doubt, j.settled = "", true
	case opReports:
		j.reportDir = e.ReportDir
		return
	case opLimitReached:
		if j.limits == nil {
			j.limits = map[string]bool{}
		}
		j.limits[limitReachedKey(reason.Scope(e.Scope), e.Limit, e.Period)] = true
		return
	case opNotCreated:
		if j.notCreated == nil {
			j.notCreated = map[string]string{}
		}
		j.notCreated[e.Label] = notCreatedKey(reason.Why{Code: reason.Code(e.Code), Limit: e.Limit, Scope: reason.Scope(e.Scope), Period: e.Period})
		return
	}
	if len(e.Tips) > 0 {
		j.pubs.apply(e)
		return
	}
	if e.Alert != nil {
		j.alerts.apply(e)
		return
	}
	if e.Label == "" {
		return
	}
	j.changes = append(j.changes, labelChange{e.Serial, e.Label, e.Op})
	s := foldKey(&j.labels, &j.order, e.Label)
	if e.BetID != "" {
		s.BetID = e.BetID
	}
	if e.Race != nil {
		s.Race = *e.Race
	}
	if e.Amount != 0 {
		s.Amount = e.Amount
	}
	if e.AtRisk != 0 {
		s.AtRisk, s.Basis = e.AtRisk, e.Basis
	}
	switch e.Op {
	case opCreating:
		s.Pending = true
		s.announced = e.Serial
		s.Attempts++
		s.Failed = ""
		s.Blocked = e.Blocked
	case opCreated, opAdopted:
		s.Pending = false
		s.NotificationID = e.NotificationID
		if s.CreatedAt.IsZero() {
			s.CreatedAt = e.Time
		}
	case opPlaced:
		if e.PlacedAt != nil && (s.PlacedAt.IsZero() || (!s.PlacedFromRecords && e.PlacedFrom == placedFromRecords)) {
			s.PlacedAt, s.PlacedFromRecords = *e.PlacedAt, e.PlacedFrom == placedFromRecords
		}
	case opAbsent:
		s.Pending = false
	case opFailed:
		s.Pending = false
		s.Failed = e.Error
	case opCanceled:
		s.Canceled = true
	case opDecided:
		s.Decided, s.DecidedWhy = Status(e.Status), e.Error
		s.DecidedCode, s.DecidedLimit, s.DecidedScope, s.DecidedPeriod = reason.Code(e.Code), e.Limit, reason.Scope(e.Scope), e.Period
	case opResulted:
		s.Resulted = true
	case opLooked:
		if e.Time.After(s.Looked) {
			s.Looked = e.Time
		}
	case opMissed:
		s.Missed = true
		s.Decided, s.DecidedWhy = Status(e.Status), e.Error
		s.DecidedCode = reason.Code(e.Code)
	case opDetailRead:
		if e.Detail != nil {
			s.Detail, s.DetailCode = e.Detail, reason.Code(e.Code)
		}
	case opOutcome:
		s.Outcome = true
		if o := e.Outcome; o != nil {
			k := &book.Kept{NotPlaced: o.Result == OutcomeNotPlaced, Accepted: o.Accepted, Odds: o.Odds, Profit: o.Profit,
				ResultAt: o.ResultTime, Lay: plan.IsLayMarket(o.Market)}
			if k.ResultAt.IsZero() {
				k.ResultAt = e.Time
			}
			s.Kept = k
		}
	}
}

// foldKey is the state a fold of the journal keeps for key (a label, a
// publication), made on first sight and remembered in first-seen order:
// the one shape every record kind folds into.
func foldKey[S any](states *map[string]*S, order *[]string, key string) *S {
	if *states == nil {
		*states = map[string]*S{}
	}
	s := (*states)[key]
	if s == nil {
		s = new(S)
		(*states)[key] = s
		*order = append(*order, key)
	}
	return s
}

// append hands one entry to the log and applies it once it is durable.
func (j *Journal) append(e journalEntry) error {
	return j.appendWith(e, j.log.Append)
}

// appendWith numbers e, hands it to write and applies it once it is
// durable. An entry that brings a bet in comes after the run's verdict,
// written when the run has not written it yet, or it changed.
func (j *Journal) appendWith(e journalEntry, write func(serial int64, b []byte) error) error {
	if j.verdict != nil && bringsBet(e.Op) {
		if v := j.verdict(); j.said == nil || *j.said != v {
			if err := j.appendWith(journalEntry{Op: opService, Service: j.service, Account: j.account, AccountName: j.accountName, Run: &v}, j.log.Append); err != nil {
				return err
			}
			j.said = &v
		}
	}
	e.Serial = j.serial + 1
	e.Lineage = j.lineage
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := state.CheckRecord(b); err != nil {
		return fmt.Errorf("journal entry %s %s: %w", e.Op, e.Label, err)
	}
	if err := write(e.Serial, b); err != nil {
		return err
	}
	j.apply(e)
	if j.intents != nil {
		j.clearInFlight(e)
	}
	return nil
}

// gatedLog is a log that appends under the account's gate (a lease).
type gatedLog interface {
	AppendGated(ctx context.Context, gate string, serial int64, record []byte, check func([]state.PlanLog) error) error
}

// RecordGated appends an entry under the account's gate, when check, given
// the other plans' records read under it, allows it (state.Lease's
// AppendGated); check's error is returned as is, with nothing appended.
func (j *Journal) RecordGated(ctx context.Context, gate string, e journalEntry, check func([]state.PlanLog) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	g, ok := j.log.(gatedLog)
	if !ok {
		return errors.New("this journal is not held under a lock of the state, so the account's limits cannot be checked with it")
	}
	return j.appendWith(e, func(serial int64, b []byte) error { return g.AppendGated(ctx, gate, serial, b, check) })
}

// Record appends an entry (safe for concurrent use).
func (j *Journal) Record(e journalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.log == nil {
		return errors.New("journal is read-only")
	}
	return j.append(e)
}

// writable reports whether entries can be recorded (the journal is held
// under the plan's lock).
func (j *Journal) writable() bool { j.mu.Lock(); defer j.mu.Unlock(); return j.log != nil }

// State returns what the journal knows of a label, or nil.
func (j *Journal) State(label string) *labelState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.labels[label]; ok {
		c := *s
		return &c
	}
	return nil
}

// labelEntry is a label and what the journal knows of it.
type labelEntry struct {
	label string
	labelState
}

// states returns what the journal knows of every label, in first-seen
// order, under one lock.
func (j *Journal) states() []labelEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]labelEntry, 0, len(j.order))
	for _, l := range j.order {
		out = append(out, labelEntry{l, *j.labels[l]})
	}
	return out
}

type labelChange struct {
	serial int64
	label  string
	op     string
}

// changedSince returns what the journal knows of each label an entry after
// serial changed, in the order they changed.
func (j *Journal) changedSince(serial int64) []labelEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	i := sort.Search(len(j.changes), func(i int) bool { return j.changes[i].serial > serial })
	var out []labelEntry
	seen := map[string]bool{}
	for _, c := range j.changes[i:] {
		if !seen[c.label] {
			seen[c.label] = true
			out = append(out, labelEntry{c.label, *j.labels[c.label]})
		}
	}
	return out
}

// announcedSince reports whether an entry after serial announced or
// recorded a create: a change of a bet's own, not a placement time kept
// for a bet created before (opPlaced).
func (j *Journal) announcedSince(serial int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	i := sort.Search(len(j.changes), func(i int) bool { return j.changes[i].serial > serial })
	for _, c := range j.changes[i:] {
		if c.op == opPlaced {
			continue
		}
		if s := j.labels[c.label]; s.created() || s.Pending {
			return true
		}
	}
	return false
}

// Labels returns the labels the journal knows, in first-seen order.
func (j *Journal) Labels() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.order...)
}

// Alert returns what the journal knows of the alert key for target, or
// nil.
func (j *Journal) Alert(key, target string) *alertState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.alerts.byID[alertID(key, target)]; ok {
		c := *s
		return &c
	}
	return nil
}

// Alerts returns every alert the journal knows, in the order they were
// first journalled.
func (j *Journal) Alerts() []alertState {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]alertState, 0, len(j.alerts.order))
	for _, id := range j.alerts.order {
		c := *j.alerts.byID[id]
		c.Body = slices.Clone(c.Body)
		out = append(out, c)
	}
	return out
}

// alertTargets returns the ids of the targets the journal has alerts for.
func (j *Journal) alertTargets() map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]bool{}
	for _, s := range j.alerts.byID {
		out[s.Target] = true
	}
	for t := range j.alerts.targets {
		out[t] = true
	}
	return out
}

// Pub returns what the journal knows of a tip or pre-alert, or nil.
func (j *Journal) Pub(key string) *pubState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.pubs.byKey[key]; ok {
		c := *s
		return &c
	}
	return nil
}

// PubKeys returns the keys of the tips and pre-alerts the journal knows,
// in first-seen order.
func (j *Journal) PubKeys() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.pubs.order)
}

// Serial is the number of the last entry; a saved plan remembers it.
func (j *Journal) Serial() int64 { j.mu.Lock(); defer j.mu.Unlock(); return j.serial }

// Lineage identifies this journal across runs.
func (j *Journal) Lineage() string { return j.lineage }

// Repaired says what opening the journal cut off (a torn last write), or
// "".
func (j *Journal) Repaired() string { return j.repaired }

// inDoubt says why every label of the plan is in doubt, or "".
func (j *Journal) inDoubt() string { j.mu.Lock(); defer j.mu.Unlock(); return j.doubt }

// Fresh reports whether the journal did not exist before this run.
func (j *Journal) Fresh() bool { return j.fresh }

// Committed returns what the bets the journal knows were created (or
// possibly created: a pending create counts until proven absent)
// requested, and how many they are, as the book counts them from the
// journal alone.
func (j *Journal) Committed() (amount float64, count int) {
	var bets []book.Bet
	for _, e := range j.states() {
		if f, ok := journalFacts("", e.label, &e.labelState); ok {
			if b, ok := book.Count(f, time.Time{}); ok {
				bets = append(bets, b)
			}
		}
	}
	u := book.Sum(bets, plan.PeriodPlan, book.Race{}, false)
	return u.Requested, u.Bets
}

// Close closes the journal's log.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	c, ok := j.log.(io.Closer)
	j.log = nil
	if !ok {
		return nil // a lease's log: Release closes it
	}
	return c.Close()
}

var _ io.Closer = (*Journal)(nil)

// journalOwner is whose journal it is: the service's identity and a hash
// of the account on it ("" when unknown), and the account's name.
type journalOwner struct{ service, account, name string }

// ReportDir is where the plan's last run wrote its reports; "" for the
// default.
func (j *Journal) ReportDir() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.reportDir
}

// clearInFlight drops e's send from the intent file once e, durable in
// the journal, holds its outcome. A note left behind costs nothing: the
// next run finds the journal knows the send and clears it. Called with
// j.mu held.
func (j *Journal) clearInFlight(e journalEntry) {
	key := noteKey(e)
	if !j.inFlight[key] || !isOutcome(e.Op) {
		return
	}
	delete(j.inFlight, key)
	_ = j.intents.Clear(key)
}
