// Package follow follows the bets a plan created to their outcome. It
// reads the service for them: the pages of the notification list that
// hold them (and where each stands in it), label look-ups, and the bet
// records that say who placed a bet (Reader). It keeps the polling rule,
// once, in one place: every page that holds an open bet is read once a
// tick, a hundred bets a call, and what the pages do not show is found
// from the list's head or by label.
//
// What the reads show, the Follower applies: it turns each read into the
// book's transitions (Book), reads the bets only through the book's
// read-only views (Bet), and says in the log what happened to them. It
// imports the service's client and engine/bet alone; the engine wires it
// to its book and its journal (Host).
package follow

import (
	"context"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// PageSize is the page size of every list read: the most the service
// gives in one call.
const PageSize = 100

// MaxScanPages bounds one read of the notification list from its head.
const MaxScanPages = 50

// LabelLookupMax is how many open notifications are read one label at a
// time; more are found through list pages (100 a call).
const LabelLookupMax = 10

// Service is what following reads of the service.
type Service interface {
	ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error)
	NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error)
	ListBets(ctx context.Context, opts apiclient.ListBetsOptions) (*apiclient.Page[apiclient.BetRecord], error)
	BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error)
	NotificationDetail(ctx context.Context, id int64) (*apiclient.NotificationDetail, error)
	BotLogBody(ctx context.Context, id int64) ([]byte, int, error)
}

// Reader reads the service for one plan. Its Index remembers where the
// plan's notifications stood in the list when a page last showed them.
type Reader struct {
	Svc   Service
	Index Index
	// Logf logs what a read could not do and what it does instead
	// (nil: nothing is logged).
	Logf func(format string, args ...any)
	// Ends reports the error a failed read ends the command with (a
	// token the service refused), nil when the read falls back to
	// another way of reading (nil: every failed read falls back).
	Ends func(err error) error

	ids     []int64                 // a poll's open ids, kept from poll to poll
	covered [][]apiclient.BetRecord // what ReadRecords gives, kept from call to call
}

func (r *Reader) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// stop is the error a failed read ends the reading with: the context's
// own when it is done, what Ends says, else nil (fall back).
func (r *Reader) stop(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if r.Ends != nil {
		return r.Ends(err)
	}
	return nil
}

// Ours is the set of the plan's notification ids: a page read shows
// every one of them it holds.
type Ours map[int64]bool

type reasonKey struct{}

// WithReason marks the reads made with ctx as asked for why.
func WithReason(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, reasonKey{}, why)
}

// Reason is why the read made with ctx was asked for; "" unmarked.
func Reason(ctx context.Context) string {
	why, _ := ctx.Value(reasonKey{}).(string)
	return why
}

type sinceKey struct{}

// WithSince marks the list reads made with ctx as a tick's polls: a page
// of the notification list another plan of the run read before since
// shows outcomes older than this tick, and is read again.
func WithSince(ctx context.Context, since time.Time) context.Context {
	return context.WithValue(ctx, sinceKey{}, since)
}

// Since is the time before which a shared list read is too old for the
// read made with ctx; zero when any read within the share window will do.
func Since(ctx context.Context) time.Time {
	t, _ := ctx.Value(sinceKey{}).(time.Time)
	return t
}
