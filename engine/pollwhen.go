package engine

import (
	"strings"
	"time"
)

// Why a notification is polled: the reasons due gives, and the run's
// other reads of the list. A read carries its reason in its context
// (readReason), so a test can count the calls by what asked for them.
const (
	whyFirst    = "first poll"
	whyOpen     = "open bet"
	whyLastLook = "last look"
)

// due reports why an open notification is polled on a tick of the plan's
// interval: every open bet is read once a tick, so each outcome is seen
// at the first tick after the service shows it, whether it lands before
// the listed start (a scratching, a start in the wrong time zone) or
// after. The pages that hold the plan's open bets are what a tick reads
// (fetch), a hundred bets a call, so reading them all costs no more than
// reading a few.
func (in *instance) due() string {
	if in.lastPolled.IsZero() {
		return whyFirst
	}
	return whyOpen
}

// createdThisTick reports whether the notification was created on the
// run's current tick: its sessions have had no time to answer, so its
// first poll is the next tick's.
func (in *instance) createdThisTick(tick time.Time) bool {
	return !tick.IsZero() && !in.createdAt.IsZero() && !in.createdAt.Before(tick)
}

// readThisTick reports whether the notification was read since the tick
// began (a look-up that adopted it, a page another plan of the run read):
// polling it again would tell nothing.
func (in *instance) readThisTick(tick time.Time) bool {
	return !tick.IsZero() && !in.lastPolled.IsZero() && !in.lastPolled.Before(tick)
}

// answered reports whether the last poll showed the sessions' answer:
// a bet placed, or bots that received it (a refusal or a review).
func (in *instance) answered() bool {
	return in.notif != nil && (in.notif.TotalAccepted > 0 || strings.TrimSpace(in.notif.ReceivedBots) != "")
}
