package follow

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/reason"
)

// fakeBet is a bet of fakeBook: its view reads these fields.
type fakeBet struct {
	label, reason string
	id            int64
	status        bet.Status
	final         bool
	polled        time.Time
	notif         *apiclient.Notification
}

func (b *fakeBet) Name() string                   { return strings.TrimPrefix(b.label, "plan-") }
func (b *fakeBet) Label() string                  { return b.label }
func (b *fakeBet) NotifID() int64                 { return b.id }
func (b *fakeBet) Status() bet.Status             { return b.status }
func (b *fakeBet) Reason() string                 { return b.reason }
func (b *fakeBet) Err() string                    { return "" }
func (b *fakeBet) Final() bool                    { return b.final }
func (b *fakeBet) Canceled() bool                 { return false }
func (b *fakeBet) CreatedAt() time.Time           { return time.Time{} }
func (b *fakeBet) LastPolled() time.Time          { return b.polled }
func (b *fakeBet) Venue() string                  { return "" }
func (b *fakeBet) ListedStart() time.Time         { return time.Time{} }
func (b *fakeBet) TargetSession() string          { return "" }
func (b *fakeBet) Accepted() float64              { return 0 }
func (b *fakeBet) ReceivedBots() string           { return "" }
func (b *fakeBet) NotifCreatedAt() time.Time      { return time.Time{} }
func (b *fakeBet) Placers() int                   { return 0 }
func (b *fakeBet) PlacedBy() string               { return "" }
func (b *fakeBet) RefusedBy() string              { return "" }
func (b *fakeBet) PlacementWarning() string       { return "" }
func (b *fakeBet) RecordsRead() bool              { return false }
func (b *fakeBet) RecordsAt() float64             { return 0 }
func (b *fakeBet) AnsweredBy() string             { return "" }
func (b *fakeBet) NeedRecords() bool              { return false }
func (b *fakeBet) NeedPlacement() bool            { return false }
func (b *fakeBet) OutcomeDue() bool               { return false }
func (b *fakeBet) Blocked() (reason.Code, string) { return "", "" }

// fakeBook keeps its bets' transitions as words, in order: what the
// follower asked of the book.
type fakeBook struct {
	bets  []*fakeBet
	moves []string
}

func (k *fakeBook) Bets() iter.Seq[Bet] {
	return func(yield func(Bet) bool) {
		for _, b := range k.bets {
			if !yield(b) {
				return
			}
		}
	}
}
func (k *fakeBook) Len() int { return len(k.bets) }

func (k *fakeBook) note(b Bet, what string) {
	k.moves = append(k.moves, b.Name()+": "+what)
}
func (k *fakeBook) Polled(b Bet, at time.Time, ok bool) { b.(*fakeBet).polled = at }
func (k *fakeBook) Trouble(b Bet, err string)           { k.note(b, "trouble "+err) }
func (k *fakeBook) Observe(b Bet, n *apiclient.Notification) {
	b.(*fakeBet).notif = n
}
func (k *fakeBook) Listed(b Bet, start time.Time) { k.note(b, "listed") }
func (k *fakeBook) Cancelled(b Bet)               { k.note(b, "cancelled") }
func (k *fakeBook) End(b Bet, s bet.Status, why reason.Why) {
	k.to(b, s, why.Text, true)
}
func (k *fakeBook) Move(b Bet, s bet.Status, reason string) {
	k.to(b, s, reason, false)
}
func (k *fakeBook) Answered(b Bet, bots string) { k.note(b, "answered") }
func (k *fakeBook) Settled(b Bet, reason string) {
	k.to(b, bet.Settled, reason, true)
}
func (k *fakeBook) Complete(b Bet, s bet.Status, why reason.Why) {
	k.to(b, s, why.Text, true)
}
func (k *fakeBook) Placing(b Bet, at time.Time, by []string, accepted float64) {
	k.note(b, fmt.Sprintf("placing $%.2f", accepted))
}
func (k *fakeBook) ReadRecords(b Bet, recs []apiclient.BetRecord, at time.Time) bool {
	k.note(b, "records")
	return false
}
func (k *fakeBook) PlacementUnread(b Bet, err string) bool { return false }
func (k *fakeBook) HoldOutcome(b Bet) bool                 { return false }
func (k *fakeBook) ReleaseOutcome(b Bet, force bool) bool  { return false }

func (k *fakeBook) to(b Bet, s bet.Status, reason string, final bool) {
	fb := b.(*fakeBet)
	fb.status, fb.reason, fb.final = s, reason, final
	k.note(b, string(s)+" ("+reason+")")
}

// fakeHost logs, and keeps the outcomes told and the details read as the
// journal would.
type fakeHost struct {
	logs    []string
	told    map[string]bool
	details map[string]*Detail
}

func (h *fakeHost) Logf(format string, args ...any) {
	h.logs = append(h.logs, fmt.Sprintf(format, args...))
}
func (h *fakeHost) RaceTime(venue string, t time.Time) string { return t.String() }
func (h *fakeHost) Sessions() []apiclient.Session             { return nil }
func (h *fakeHost) WouldCreate(b Bet, now time.Time) bool     { return false }
func (h *fakeHost) Told(label string) bool                    { return h.told[label] }
func (h *fakeHost) KeepTold(label string)                     { h.told[label] = true }
func (h *fakeHost) KeepPlacements(ctx context.Context)        {}
func (h *fakeHost) SharedPages(time.Time) []SharedPage        { return nil }
func (h *fakeHost) SharedBy() int                             { return 1 }
func (h *fakeHost) KeptDetail(label string) *Detail           { return h.details[label] }
func (h *fakeHost) KeepDetail(b Bet, d *Detail) {
	if h.details == nil {
		h.details = map[string]*Detail{}
	}
	h.details[b.Label()] = d
}

type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time                             { return c.now }
func (c *stepClock) Sleep(context.Context, time.Duration) error { return nil }

// notifList is the service's notification list, newest first, as GET
// /notification/ pages it, counting the pages read.
type notifList struct {
	Service // only ListNotifications is called
	list    []apiclient.Notification
	pages   []int
}

func (s *notifList) ListNotifications(_ context.Context, o apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	s.pages = append(s.pages, o.Page)
	p := &apiclient.Page[apiclient.Notification]{Count: apiclient.Int(len(s.list))}
	for i := len(s.list) - 1; i >= 0; i-- {
		p.Results = append(p.Results, s.list[i])
	}
	return p, nil
}

// One tick's poll of three open bets reads the one list page that holds
// them and hands the book what it showed: the unplaced bet stays created,
// the settled one ends with its result, told in the log once (the
// journal keeps that it was), the cancelled one ends cancelled. The next
// poll reads the page again for the one bet still open; a later run
// reading the settled bet again does not tell it again.
func TestFollowerAppliesWhatAPageShowsThroughTheBook(t *testing.T) {
	t.Parallel()
	svc := &notifList{list: []apiclient.Notification{
		{ID: 1, Label: "plan-open"},
		{ID: 2, Label: "plan-won", TotalAccepted: 10, Profit: 4.5, Tip: apiclient.Tip{
			ResultTime: apiclient.Time{Time: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}, Competition: apiclient.TipCompetition{Result: "1"}}},
		{ID: 3, Label: "plan-scratched", IsCanceled: true},
	}}
	k := &fakeBook{}
	for _, n := range svc.list {
		k.bets = append(k.bets, &fakeBet{label: n.Label, id: int64(n.ID), status: bet.Created})
	}
	h := &fakeHost{told: map[string]bool{}}
	clock := &stepClock{time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC)}
	f := New(Config{Svc: svc, Clock: clock, Book: k, Host: h})
	for _, b := range k.bets {
		f.NoteCreated(b.id)
	}

	require.NoError(t, f.Poll(context.Background()))
	assert.Equal(t, []int{1}, svc.pages, "one page holds the three")
	assert.Equal(t, []string{
		"open: created (no session has placed it yet)",
		"won: placing $10.00",
		"won: settled (won $4.50 (result 1))",
		"scratched: cancelled",
		"scratched: canceled (cancelled before any session placed it)",
	}, k.moves)
	assert.Equal(t, []string{"settled won: won $4.50 (result 1)"}, h.logs)
	assert.True(t, h.told["plan-won"])

	k.moves, svc.pages = nil, nil
	clock.now = clock.now.Add(f.Interval())
	require.NoError(t, f.Poll(context.Background()))
	assert.Equal(t, []int{1}, svc.pages, "the page of the bet still open")
	assert.Empty(t, k.moves, "an unplaced bet already said to be so is not moved again")

	// A later run (its own book, the same journal) reads the settled bet
	// again: the book hears it, the log does not repeat it.
	later := &fakeBook{bets: []*fakeBet{{label: "plan-won", id: 2, status: bet.Created}}}
	f = New(Config{Svc: svc, Clock: clock, Book: later, Host: h})
	require.NoError(t, f.Poll(context.Background()))
	assert.Contains(t, later.moves, "won: settled (won $4.50 (result 1))")
	assert.Len(t, h.logs, 1, "the settled bet is told once")
}
