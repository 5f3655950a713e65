package engine

import (
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// raceSight is what the notification list last showed of a race, from
// any notification on it: the plan's own, or another plan's of the run
// (a page read for one plan shows every plan's bets). A race's finishing
// order shows on every bet on it at once, so a page that shows one of
// them shows where the race stands (a void, a scratched runner, shows
// on that runner's bets alone, and says nothing of the race).
type raceSight struct {
	at       time.Time // when the page was read, on the engine's clock
	resulted bool      // a notification on it showed the race's result
}

// sawRaces notes the races of the notifications a page read at at shows.
// A void (a scratched runner) results one bet early, not the race; only
// a finishing order says the race is resulted.
func (r *tracker) sawRaces(at time.Time, ns []apiclient.Notification) {
	if r.raceSeen == nil {
		r.raceSeen = map[string]raceSight{}
	}
	for i := range ns {
		n := &ns[i]
		if isSportsNotification(n) {
			continue
		}
		info := notificationRace(n)
		if info.Venue == "" || info.Start.IsZero() {
			continue
		}
		k := racingKey(info)
		result := strings.TrimSpace(n.Tip.Competition.Result)
		resulted := n.Resulted() && result != "" && !strings.EqualFold(result, "void")
		if !resulted && n.Resulted() {
			continue // a void bet says nothing of the race
		}
		s := r.raceSeen[k]
		s.resulted = s.resulted || resulted
		if at.After(s.at) {
			s.at = at
		}
		r.raceSeen[k] = s
	}
}

// raceNews says what the pages read since the tick began show of a
// started race whose bets are all open: resulted (read them all now),
// running (a probe of it would tell nothing new), or unknown ("").
func (r *tracker) raceNews(k string) string {
	s, ok := r.raceSeen[k]
	switch {
	case !ok:
		return ""
	case s.resulted:
		return "resulted"
	case !r.tickAt.IsZero() && !s.at.Before(r.tickAt):
		return "running"
	}
	return ""
}

// awaitedProbe is a race another plan of the run is probing this tick.
type awaitedProbe struct {
	key  string
	done <-chan struct{}
}

// claimProbe takes the probe of race k for this tick on the run's
// account, so the other plans probing it wait for this plan's read
// instead of each reading a page of their own. It returns the claim when
// the probe is this plan's (nil for a plan running alone, which probes
// every race itself), else what to wait for.
func (r *tracker) claimProbe(k string) (*raceProbe, <-chan struct{}) {
	ap, ok := r.svc.(*accountPlan)
	if !ok || r.tickAt.IsZero() {
		return nil, nil
	}
	return ap.account.claimProbe(k, r.tickAt)
}

// newest is the member of a race's group the list index places on the
// newest page: the plans of a run probing a race then tend to read one
// page for it, which serves them all.
func (r *tracker) newest(g []*instance) *instance {
	best, bestPage := g[0], 0
	for _, in := range g {
		if n, ok := r.list.page(in.notifID); ok && (bestPage == 0 || n < bestPage) {
			best, bestPage = in, n
		}
	}
	return best
}

// probing reports whether a race's group can be represented by a probe:
// the race has started, none of the group is resulted yet and every
// member was polled before (its take-up is known).
func (r *tracker) probing(g []*instance, now time.Time) bool {
	for _, in := range g {
		if in.lastPolled.IsZero() || in.info.Start.IsZero() || now.Before(in.info.Start) || (in.notif != nil && in.notif.Resulted()) {
			return false
		}
	}
	return true
}
