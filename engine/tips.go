package engine

import (
	"context"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// A tipster plan publishes picks to the subscribers of a tip package
// (POST /pick/tipster/publish/). The service has no label on tips and no
// way to list them, so the plan's journal is the only thing that knows a
// tip went out: every publish call is announced (`publishing`, fsync'd)
// before it is sent and recorded (`published`) after. A call whose
// outcome is unknown (a timeout, a dropped connection, a 5xx) may have
// reached subscribers: its tips are reported unknown and never sent again
// by a run on its own; `run --republish TIP-ID` is the deliberate way.
// The pre-alert (which wakes subscribers' bots) is journalled the same
// way, once per race.

// tipInstance is one tip of the plan on one race.
type tipInstance struct {
	tip  *plan.Tip
	race *apiclient.Race // nil when unresolved or known only from the journal
	info RaceInfo
	key  string

	status      TipStatus
	reason      string
	err         string
	attempts    int
	publishedAt time.Time
	answer      string // what the service said
	republish   bool   // --republish names it and its outcome is unknown

	action Action // plan previews: what run would do now

	alertKey string // the key of its race's pre-alert, once needed

	result  string   // the race's result, runner numbers joined by "/"
	outcome string   // won, lost, void; "" until known
	units   *float64 // units won (+) or lost (-) at the tipped odds
	final   bool
}

func (in *tipInstance) open() bool {
	return !in.final && (in.status == TipWaiting || in.status == TipPublished)
}

// alertInstance is the pre-alert of one race.
type alertInstance struct {
	key    string
	info   RaceInfo
	status string // waiting, sent, unknown, failed
	reason string
	sentAt time.Time
	path   string
}

// The statuses of a pre-alert.
const (
	AlertWaiting = "waiting"
	AlertSent    = "sent"
	AlertUnknown = "unknown"
	AlertFailed  = "failed"
	AlertSkipped = "skipped" // no tip of the race was left to publish
)

// tipRun is a command's tips: the instances and what it learnt.
type tipRun struct {
	plan  *plan.Plan
	opts  *Options
	clock Clock
	svc   Backend
	host  tipHost
	races *resolver     // the races the tips match against
	hold  *hold         // the journal and the lock
	halt  *halt         // whether the run may still publish
	ask   *confirmation // the run's one question before its first publish
	bets  *betBook      // the plan's bets, for the question
	// eachPage pages through the service's notification list (the
	// follower's EachPage): tips are followed on its pages.
	eachPage func(ctx context.Context, fn func(page []apiclient.Notification) (more bool)) (failed int, err error)

	insts     []*tipInstance
	byKey     map[string]*tipInstance
	alerts    map[string]*alertInstance
	alertKeys []string
	expanded  bool
	// stop, once set, says why nothing more is published this run.
	stop string
	// path is the pre-alert path that answered, for the report.
	path string
	// resultsAt is when the last results scan ran.
	resultsAt time.Time
	warned    bool // the saved-plan notice was logged
	noted     bool // --republish was checked against the journal
}

// tipHost is what the tips ask of the run they are part of: its log,
// its reads of the list of notifications, how it shows race times.
type tipHost interface {
	logf(format string, args ...any)
	checkpoint(point string)
	raceTime(venue string, t time.Time) string
}

func (r *tipRun) hasTips() bool { return len(r.plan.Tips) > 0 }

// tipsDone reports whether every tip is final: published and resulted,
// or past being published.
func (r *tipRun) tipsDone() bool {
	for _, in := range r.insts {
		if in.open() {
			return false
		}
	}
	return true
}

// tipsWaiting counts the tips still to be published.
func (r *tipRun) tipsWaiting() int {
	n := 0
	for _, in := range r.insts {
		if in.status == TipWaiting && !in.final {
			n++
		}
	}
	return n
}
