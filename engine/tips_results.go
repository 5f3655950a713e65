package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/plan"
)

// resultsEvery is how often a run reads the account's notifications for
// the results of races with published tips.
const resultsEvery = time.Minute

// followResults reads the results of the races of published tips once
// they have run. The service shows a race's result only on notifications:
// the account's own on the race (the tipster's copy of the tip, when it
// follows its package, or any bet of its own) give it. A race nothing of
// the account's is on has no result to read; after
// follow.UnresultedAfter its tip is final with the result unknown.
func (r *tipRun) followResults(ctx context.Context, now time.Time) error {
	var want []*tipInstance
	for _, in := range r.insts {
		if in.status != TipPublished || in.final || in.info.Start.IsZero() || now.Before(in.info.Start) {
			continue
		}
		want = append(want, in)
	}
	if len(want) == 0 || (!r.resultsAt.IsZero() && now.Sub(r.resultsAt) < resultsEvery) {
		return nil
	}
	r.resultsAt = now
	oldest := want[0].info.Start
	for _, in := range want {
		if in.info.Start.Before(oldest) {
			oldest = in.info.Start
		}
	}
	results := map[string]string{}
	_, err := r.eachPage(ctx, func(page []apiclient.Notification) bool {
		older := true
		for i := range page {
			n := &page[i]
			info := notificationRace(n)
			if res := strings.TrimSpace(n.Tip.Competition.Result); res != "" {
				if _, seen := results[resultKey(info)]; !seen {
					results[resultKey(info)] = res
				}
			}
			if n.CreatedAt.IsZero() || !n.CreatedAt.Time.Before(oldest.Add(-24*time.Hour)) {
				older = false
			}
		}
		return !older
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.host.logf("tip results: %v", err)
	}
	for _, in := range want {
		res, ok := results[resultKey(in.info)]
		if !ok {
			if now.After(in.info.Start.Add(follow.UnresultedAfter)) {
				in.final = true
				in.reason = fmt.Sprintf("no result to read %s after the start: nothing in the account is on the race (follow your own package to read results)", follow.UnresultedAfter)
			}
			continue
		}
		in.result = res
		in.outcome, in.units = tipOutcome(in.tip, res)
		in.final = true
		switch in.outcome {
		case "":
			in.reason = "the result " + res + " does not settle the tip"
		case TipVoid:
			in.reason = "void (result " + res + ")"
		default:
			// The verb says which way: "lost 1.00 units", not "lost -1.00".
			in.reason = fmt.Sprintf("%s %.2f units at %.2f (result %s)", in.outcome, math.Abs(*in.units), in.tip.Odds, res)
		}
		r.host.logf("tip %s on %s R%d: %s", in.tip.ID, in.info.Venue, in.info.EventNumber, in.reason)
	}
	return nil
}

// resultKey is a race's identity for matching results: venue, code,
// number and meeting date.
func resultKey(info RaceInfo) string {
	return fmt.Sprintf("%s|%s|%d|%s", plan.FoldVenue(info.Venue), strings.ToLower(info.Code), info.EventNumber, meetingDate(info.Start))
}

// tipOutcome settles a tip against its race's result at the tipped odds:
// a win market needs the runner first, a place market in the first three,
// Same Race Multi every R:P leg (runner R in the first P); a lay tip wins
// when the back bet loses. Won: +units × (odds − 1); lost: −units (a lay
// loses units × (odds − 1)); a void result returns the stake.
func tipOutcome(t *plan.Tip, result string) (string, *float64) {
	zero := 0.0
	if strings.EqualFold(strings.TrimSpace(result), "VOID") {
		return TipVoid, &zero
	}
	order := strings.Split(result, "/")
	for i := range order {
		order[i] = strings.TrimSpace(order[i])
	}
	type leg struct {
		runner string
		top    int
	}
	var legs []leg
	if t.Market == plan.MarketSameRaceMulti {
		for _, p := range strings.Split(t.Selection, ",") {
			r, top, _ := strings.Cut(strings.TrimSpace(p), ":")
			n := 0
			fmt.Sscan(top, &n)
			legs = append(legs, leg{r, n})
		}
	} else {
		top := 1
		if strings.Contains(t.Market, "Place") {
			top = 3
		}
		legs = []leg{{strings.TrimSpace(t.Selection), top}}
	}
	won := true
	for _, l := range legs {
		pos := slices.Index(order, l.runner) + 1
		switch {
		case pos > 0 && pos <= l.top:
		case pos == 0 && len(order) < l.top:
			return "", nil // the result lists too few runners to tell
		default:
			won = false
		}
	}
	units := t.AmountUnits
	lay := strings.HasPrefix(t.Market, "Lay")
	var v float64
	switch {
	case lay && !won:
		v = units
	case lay:
		v = -units * (t.Odds - 1)
	case won:
		v = units * (t.Odds - 1)
	default:
		v = -units
	}
	v = roundCents(v)
	if v >= 0 {
		return TipWon, &v
	}
	return TipLost, &v
}
