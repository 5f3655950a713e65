package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
)

// `betplan explain` tells, bet by bet, what the plan's journal says
// happened, in order: decided, refused by a limit (with the sums it saw),
// created, placed or not (with the service's words), settled. It reads
// the journal alone; with --refresh, the service too, as `status` reads it
// (ReadStatus), for where each bet stands now.

// Story is what one journal of a plan tells of its bets.
type Story struct {
	Plan string
	// Journal names the journal read (its file, or its plan's row), and
	// Service the service it was kept for, as its first entry says ("" when
	// it does not say). Rehearsal marks a rehearsal's (run --sim).
	Journal   string
	Service   string
	Rehearsal bool
	// Empty says no journal of the plan was found: no run decided
	// anything yet.
	Empty bool
	// Refreshed says the service was read for where each bet stands now.
	Refreshed bool
	Bets      []BetStory
}

// BetStory is one bet of the plan on one race: what its journal entries
// say, in order, and where it stands.
type BetStory struct {
	BetID      string
	InstanceID string
	Label      string
	Race       RaceInfo
	// NotInPlan says the journal knows the bet but the plan no longer has
	// it.
	NotInPlan bool
	Steps     []Step
	// Now is where the bet stands: as the journal tells it, or as the
	// service showed it with --refresh.
	Now Standing
}

// Step is one thing the journal kept of a bet.
type Step struct {
	// At is when the journal kept it (the machine's clock): the steps of
	// a bet are in that order.
	At time.Time
	// Op is the journal entry's op: decided, not_created, creating,
	// created, adopted, absent, failed, canceled, placed, detail_read,
	// missed, outcome, alert.
	Op     string
	Status Status
	// Why is the reason a decided, not_created or missed entry keeps, or
	// an outcome's for a bet not placed.
	Why reason.Why
	// Amount, AtRisk and Basis are the bet's amount and what it puts at
	// risk, as the entry says (creating, not_created).
	Amount float64
	AtRisk float64
	Basis  string
	// Sums are what a limit saw when it held the bet back (not_created).
	Sums           *LimitSums
	NotificationID int64
	Attempt        int
	// Error is the service's or the run's words: a refused create, a
	// create that did not land.
	Error string
	// PlacedAt is when the bet was placed (placed), by the service's
	// clock, and PlacedFrom how that is known (records, first poll).
	PlacedAt   time.Time
	PlacedFrom string
	// Outcome is how the bet ended (outcome).
	Outcome *JournalOutcome
	// Words are the service's own words an entry keeps (detail_read: the
	// bots' lines, and the bot log as it came), as they were read;
	// Sessions its sessions' answers and Seen the sessions the
	// notification names (session_info).
	Words    []string
	Sessions []SessionOutcome
	Seen     []string
	// Blocked (creating) are the sessions the bet targets that could not
	// bet it as betplan read them before the create, each with why.
	Blocked []string
	// WindowClosed and LastLooked (missed) are when the bet's window
	// closed and when a run last looked at it.
	WindowClosed, LastLooked time.Time
	// Alert is the event an alert told, and Where where it went (its
	// scheme and host).
	Alert, Where string
}

// Standing is where a bet stands.
type Standing struct {
	// Source is "journal", or "service" when --refresh read it.
	Source    string
	Status    Status
	Why       reason.Why
	PlacedBy  []string
	RefusedBy []string
	Records   []Record
	Accepted  float64
	Profit    float64
	// Known says the journal (or the service) tells where the bet
	// stands; false for a bet no run decided yet.
	Known bool
}

// Explain reads the plan's journal (every journal of the plan in the
// store when opts names no service) and tells each bet's story. It sends
// no request unless refresh: then the service is read as `status` reads
// it, first, and each story ends where the service shows its bet.
func Explain(ctx context.Context, p *plan.Plan, opts Options, refresh bool) ([]Story, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts.withDefaults()
	var res *Result
	var refreshErr error
	if refresh {
		// The service first: a status keeps in the journal what it read
		// (placement times, outcomes), which the stories then tell.
		if res, refreshErr = ReadStatus(ctx, p, opts); res == nil {
			return nil, refreshErr
		}
	}
	journals, err := planJournals(ctx, p.Name, opts)
	if err != nil {
		return nil, err
	}
	if len(journals) == 0 {
		s := Story{Plan: p.Name, Journal: opts.Store.String(), Empty: true}
		s.Bets = plannedStories(p, nil)
		if res != nil {
			s.refreshed(p, res)
		}
		return []Story{s}, refreshErr
	}
	out := make([]Story, 0, len(journals))
	for _, j := range journals {
		s, err := TellJournal(p, j.where, j.records)
		if err != nil {
			return nil, err
		}
		s.Rehearsal = j.rehearsal
		if res != nil && len(journals) == 1 {
			s.refreshed(p, res)
		}
		out = append(out, *s)
	}
	return out, refreshErr
}

// journalWhere names the journal of key in store: its file, or the state
// that keeps it.
func journalWhere(store state.Store, key state.PlanKey) string {
	if ls, ok := store.(local.Store); ok {
		return ls.Layout.WithDefaults("").JournalPath(key.Name, key.BaseURL)
	}
	return fmt.Sprintf("%s (plan %s)", store, key.Name)
}

// storedJournal is one journal of a plan, its records whole.
type storedJournal struct {
	where     string
	rehearsal bool
	records   [][]byte
}

// planJournals reads the plan's journal against the service opts names;
// with none named, every journal the store keeps of the plan (one per
// service it ran against, rehearsals included).
func planJournals(ctx context.Context, name string, opts Options) ([]storedJournal, error) {
	if opts.BaseURL != "" {
		key := state.PlanKey{Name: name, BaseURL: opts.BaseURL}
		records, err := opts.Store.ReadLog(ctx, key)
		if err != nil {
			return nil, err
		}
		where := journalWhere(opts.Store, key)
		if len(records) == 0 {
			// A journal kept before journals were per service: shown as it
			// is (which of its bets are this service's, only the service
			// can tell; a run settles that).
			if ls, ok := opts.Store.(state.LegacyStore); ok {
				lj, err := ls.LegacyJournal(ctx, key)
				if err != nil {
					return nil, err
				}
				if lj != nil && len(lj.Records) > 0 {
					return []storedJournal{{where: lj.Where, records: lj.Records}}, nil
				}
			}
			return nil, nil
		}
		return []storedJournal{{where: where, records: records}}, nil
	}
	every, ok := opts.Store.(state.EveryReader)
	if !ok {
		return nil, fmt.Errorf("the state %s cannot list its journals: name the service (--base-url or BETPLAN_BASE_URL)", opts.Store)
	}
	var out []storedJournal
	var mu sync.Mutex
	err := every.ReadEvery(ctx, nil, func(j state.StoredJournal) error {
		if j.Name != name {
			return nil
		}
		sj := storedJournal{where: j.Where, rehearsal: j.Rehearsal}
		if err := j.Read(func(b []byte) error {
			sj.records = append(sj.records, bytes.Clone(b))
			return nil
		}); err != nil {
			return err
		}
		mu.Lock()
		out = append(out, sj)
		mu.Unlock()
		return nil
	})
	sort.Slice(out, func(a, b int) bool { return out[a].where < out[b].where })
	return out, err
}

// TellJournal tells the story of each bet a plan's journal (its records,
// in order, as a store keeps them) knows, and of each bet of the plan it
// does not know yet, in plan order. An entry of an op it does not know is
// passed over: a later betplan's.
func TellJournal(p *plan.Plan, where string, records [][]byte) (*Story, error) {
	s := &Story{Plan: p.Name, Journal: where}
	stories := map[string]*BetStory{}
	var order []string
	get := func(e *journalEntry) *BetStory {
		st := foldKey(&stories, &order, e.Label)
		st.Label = e.Label
		if e.BetID != "" {
			st.BetID = e.BetID
		}
		if e.Race != nil && (st.Race.Venue == "" && st.Race.Event == nil || st.Race.Start.IsZero()) {
			st.Race = *e.Race
		}
		return st
	}
	for i, b := range records {
		e, err := readRecord(where, i, b)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case opInit, opService:
			if e.Service != "" {
				s.Service = e.Service
			}
			continue
		case opAlertQueued:
			if e.Alert == nil {
				continue
			}
			i := strings.LastIndexByte(e.Alert.Key, '|')
			if i < 0 || stories[e.Alert.Key[:i]] == nil {
				continue // a limit's, a run's summary: no one bet's
			}
			st := stories[e.Alert.Key[:i]]
			st.Steps = append(st.Steps, Step{At: e.Time, Op: "alert", Alert: e.Alert.Event, Where: e.Alert.Where})
			continue
		}
		if e.Label == "" {
			continue
		}
		step := Step{At: e.Time, Op: e.Op, Status: Status(e.Status), NotificationID: e.NotificationID, Attempt: e.Attempt, Error: e.Error}
		switch e.Op {
		case opCreating:
			step.Amount, step.AtRisk, step.Basis = e.Amount, e.AtRisk, e.Basis
			step.Error = ""
			for _, bl := range e.Blocked {
				step.Blocked = append(step.Blocked, bl.String())
			}
		case opCreated, opAdopted, opAbsent, opFailed, opCanceled:
		case opLooked:
		case opPlaced:
			if e.PlacedAt != nil {
				step.PlacedAt = *e.PlacedAt
			}
			step.PlacedFrom = e.PlacedFrom
		case opDecided:
			step.Why = reason.Why{Code: reason.Code(e.Code), Limit: e.Limit, Scope: reason.Scope(e.Scope), Period: e.Period, Text: e.Error}
			step.Error = ""
		case opNotCreated:
			step.Why = reason.Why{Code: reason.Code(e.Code), Limit: e.Limit, Scope: reason.Scope(e.Scope), Period: e.Period, Text: e.Error}
			step.Error = ""
			step.Amount, step.AtRisk, step.Basis, step.Sums = e.Amount, e.AtRisk, e.Basis, e.Sums
		case opOutcome:
			if e.Outcome == nil {
				continue
			}
			o := *e.Outcome
			step.Outcome = &o
			step.Why = reason.Why{Code: reason.Code(o.ReasonCode), Text: o.Reason}
		case opDetailRead:
			step.Why = reason.Why{Code: reason.Code(e.Code)}
			step.Error = ""
			if d := e.Detail; d != nil {
				step.Why.Text = d.Reason
				step.Words = slices.Clone(d.Lines)
				for _, rec := range d.Records {
					step.Sessions = append(step.Sessions, SessionOutcome{Session: rec.Session, Accepted: rec.Amount, Result: rec.Result, Error: rec.Error})
				}
				step.Seen = slices.Clone(d.Sessions)
				if d.LogRead && d.BotLog != "" {
					step.Words = append(step.Words, d.BotLog)
				}
			}
		case opMissed:
			step.Why = reason.Why{Code: reason.Code(e.Code), Text: e.Error}
			step.Error = ""
			if step.Why.Code == "" {
				step.Why.Code = reason.Missed
			}
			if e.WindowClosed != nil {
				step.WindowClosed = *e.WindowClosed
			}
			if e.LastLooked != nil {
				step.LastLooked = *e.LastLooked
			}
		default:
			continue // resulted, and ops of a later betplan
		}
		st := get(&e)
		if n := len(st.Steps); n > 0 && sameDecision(st.Steps[n-1], step) {
			// A decision kept twice, for the day's race (decided) and for
			// its story (not_created): told once, with its sums.
			if step.Op == opNotCreated {
				step.At = st.Steps[n-1].At
				st.Steps[n-1] = step
			}
			continue
		}
		if n := len(st.Steps); n > 0 && step.Op == opLooked && st.Steps[n-1].Op == opLooked {
			st.Steps[n-1] = step // runs look again and again: the last look tells
			continue
		}
		if n := len(st.Steps); n > 0 && step.Op == opPlaced && st.Steps[n-1].Op == opOutcome {
			// Kept as the run read both at once: placed, then settled.
			st.Steps = slices.Insert(st.Steps, n-1, step)
			continue
		}
		st.Steps = append(st.Steps, step)
	}
	bets := map[string]*plan.Bet{}
	for _, b := range p.Bets {
		if bets[b.ID] == nil {
			bets[b.ID] = b
		}
	}
	var all []BetStory
	for _, l := range order {
		st := stories[l]
		if st.BetID == "" {
			st.BetID = betIDFromLabel(p.Name, l)
		}
		st.NotInPlan = bets[st.BetID] == nil
		st.Now = journalStanding(st.Steps)
		all = append(all, *st)
	}
	nameStories(all, bets)
	s.Bets = plannedStories(p, all)
	return s, nil
}

// sameDecision reports whether a and b, a decided and a not_created
// entry, keep one decision.
func sameDecision(a, b Step) bool {
	if !(a.Op == opDecided && b.Op == opNotCreated || a.Op == opNotCreated && b.Op == opDecided) {
		return false
	}
	return a.Status == b.Status && a.Why == b.Why
}

// journalStanding is where a bet stands as its steps tell it: its
// outcome, else its last decision, else its create.
func journalStanding(steps []Step) Standing {
	var st Standing
	st.Source = "journal"
	pending := false
	for _, s := range steps {
		switch s.Op {
		case opCreating:
			pending = true
		case opCreated, opAdopted:
			pending = false
			st.Known, st.Status, st.Why = true, StatusCreated, reason.Why{}
		case opAbsent:
			pending = false
		case opFailed:
			pending = false
			st.Known, st.Status, st.Why = true, StatusFailed, reason.Said(reason.CreateRefused, "the service refused the create: "+s.Error)
		case opCanceled:
			st.Known, st.Status, st.Why = true, StatusCanceled, reason.Said(reason.Cancelled, "cancelled")
		case opPlaced:
			if st.Status == StatusCreated {
				st.Status = StatusPlaced
			}
		case opDecided, opNotCreated, opMissed:
			st.Known, st.Status, st.Why = true, s.Status, s.Why
			if st.Status == "" {
				st.Status = StatusFailed
			}
		case opOutcome:
			o := s.Outcome
			st.Known, st.Status, st.Why = true, o.Status, s.Why
			st.Accepted, st.Profit = o.Accepted, o.Profit
			st.PlacedBy, st.RefusedBy = nil, nil
			for _, so := range o.Sessions {
				if so.Accepted > 0 {
					st.PlacedBy = append(st.PlacedBy, so.Session)
				} else if so.Error != "" {
					st.RefusedBy = append(st.RefusedBy, so.Session+": "+so.Error)
				}
			}
		}
	}
	if pending {
		st.Known, st.Status = true, StatusInDoubt
		st.Why = reason.Said(reason.InDoubt, "a create was announced and its outcome is not in the journal: the next run looks its label up")
	}
	return st
}

// nameStories gives each story the instance id reports show: a
// for_each_race bet's race instance, its meeting date after it where one
// bet has two meetings of one venue and race.
func nameStories(all []BetStory, bets map[string]*plan.Bet) {
	var refs []instanceRef
	var at []int
	for i := range all {
		b := bets[all[i].BetID]
		if b == nil {
			all[i].InstanceID = all[i].BetID
			continue
		}
		refs = append(refs, instanceRef{b, all[i].Race})
		at = append(at, i)
	}
	for k, id := range instanceIDs(refs) {
		all[at[k]].InstanceID = id
	}
}

// plannedStories puts stories in plan order (each bet's by race start),
// with a story for each bet of the plan the journal does not know; the
// bets the plan no longer has come last.
func plannedStories(p *plan.Plan, known []BetStory) []BetStory {
	byBet := map[string][]BetStory{}
	for _, st := range known {
		byBet[st.BetID] = append(byBet[st.BetID], st)
	}
	var out []BetStory
	seen := map[string]bool{}
	for _, b := range p.Bets {
		if seen[b.ID] {
			continue
		}
		seen[b.ID] = true
		sts := byBet[b.ID]
		if len(sts) == 0 {
			st := BetStory{BetID: b.ID, InstanceID: b.ID}
			if b.Race != nil {
				st.Race = RaceInfo{Venue: b.Race.Venue, Code: b.Race.Code, EventNumber: b.Race.EventNumber}
			}
			if b.Event != nil {
				st.Race = plannedEvent(b)
			}
			out = append(out, st)
			continue
		}
		sort.SliceStable(sts, func(i, j int) bool { return sts[i].Race.Start.Before(sts[j].Race.Start) })
		out = append(out, sts...)
	}
	for _, st := range known {
		if !seen[st.BetID] {
			out = append(out, st)
		}
	}
	return out
}

// refreshed ends each story where the service shows its bet (res, a
// status of the plan), and adds a story for each bet res has that the
// journal does not (waiting for its condition, say).
func (s *Story) refreshed(p *plan.Plan, res *Result) {
	s.Refreshed = true
	byLabel := map[string]int{}
	for i, st := range s.Bets {
		if st.Label != "" {
			byLabel[st.Label] = i
		}
	}
	var extra []BetStory
	used := map[int]bool{}
	for _, b := range res.Bets {
		now := Standing{Source: "service", Known: true, Status: b.Status, Why: b.Why, PlacedBy: slices.Clone(b.PlacedBy),
			RefusedBy: slices.Clone(b.RefusedBy), Records: slices.Clone(b.Records), Accepted: b.AmountAccepted, Profit: b.Profit}
		if now.Why.Text == "" {
			now.Why.Text = b.Reason
		}
		if i, ok := byLabel[b.Label]; ok && b.Label != "" {
			s.Bets[i].Now, used[i] = now, true
			if s.Bets[i].Race.Start.IsZero() {
				s.Bets[i].Race = b.Race
			}
			continue
		}
		// A bet no entry names: in place of the plan's empty story.
		placed := false
		for i := range s.Bets {
			if !used[i] && s.Bets[i].BetID == b.ID && s.Bets[i].Label == "" {
				s.Bets[i].Now, s.Bets[i].Label, s.Bets[i].InstanceID, s.Bets[i].Race, used[i] = now, b.Label, b.InstanceID, b.Race, true
				placed = true
				break
			}
		}
		if !placed {
			extra = append(extra, BetStory{BetID: b.ID, InstanceID: b.InstanceID, Label: b.Label, Race: b.Race, Now: now})
		}
	}
	if len(extra) > 0 {
		s.Bets = plannedStories(p, append(s.Bets, extra...))
	}
}

// Matches reports whether key names the story's bet: its bet id, its
// instance id, or a for_each_race instance's dated id.
func (st *BetStory) Matches(key string) bool {
	if key == st.BetID || key == st.InstanceID {
		return true
	}
	return strings.Contains(key, "@") && !st.Race.Start.IsZero() && key == datedInstanceID(st.BetID, st.Race)
}
