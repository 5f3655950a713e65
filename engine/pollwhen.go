package engine

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Between its sessions' answer and its race's start a notification is
// polled at least every slowPollEvery: a scratching, a void or a start
// that moved can result it long before the listed start. Until its
// sessions answer, and during its first answerWindow unless every session
// it targets has placed or refused it, it is polled at the plan's
// interval, so the user learns at once whether it was placed.
const (
	slowPollEvery = 5 * time.Minute
	answerWindow  = 2 * time.Minute
	// unansweredFor bounds the fast polls of a notification no session
	// answers (no bot matched it): after that it is polled like an
	// answered one, whose answer can still come.
	unansweredFor = 15 * time.Minute
)

// Why a notification is polled: the reasons due gives, and the run's
// other reads of the list. A read carries its reason in its context
// (readReason), so a test can count the calls by what asked for them.
const (
	whyFirst     = "first poll"
	whyNoStart   = "start unknown"
	whyRunning   = "race running"
	whyAnswer    = "answer window"
	whyUnanswer  = "unanswered"
	whySlow      = "5-minute poll"
	whyEvent     = "event running"
	whyLastLook  = "last look"
	whyProbeRest = "race resulted"
)

// due reports whether an open notification should be polled now (on a
// tick of the plan's interval), and why: never polled yet, its race
// started at least an interval ago (the result is coming: a race is not
// resulted at the off), its sessions have not all answered yet or it is
// young, or it was last polled slowPollEvery ago. A sports event that
// has started is polled every slowPollEvery: it runs for hours. "" is
// not due.
func (in *instance) due(now time.Time, interval time.Duration, sessions []apiclient.Session) string {
	switch {
	case in.info.Event != nil && !in.lastPolled.IsZero() && !now.Before(in.info.Start):
		// A sports event runs for hours and the service gives no end: while
		// it runs it is polled at the slow pace, not on every tick.
		if now.Sub(in.lastPolled) >= slowPollEvery {
			return whyEvent
		}
		return ""
	case in.lastPolled.IsZero():
		return whyFirst
	case in.info.Start.IsZero():
		return whyNoStart
	case !now.Before(in.info.Start.Add(interval)):
		return whyRunning
	case now.Sub(in.createdAt) < answerWindow && !in.allAnswered(sessions):
		return whyAnswer
	case !in.answered() && now.Sub(in.createdAt) < unansweredFor:
		return whyUnanswer
	case now.Sub(in.lastPolled) >= slowPollEvery:
		return whySlow
	}
	return ""
}

// createdThisTick reports whether the notification was created on the
// run's current tick: its sessions have had no time to answer, so its
// first poll is the next tick's.
func (in *instance) createdThisTick(tick time.Time) bool {
	return !tick.IsZero() && !in.createdAt.IsZero() && !in.createdAt.Before(tick)
}

// readThisTick reports whether the notification was read since the tick
// began (a look-up that adopted it): polling it again would tell nothing.
func (in *instance) readThisTick(tick time.Time) bool {
	return !tick.IsZero() && !in.lastPolled.IsZero() && !in.lastPolled.Before(tick)
}

// allAnswered reports whether every session the bet targets whose bot
// was running when the sessions were read has placed or refused it, as
// its records say: the rest of its answer window would tell nothing new
// of its placement (a record in review may still change; a session whose
// bot starts later is seen by the next 5-minute poll). It is never true before the
// records were read, nor for an account whose sessions are not known.
func (in *instance) allAnswered(sessions []apiclient.Session) bool {
	if !in.recordsRead || in.notif == nil {
		return false
	}
	var targets []string
	if t := strings.TrimSpace(in.bet.TargetSession); t != "" {
		targets = strings.Split(t, ",")
		for i := range targets {
			targets[i] = strings.TrimSpace(targets[i])
		}
	}
	expected := 0
	for _, s := range sessions {
		if !bool(s.BotRunning) || (targets != nil && !slices.Contains(targets, strconv.FormatInt(int64(s.ID), 10))) {
			continue
		}
		expected++
		answered := false
		for _, rec := range in.records {
			if rec.DisplayName == s.DisplayName && (strings.EqualFold(rec.SubmitResult, apiclient.SubmitSuccess) || strings.EqualFold(rec.SubmitResult, apiclient.SubmitError)) {
				answered = true
			}
		}
		if !answered {
			return false
		}
	}
	return expected > 0
}

// answered reports whether the last poll showed the sessions' answer:
// a bet placed, or bots that received it (a refusal or a review).
func (in *instance) answered() bool {
	return in.notif != nil && (in.notif.TotalAccepted > 0 || strings.TrimSpace(in.notif.ReceivedBots) != "")
}

// reasons joins a poll's reasons in a fixed order.
func reasons(set map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(set)), "+")
}

type readReasonKey struct{}

// withReadReason marks the reads made with ctx as asked for why.
func withReadReason(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, readReasonKey{}, why)
}

// readReason is why the read made with ctx was asked for; "" unmarked.
func readReason(ctx context.Context) string {
	why, _ := ctx.Value(readReasonKey{}).(string)
	return why
}
