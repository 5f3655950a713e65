package engine

import (
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// creator decides the plan's bets and creates each at most once: the
// conditions, amounts, limits and running bots that decide a create, the
// one question before the first, the label looked up before each, the
// journal's announcement and this host's note of it before the request,
// and the grace window's look-ups after an answer that did not say. It
// reads the bets on the book and hands the book what it decided; the
// preview and the confirmation show its decisions without a create.
type creator struct {
	plan  *plan.Plan
	opts  *Options
	clock Clock
	svc   Backend
	book  *betBook
	res   *resolver     // the races, events and sessions a bet is decided on
	money *money        // what a bet puts at risk, and the limits' sums
	hold  *hold         // the journal and the lock
	halt  *halt         // whether the run may still create
	ask   *confirmation // the run's one question before its first create

	logf       func(format string, args ...any)
	checkpoint func(point string) // where the crash tests stop a create (Options.Checkpoint)
	// noteCreated tells the reading of the service's list that id, just
	// created, is its head (listpos.go).
	noteCreated func(id int64)
	raceTime    func(venue string, t time.Time) string
	ownTime     func(t time.Time) string // a time of the command's own, as its log shows it
	tipsWords   func() string            // the tips' part of the question (askedBets)

	// labelsSeen is this tick's batched label check (follow.Follower.CheckLabels): the
	// notifications carrying each checked label, nil for none.
	labelsSeen map[string][]apiclient.Notification
}
