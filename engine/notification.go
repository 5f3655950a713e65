package engine

import (
	"strings"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// notification.go reads what a notification the service echoes says of
// its race or event and of the amount it committed.

// notificationRace is the race a notification was created for, as the
// service echoes it.
func notificationRace(n *apiclient.Notification) RaceInfo {
	if isSportsNotification(n) {
		return notificationEvent(n)
	}
	c := &n.Tip.Competition
	return RaceInfo{Venue: c.Name.First(), Code: c.Code, EventNumber: int(c.EventNumber), Start: c.StartTime.Time}
}

// isSportsNotification reports whether a notification is a sports bet.
func isSportsNotification(n *apiclient.Notification) bool {
	s := strings.TrimSpace(n.Sports)
	return (s != "" && !strings.EqualFold(s, "RACING")) || n.EventID != ""
}

// notificationEvent is the event a sports notification was created for,
// as the service echoes it.
func notificationEvent(n *apiclient.Notification) RaceInfo {
	c := &n.Tip.Competition
	e := &EventInfo{ID: string(n.EventID), Sport: n.Sports, Name: c.Name.First(), Market: n.Tip.Market,
		MarketID: string(n.SportsMarket), Selection: string(n.Tip.Selection), SelectionID: string(n.SportsSelection)}
	if n.Handicap != nil {
		h := float64(*n.Handicap)
		e.Handicap = &h
	}
	return RaceInfo{Start: c.StartTime.Time, Event: e}
}

// notificationAmount is what a notification committed in amount field f:
// its own amount, whatever the plan says now (it may have been edited).
func notificationAmount(n *apiclient.Notification, f plan.AmountField) float64 {
	if f == plan.AmountTargetProfit {
		return float64(n.TargetProfit)
	}
	return float64(n.Stake)
}
