package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/betplan/betplan/apiclient"
)

// timeline is what a run's reads of the notification list saw, on the
// engine's clock: when each list read and each create was sent, and when a
// read first showed each notification resulted. It measures the polling
// rule: every page holding an open bet read once an interval, no more
// often, and each result seen at the first read after the service shows it.
type timeline struct {
	reads      []tlRead
	creates    []tlCreate
	resultedAt map[int64]time.Time // the first read that showed it resulted
}

type tlRead struct {
	at   time.Time
	why  string
	page int
}

type tlCreate struct {
	at   time.Time
	id   int64
	race string // venue|event number
}

func (tl *timeline) read(at time.Time, why string, page int, p *apiclient.Page[apiclient.Notification], err error) {
	tl.reads = append(tl.reads, tlRead{at: at, why: why, page: page})
	if err != nil || p == nil {
		return
	}
	if tl.resultedAt == nil {
		tl.resultedAt = map[int64]time.Time{}
	}
	for i := range p.Results {
		n := &p.Results[i]
		if _, ok := tl.resultedAt[int64(n.ID)]; !ok && n.Resulted() {
			tl.resultedAt[int64(n.ID)] = at
		}
	}
}

func (tl *timeline) created(at time.Time, req *apiclient.CreateNotificationRequest, res *apiclient.CreateResult, err error) {
	if err != nil || res == nil || res.ID == 0 {
		return
	}
	tl.creates = append(tl.creates, tlCreate{at: at, id: res.ID, race: fmt.Sprintf("%s|%d", req.Competition, req.EventNumber)})
}

// isPoll reports whether a list read is a poll of open bets (not a label
// check before creates, nor a recovery scan).
func isPoll(why string) bool {
	return strings.Contains(why, "first poll") || strings.Contains(why, "open bet") || strings.Contains(why, "last look")
}

// readFigures are a run's polls measured against the rule.
type readFigures struct {
	reads       int           // list reads that polled open bets
	ticks       int           // distinct times the list was polled
	maxPerTick  int           // the most list pages polled at one time
	minGap      time.Duration // the shortest time between two polls
	overBound   []string      // ticks that read more than the rule allows
	labelChecks int           // list reads for label checks, counted apart
}

// openPages is how many pages of the list (newest first, 100 a page)
// hold a notification created by at that no read had shown resulted
// before at.
func (tl *timeline) openPages(at time.Time) int {
	var ids []int64
	for _, c := range tl.creates {
		if !c.at.After(at) {
			ids = append(ids, c.id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	pages := map[int]bool{}
	for pos, id := range ids {
		if r, ok := tl.resultedAt[id]; !ok || !r.Before(at) {
			pages[pos/100] = true
		}
	}
	return len(pages)
}

// figures measures the polls: each time the list was polled, it read at
// most the pages holding open bets, plus one for each create since the
// previous poll (creates move bets down the list).
func (tl *timeline) figures() readFigures {
	var f readFigures
	byTime := map[time.Time]int{}
	var times []time.Time
	for _, r := range tl.reads {
		if !isPoll(r.why) {
			if strings.Contains(r.why, "label") {
				f.labelChecks++
			}
			continue
		}
		f.reads++
		if byTime[r.at] == 0 {
			times = append(times, r.at)
		}
		byTime[r.at]++
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	f.ticks = len(times)
	var prev time.Time
	for _, at := range times {
		n := byTime[at]
		f.maxPerTick = max(f.maxPerTick, n)
		if !prev.IsZero() && (f.minGap == 0 || at.Sub(prev) < f.minGap) {
			f.minGap = at.Sub(prev)
		}
		creates := 0
		for _, c := range tl.creates {
			if c.at.After(prev) && !c.at.After(at) {
				creates++
			}
		}
		if bound := tl.openPages(at) + creates; n > bound {
			f.overBound = append(f.overBound, fmt.Sprintf("%s: %d pages read, %d hold open bets, %d creates since the last poll", at.Format(time.TimeOnly), n, tl.openPages(at), creates))
		}
		prev = at
	}
	return f
}

// latencies is, for each notification some read showed resulted, how long
// after the service resulted it (resulted, by race "venue|number") the
// first read showed it; ok false for one not seen.
func (tl *timeline) latencies(resulted func(race string) time.Time) map[int64]time.Duration {
	out := map[int64]time.Duration{}
	for _, c := range tl.creates {
		if seen, ok := tl.resultedAt[c.id]; ok {
			out[c.id] = seen.Sub(resulted(c.race))
		}
	}
	return out
}

// assertPollRule holds a run's polls to the rule at interval: no tick
// reads more than the pages of its open bets (plus its creates), no two
// ticks closer than the interval, and each result seen within one
// interval of the service showing it.
func assertPollRule(t testing.TB, tl *timeline, interval time.Duration, resulted func(race string) time.Time) (readFigures, time.Duration) {
	t.Helper()
	f := tl.figures()
	assert.Empty(t, f.overBound, "polls reading more pages than hold open bets")
	if f.ticks > 1 {
		assert.GreaterOrEqual(t, f.minGap, interval-min(time.Second, interval/4), "polls closer than the interval")
	}
	var worst time.Duration
	for id, late := range tl.latencies(resulted) {
		worst = max(worst, late)
		assert.True(t, late >= 0 && late <= interval, "notification %d seen resulted %s after the service showed it (interval %s)", id, late, interval)
	}
	return f, worst
}
