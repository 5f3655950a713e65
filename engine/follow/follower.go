package follow

import (
	"context"
	"iter"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/reason"
)

// Following applies what the reads show: the Follower reads the plan's
// created bets on the run's clock (Reader) and hands what it saw to the
// book, the one part that changes a bet. It reads the bets only through
// the book's read-only views (Bet), changes them only through the book's
// transitions (Book), and asks the command it is part of for the rest
// (Host): its log, the journal, the sessions and what deciding would do.

// Bet is a read-only view of one bet of the book: what following reads
// of it. Nothing it returns can be written through.
type Bet interface {
	// Name is the bet's instance id, or its bet id before it was named.
	Name() string
	Label() string
	NotifID() int64
	Status() bet.Status
	Reason() string
	Err() string
	Final() bool
	Canceled() bool
	// CreatedAt is when its notification was created (zero: not known).
	CreatedAt() time.Time
	// LastPolled is when its notification was last read (zero: never).
	LastPolled() time.Time
	// Venue and ListedStart are its race's venue and start as the plan's
	// bets last heard them (the service may list the start anew).
	Venue() string
	ListedStart() time.Time
	// TargetSession is the plan's target_session of the bet ("" for all).
	TargetSession() string

	// What the last read of its notification showed: the money accepted,
	// the bots that received it and when the service created it (zero
	// values before any read).
	Accepted() float64
	ReceivedBots() string
	NotifCreatedAt() time.Time

	// Placers is how many sessions are known to have placed it, PlacedBy
	// their names (", " between them); RefusedBy the sessions that
	// refused it, each with its reason ("; " between them), "" for none.
	Placers() int
	PlacedBy() string
	RefusedBy() string
	// RecordsRead says its bet records were read, RecordsAt at what
	// total accepted; AnsweredBy is the received_bots whose answer was
	// read from them.
	RecordsRead() bool
	RecordsAt() float64
	AnsweredBy() string
	// NeedRecords marks a settled bet whose records are still to be
	// read, NeedPlacement a placement not read yet, OutcomeDue an outcome
	// held back until its placement is logged.
	NeedRecords() bool
	NeedPlacement() bool
	OutcomeDue() bool
	// PlacementWarning is what its placement's line warns of (a lay
	// taken above its max_odds), "" for nothing.
	PlacementWarning() string
	// Blocked is what betplan saw of the sessions just before it created
	// the bet, when no session it targets could bet it then (a bot
	// stopped or logged out, a stake out of the bookmaker's bounds): the
	// reason of a bet no session answered, its code and words. "" when
	// some session could.
	Blocked() (code reason.Code, words string)
}

// Book is the book's side of following: its bets, and the transitions
// that change them as the reads show.
type Book interface {
	// Bets are the book's bets, in its order; Len how many it holds.
	Bets() iter.Seq[Bet]
	Len() int

	// Polled is b read (or tried) at; ok clears a poll's failure.
	Polled(b Bet, at time.Time, ok bool)
	// Trouble keeps err, a read that failed and is tried again.
	Trouble(b Bet, err string)
	// Observe is n, what the service shows of b now.
	Observe(b Bet, n *apiclient.Notification)
	// Listed is b's race as the service lists it now: starting at start.
	Listed(b Bet, start time.Time)
	// Cancelled is b cancelled, by betplan or on the service.
	Cancelled(b Bet)
	// End makes b final at status, and why; Move moves it to a status
	// that is not final.
	End(b Bet, status bet.Status, why reason.Why)
	Move(b Bet, status bet.Status, reason string)
	// Answered is the answer of the bots bots read from b's records.
	Answered(b Bet, bots string)
	// Settled is b resulted with money accepted, its records read later;
	// Complete is b resulted with its records read, ending at status.
	Settled(b Bet, reason string)
	Complete(b Bet, status bet.Status, why reason.Why)
	// Placing marks b seen placed for its records to be read, at and by
	// standing in for when and by whom until then.
	Placing(b Bet, at time.Time, by []string, accepted float64)
	// ReadRecords keeps b's records (at stands in for an unknown time)
	// and reports whether its placement is to be logged now.
	ReadRecords(b Bet, recs []apiclient.BetRecord, at time.Time) (logPlacement bool)
	// PlacementUnread keeps err, why b's records could not be read, and
	// reports whether its placement is to be logged without them.
	PlacementUnread(b Bet, err string) bool
	// HoldOutcome reports whether b's outcome waits for its placement to
	// be logged, and holds it; ReleaseOutcome whether a held one may be
	// logged now (force: its placement will not be read), and lets it go.
	HoldOutcome(b Bet) bool
	ReleaseOutcome(b Bet, force bool) bool
}

// Host is what following asks of the command it is part of.
type Host interface {
	Logf(format string, args ...any)
	// RaceTime is t, a time of a race's day at venue, as the command
	// shows race times.
	RaceTime(venue string, t time.Time) string
	// Sessions are the account's sessions, as the command last read them.
	Sessions() []apiclient.Session
	// WouldCreate reports, without side effects, whether deciding would
	// look b's label up to create it now.
	WouldCreate(b Bet, now time.Time) bool
	// Told reports whether the journal keeps that the outcome of the bet
	// labelled label was logged; KeepTold keeps that it was.
	Told(label string) bool
	KeepTold(label string)
	// KeepPlacements keeps in the journal the placement times (and
	// outcomes) it does not keep yet, after a read of bet records.
	KeepPlacements(ctx context.Context)
	// SharedPages are the pages of the notification list other plans of
	// the run read after since (nil for a plan running alone), oldest
	// first; SharedBy how many plans share the account's reads.
	SharedPages(since time.Time) []SharedPage
	SharedBy() int
	// KeptDetail is the detail of the bet labelled label that a run or
	// status read and kept (nil when none did); KeepDetail keeps d, read
	// for b, so that no later read of b asks the service again.
	KeptDetail(label string) *Detail
	KeepDetail(b Bet, d *Detail)
}

// SharedPage is a page of the account's notification list that a plan of
// the run read, as another plan adopts it.
type SharedPage struct {
	N    int       // its page number
	At   time.Time // when it was sent, on the engine's clock
	Page *apiclient.Page[apiclient.Notification]
}

// Config is what a Follower is made of.
type Config struct {
	Svc   Service
	Clock apiclient.Clock
	Book  Book
	Host  Host
	// Interval is the plan's poll interval (30s when 0); NoWait says the
	// run ends once what is ready was created (--no-wait).
	Interval time.Duration
	NoWait   bool
	// OfPlan reports whether a label names a bet of the plan (ScanPrefix).
	OfPlan func(label string) bool
	// Ends is Reader.Ends: the error a failed read ends the command with.
	Ends func(err error) error
}

// Follower follows the plan's created bets to their outcome: it reads
// the service's notification list, label look-ups and bet records on the
// run's clock and applies what they show through the book. It is the one
// place that keeps the polling rule (every page that holds an open bet is
// read once a tick).
type Follower struct {
	clock    apiclient.Clock
	book     Book
	host     Host
	interval time.Duration
	noWait   bool
	ofPlan   func(label string) bool

	// read reads the service; its index is where the plan's notifications
	// stand in the service's list.
	read        Reader
	want        []Open // a poll's open bets, kept from poll to poll
	wantRecords []Want // the bets whose records a read asks for, kept likewise
	tickAt      time.Time
	lastLook    bool // the poll reads every open bet, due or not (PollLast)
	// adoptedAt is when the last list page adopted from another plan of
	// the run was read (adoptListPages).
	adoptedAt time.Time
	// warned are the corrupt records already named (warnCorrupt).
	warned map[string]bool
}

// New makes the Follower of one command's plan.
func New(c Config) *Follower {
	interval := c.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	return &Follower{clock: c.Clock, book: c.Book, host: c.Host, interval: interval, noWait: c.NoWait, ofPlan: c.OfPlan,
		read: Reader{Svc: c.Svc, Logf: c.Host.Logf, Ends: c.Ends}}
}

func (f *Follower) logf(format string, args ...any) { f.host.Logf(format, args...) }

// Interval is the plan's poll interval (30s when unset).
func (f *Follower) Interval() time.Duration { return f.interval }

// Tick notes that the run's tick began at at; TickAt is when it did.
func (f *Follower) Tick(at time.Time) { f.tickAt = at }

// TickAt is when the run's current tick began (zero before the first).
func (f *Follower) TickAt() time.Time { return f.tickAt }

// NoteCreated notes a notification the run just created: the head of the
// service's list.
func (f *Follower) NoteCreated(id int64) { f.read.Index.Created(id) }

// ours is the set of the plan's notification ids: a page read shows
// every one of them it holds.
func (f *Follower) ours() Ours {
	o := make(Ours, f.book.Len())
	for b := range f.book.Bets() {
		if id := b.NotifID(); id != 0 {
			o[id] = true
		}
	}
	return o
}

// ListPage reads page n of the service's notification list, noting where
// the plan's notifications (the book's) stand in it (the journal's claim
// of an old journal reads it).
func (f *Follower) ListPage(ctx context.Context, n int) (*apiclient.Page[apiclient.Notification], error) {
	return f.read.ListPage(ctx, n, f.ours())
}

// EachPage pages through the service's notification list from its head
// (Reader.EachPage); the tips follow their results on its pages.
func (f *Follower) EachPage(ctx context.Context, fn func(page []apiclient.Notification) (more bool)) (failed int, err error) {
	return f.read.EachPage(ctx, f.ours(), fn)
}

// ScanPrefix lists the service's notifications whose label names a bet
// of the plan, oldest id kept per label.
func (f *Follower) ScanPrefix(ctx context.Context) ([]apiclient.Notification, error) {
	return f.read.Labelled(ctx, f.ours(), f.ofPlan)
}

// CheckLabels settles, in one list read, whether the labels of the bets
// about to be created this tick exist on the service: a burst costs a
// page per 100 of the account's notifications instead of a look-up per
// label. The read counts only when it reached the end of the list (every
// notification the account has was seen) within fewer pages than the
// look-ups it replaces; otherwise each label is looked up on its own, as
// before. What it found is used once, by the next look-up of each label,
// and only this tick. Its error is the one that ends the command (Ends):
// a 401 no login cured ends the run here, as at any other call; any
// other failure falls back to the look-ups.
func (f *Follower) CheckLabels(ctx context.Context, now time.Time) (map[string][]apiclient.Notification, error) {
	var labels []string
	for b := range f.book.Bets() {
		if f.host.WouldCreate(b, now) {
			labels = append(labels, b.Label())
		}
	}
	if len(labels) < 2 {
		return nil, nil
	}
	return f.read.CheckLabels(ctx, labels, f.ours())
}
