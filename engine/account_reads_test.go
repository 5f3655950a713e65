package engine_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// runPlansTogether runs plans of bets each, dealt over races upcoming
// races, in one process as `betplan run DIR` does: one goroutine and one
// engine.Run per plan, one client and one Account shared by all, on one
// simulated clock. It returns the API calls per bet.
func runPlansTogether(t testing.TB, w *world, plans, bets, races int, share bool) float64 {
	t.Helper()
	perBet, _ := runPlansCounted(t, w, plans, bets, races, share)
	return perBet
}

// readsByReason counts the reads the service saw by endpoint and by the
// engine's reason for them (engine.ReadReason): "GET /notification/
// [race running]".
type readsByReason struct {
	engine.Backend
	mu sync.Mutex
	n  map[string]int
}

func (b *readsByReason) count(ctx context.Context, endpoint string) {
	why := engine.ReadReason(ctx)
	if why == "" {
		why = "unmarked"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == nil {
		b.n = map[string]int{}
	}
	b.n[endpoint+" ["+why+"]"]++
}

func (b *readsByReason) ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	b.count(ctx, "GET /notification/")
	return b.Backend.ListNotifications(ctx, opts)
}

func (b *readsByReason) NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error) {
	b.count(ctx, "GET /notification/?label=")
	return b.Backend.NotificationsByLabel(ctx, label)
}

func (b *readsByReason) ListBets(ctx context.Context, opts apiclient.ListBetsOptions) (*apiclient.Page[apiclient.BetRecord], error) {
	b.count(ctx, "GET /bet/")
	return b.Backend.ListBets(ctx, opts)
}

func (b *readsByReason) BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error) {
	b.count(ctx, "GET /bet/notification/{id}/")
	return b.Backend.BetsByNotification(ctx, id)
}

// runPlansCounted is runPlansTogether that also returns the reads by
// endpoint and reason.
func runPlansCounted(t testing.TB, w *world, plans, bets, races int, share bool) (float64, map[string]int) {
	t.Helper()
	var upcoming []sim.RaceInfo
	for _, r := range w.svc.Races() {
		if benchVenues[r.Venue] && r.Start.After(w.clock.Now().Add(10*time.Minute)) {
			upcoming = append(upcoming, r)
		}
	}
	// The card's next races, soonest first.
	sort.SliceStable(upcoming, func(i, j int) bool { return upcoming[i].Start.Before(upcoming[j].Start) })
	if races > 0 {
		upcoming = upcoming[:min(races, len(upcoming))]
		require.Len(t, upcoming, races)
	}
	races = len(upcoming)
	c := &readsByReason{Backend: w.client()}
	clock := sim.NewGroupClock(w.clock, plans)
	account := engine.NewAccount(c, clock, 0)
	results := make([]*engine.Result, plans)
	errs := make([]error, plans)
	var wg sync.WaitGroup
	var lateMu sync.Mutex
	var lates []string
	checked := 0
	for i := range plans {
		// Each plan starts on its own race, so the plans together cover
		// every race.
		rotated := append(append([]sim.RaceInfo(nil), upcoming[i%races:]...), upcoming[:i%races]...)
		path := filepath.Join(w.dir, fmt.Sprintf("plan-%02d.yaml", i))
		require.NoError(t, os.WriteFile(path, []byte(spreadPlan(fmt.Sprintf("plan-%02d", i), bets, rotated)), 0o644))
		p, diags := plan.Load(path)
		require.False(t, diags.HasErrors(), "%v", diags)
		opts := w.options(nil)
		opts.Backend = account.Plan()
		if !share {
			opts.Backend = c
		}
		opts.Clock = clock
		opts.PlanFile = path
		// Every result is seen within an interval of the service showing
		// it (the simulated service results a race two minutes after its
		// start): what the README promises of a running race.
		opts.Log = logFunc(func(line string) {
			stamp, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
			id, ok := strings.CutPrefix(rest, "settled ")
			if !ok {
				return
			}
			id, _, _ = strings.Cut(id, ":")
			var n int
			if _, err := fmt.Sscanf(id, "b%05d", &n); err != nil {
				return
			}
			at, err := time.Parse("2006-01-02T15:04:05Z", stamp)
			if err != nil {
				return
			}
			resulted := rotated[n%len(rotated)].Start.Add(2 * time.Minute)
			lateMu.Lock()
			checked++
			lateMu.Unlock()
			if late := at.Sub(resulted); late < 0 || late > 30*time.Second {
				lateMu.Lock()
				lates = append(lates, fmt.Sprintf("plan %d bet %s: resulted at %s, seen at %s", i, id, resulted.UTC().Format(time.TimeOnly), at.Format(time.TimeOnly)))
				lateMu.Unlock()
			}
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer clock.Leave()
			results[i], errs[i] = engine.Run(context.Background(), p, opts)
		}()
	}
	wg.Wait()
	for i := range plans {
		require.NoError(t, errs[i], "plan %d", i)
		require.Len(t, results[i].Bets, bets)
		for _, b := range results[i].Bets {
			require.True(t, b.Final, "plan %d bet %s: %s %s", i, b.ID, b.Status, b.Reason)
		}
	}
	assert.Empty(t, lates, "results seen more than an interval after the service showed them")
	statuses := map[engine.Status]int{}
	for _, r := range results {
		for _, b := range r.Bets {
			statuses[b.Status]++
		}
	}
	t.Logf("statuses: %v", statuses)
	assert.Equal(t, statuses[engine.StatusSettled], checked, "every settled bet's log line was checked")
	// Exactly once: one notification per bet of every plan.
	assert.Equal(t, plans*bets, w.svc.NotificationCount())
	byPath := w.callsByPath()
	t.Logf("%d plans x %d bets: %v", plans, bets, byPath)
	for _, k := range slices.Sorted(maps.Keys(c.n)) {
		t.Logf("%5d %s", c.n[k], k)
	}
	if os.Getenv("BP_TRACE_CALLS") != "" {
		start := w.svc.Requests()[0].SimTime
		for _, r := range w.svc.Requests() {
			if r.Method == "POST" {
				continue
			}
			t.Logf("%8s %s %s?%s", r.SimTime.Sub(start).Round(time.Second), r.Method, r.Path, r.Query)
		}
		for _, u := range upcoming {
			t.Logf("race %s %d start %s", u.Venue, u.EventNumber, u.Start.Sub(start).Round(time.Second))
		}
	}
	return float64(len(w.svc.Requests())) / float64(plans*bets), c.n
}

// One run of many plans on one account reads races, sessions and the
// notification list once for all of them: the plans together cost what
// one plan holding all their bets costs (the same polls, at the same
// times), and far less than the plans run each on its own.
func TestManyPlansShareReads(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	shared := runPlansTogether(t, newWorld(t), 8, 5, 10, true)
	alone := runPlansTogether(t, newWorld(t), 8, 5, 10, false)
	one, reads := runPlansCounted(t, newWorld(t), 1, 40, 10, true)
	t.Logf("8 plans x 5 bets over 10 races: %.3f calls per bet shared, %.3f each plan alone; one plan of the 40 bets: %.3f", shared, alone, one)
	assert.Less(t, shared, alone*0.6, "sharing saves at least 40%% of the calls")
	// One plan of the 40 bets: 40 creates, races, sessions, the list page
	// that checks the labels, one poll an interval after the burst (every
	// bet placed, its records read: 1 bet history page), the 5-minute
	// polls before the first race and in the gap after the fifth (3), a
	// page a tick from each race's start plus an interval to its result
	// two minutes later (4 a race: 40, one of them also the third 5-minute
	// poll), and the settled records (1 page). Nothing random: 89 calls.
	// The answer window's two polls after the first (which told nothing:
	// every session had answered) are gone: it was 91.
	assert.Zero(t, reads["GET /notification/ [answer window]"], "every session answered at the first poll")
	assert.LessOrEqual(t, one, 89.0/40)
	// The plans' polls fall at the times one plan's would: a page one
	// plan reads polls every plan's bets it shows, so the plans' slow
	// polls (every 5 minutes, each plan on its own clock) never read it
	// again. What is left is each plan reading the records of its own
	// bets when its last race settles: 5 calls more over 40 bets (it was
	// 13 before the plans adopted each other's pages).
	assert.LessOrEqual(t, shared, one+0.15)
}

// Fifty plans of 20 bets over the next 10 races cost about 1.2 calls per
// bet: the creates, and reads every plan shares. A running race is probed
// by one plan a tick for all (the others wait for its page, which shows
// the race), so the ticks while races run read about one page a race
// (140 to 160 when every plan probed its own). Measured 1.20 to 1.21, and
// 1.25 under -race: the order in which the plans' goroutines create moves
// how the bets lie in the notification list, and so how many pages a
// poll reads. Each plan reading for itself costs 2.23; the bound is the
// issue's target, and BenchmarkManyPlans reports the figure itself.
//
// make test runs 10 plans of 20 bets, the same code on fewer bets to
// share the reads (measured 1.32 under -race); BETPLAN_FULL_SCALE=1 the fifty.
func TestFiftyPlansShareReads(t *testing.T) {
	if testing.Short() {
		t.Skip("50 plans of 20 bets")
	}
	t.Parallel()
	plans, bound := 10, 1.4
	if fullScale() {
		plans, bound = 50, 1.3
	}
	perBet, reads := runPlansCounted(t, newWorld(t), plans, 20, 10, true)
	t.Logf("%d plans x 20 bets over 10 races: %.3f calls per bet", plans, perBet)
	assert.LessOrEqual(t, perBet, bound)
	running := 0
	for k, n := range reads {
		if strings.HasPrefix(k, "GET /notification/ [") && strings.Contains(k, "race running") {
			running += n
		}
	}
	assert.LessOrEqual(t, running, 80, "pages read to follow running races")
}

// BenchmarkManyPlans measures API calls per bet of one run of many plans
// on one account: 8 plans of 5 bets and 50 plans of 20 bets over the
// next 10 races, and 50 plans of 20 bets over the whole card.
func BenchmarkManyPlans(b *testing.B) {
	for _, size := range []struct{ plans, bets, races int }{{8, 5, 10}, {50, 20, 10}, {50, 20, 0}} {
		name := fmt.Sprintf("%dx%d", size.plans, size.bets)
		if size.races == 0 {
			name += "-card"
		}
		b.Run(name, func(b *testing.B) {
			var perBet float64
			for b.Loop() {
				b.StopTimer()
				w := newWorld(b)
				b.StartTimer()
				perBet = runPlansTogether(b, w, size.plans, size.bets, size.races, true)
			}
			b.ReportMetric(perBet, "calls/bet")
		})
	}
}

// A plan's view of the account shares reads with the other plans, but
// never hands a plan a list read before its own last create, never keeps
// a read past the window, and never shares label look-ups.
func TestAccountSharesReadsNotWrites(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	account := engine.NewAccount(w.client(), w.clock, 2*time.Second)
	a, b := account.Plan(), account.Plan()
	page1 := apiclient.ListNotificationsOptions{Page: 1, PageSize: 100}
	calls := func() int { return len(w.svc.Requests()) }

	_, err := a.ListRaces(ctx)
	require.NoError(t, err)
	_, err = b.ListRaces(ctx)
	require.NoError(t, err)
	_, err = a.ListNotifications(ctx, page1)
	require.NoError(t, err)
	_, err = b.ListNotifications(ctx, page1)
	require.NoError(t, err)
	assert.Equal(t, 2, calls(), "one read of races and one of page 1 serve both plans")

	r := w.raceAfter(30 * time.Minute)
	made, err := a.CreateNotification(ctx, &apiclient.CreateNotificationRequest{
		Type: "Fixed Wager", Sports: "RACING", Competition: r.Venue, Code: r.Code, EventNumber: r.EventNumber,
		Market: "Fixed Win", Selection: r.Runners[0], Stake: 1, Label: "bp:a:x:1",
	})
	require.NoError(t, err)
	// b did not create: the page read before a's create still serves it.
	_, err = b.ListNotifications(ctx, page1)
	require.NoError(t, err)
	assert.Equal(t, 3, calls())
	// a created since: it reads the page again, and sees its notification.
	got, err := a.ListNotifications(ctx, page1)
	require.NoError(t, err)
	assert.Equal(t, 4, calls())
	require.NotEmpty(t, got.Results)
	assert.Equal(t, made.ID, int64(got.Results[0].ID))
	// Label look-ups are never shared.
	_, err = a.NotificationsByLabel(ctx, "bp:a:x:1")
	require.NoError(t, err)
	_, err = b.NotificationsByLabel(ctx, "bp:a:x:1")
	require.NoError(t, err)
	assert.Equal(t, 6, calls())
	// Past the window, a read is sent again.
	w.clock.Advance(3 * time.Second)
	_, err = b.ListRaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, 7, calls())
	// A plan's copy is its own: changing it changes no other plan's.
	mine, err := a.ListNotifications(ctx, page1)
	require.NoError(t, err)
	mine.Results[0].Label = "changed"
	theirs, err := b.ListNotifications(ctx, page1)
	require.NoError(t, err)
	assert.Equal(t, "bp:a:x:1", theirs.Results[0].Label)
}

// A page of the notification list one plan read is handed to the others
// as a poll of their bets, but never to a plan that created since it was
// sent (it would not show that plan's bet), nor twice.
func TestAccountHandsListPagesToOtherPlans(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	account := engine.NewAccount(w.client(), w.clock, 2*time.Second)
	a, b := account.Plan(), account.Plan()
	start := w.clock.Now()
	_, err := a.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: 1, PageSize: 100})
	require.NoError(t, err)
	assert.Equal(t, []int{1}, engine.ListPagesSince(b, start.Add(-time.Second)))
	assert.Empty(t, engine.ListPagesSince(b, start), "a page is handed once: not again after its time")
	// A label look-up is not a page of the list.
	_, err = a.NotificationsByLabel(ctx, "bp:a:x:1")
	require.NoError(t, err)
	assert.Equal(t, []int{1}, engine.ListPagesSince(b, start.Add(-time.Second)))

	r := w.raceAfter(30 * time.Minute)
	_, err = b.CreateNotification(ctx, &apiclient.CreateNotificationRequest{
		Type: "Fixed Wager", Sports: "RACING", Competition: r.Venue, Code: r.Code, EventNumber: r.EventNumber,
		Market: "Fixed Win", Selection: r.Runners[0], Stake: 1, Label: "bp:b:x:1",
	})
	require.NoError(t, err)
	assert.Empty(t, engine.ListPagesSince(b, start.Add(-time.Second)), "b created since the page was read")
	assert.Equal(t, []int{1}, engine.ListPagesSince(a, start.Add(-time.Second)), "a did not")
}
