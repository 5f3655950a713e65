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

// planRuns is what runPlansCounted measured: calls per bet, the reads by
// endpoint and reason over every process, and each process's polls
// measured against the rule (one for a shared run, one a plan else).
type planRuns struct {
	perBet float64
	reads  map[string]int
	procs  []readFigures
}

// polls sums the processes' polls of the list.
func (r planRuns) polls() (reads, ticks, maxPerTick, labelChecks int) {
	for _, f := range r.procs {
		reads += f.reads
		ticks = max(ticks, f.ticks)
		maxPerTick = max(maxPerTick, f.maxPerTick)
		labelChecks += f.labelChecks
	}
	return
}

// records counts the reads of bet records (GET /bet/ pages and a
// notification's records), counted apart from the polls.
func (r planRuns) records() int {
	n := 0
	for k, v := range r.reads {
		if strings.HasPrefix(k, "GET /bet/") {
			n += v
		}
	}
	return n
}

// readsByReason counts the reads the service saw by endpoint and by the
// engine's reason for them (engine.ReadReason): "GET /notification/
// [race running]".
//
// With a clock it also keeps when each list read and each create was sent,
// and when a read first showed each notification resulted (timeline.go).
type readsByReason struct {
	engine.Backend
	clock engine.Clock // nil: no timeline
	mu    sync.Mutex
	n     map[string]int
	tl    timeline
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
	if b.clock == nil {
		return b.Backend.ListNotifications(ctx, opts)
	}
	at := b.clock.Now()
	p, err := b.Backend.ListNotifications(ctx, opts)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tl.read(at, engine.ReadReason(ctx), opts.Page, p, err)
	return p, err
}

func (b *readsByReason) CreateNotification(ctx context.Context, req *apiclient.CreateNotificationRequest) (*apiclient.CreateResult, error) {
	if b.clock == nil {
		return b.Backend.CreateNotification(ctx, req)
	}
	at := b.clock.Now()
	res, err := b.Backend.CreateNotification(ctx, req)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tl.created(at, req, res, err)
	return res, err
}

// timeline is what a run's reads of the notification list saw.
func (b *readsByReason) timeline() *timeline {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &b.tl
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

// runPlansCounted runs plans of bets each, dealt over races upcoming
// races, in one process as `betplan run DIR` does: one goroutine and one
// engine.Run per plan, one client and one Account shared by all, on one
// simulated clock. It returns the API calls per bet, the reads by
// endpoint and reason, and holds each process's polls to the rule: each
// tick reads at most the pages holding its open bets (plus its creates
// since its last poll), no two ticks closer than the interval, every
// result seen within one interval of the service showing it. With share
// false each plan reads for itself, as separate processes do.
func runPlansCounted(t testing.TB, w *world, plans, bets, races int, share bool) planRuns {
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
	clock := sim.NewGroupClock(w.clock, plans)
	client := w.client()
	c := &readsByReason{Backend: client, clock: clock}
	account := engine.NewAccount(c, clock, 0)
	procs := []*readsByReason{c}
	ps := make([]*plan.Plan, plans)
	optss := make([]engine.Options, plans)
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
			own := &readsByReason{Backend: client, clock: clock}
			if i > 0 {
				procs = append(procs, own)
			} else {
				procs[0] = own
			}
			opts.Backend = own
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
		ps[i], optss[i] = p, opts
	}
	results := runOnOneClock(t, clock, ps, optss)
	for i, r := range results {
		require.Len(t, r.Bets, bets, "plan %d", i)
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
	out := planRuns{perBet: float64(len(w.svc.Requests())) / float64(plans*bets), reads: map[string]int{}}
	resultAt := map[string]time.Time{}
	for _, u := range upcoming {
		resultAt[fmt.Sprintf("%s|%d", u.Venue, u.EventNumber)] = u.Start.Add(2 * time.Minute)
	}
	for _, p := range procs {
		for k, v := range p.n {
			out.reads[k] += v
		}
		f, _ := assertPollRule(t, p.timeline(), 30*time.Second, func(k string) time.Time { return resultAt[k] })
		out.procs = append(out.procs, f)
	}
	for _, k := range slices.Sorted(maps.Keys(out.reads)) {
		t.Logf("%5d %s", out.reads[k], k)
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
	return out
}

// One run of many plans on one account reads each page of the
// notification list once a tick for all of them: the plans' polls cost
// what one plan holding all their bets costs, each tick at most the pages
// holding open bets (plus one a create since the last poll), and every
// result is seen within an interval (runPlansCounted holds each process
// to that). Plans run as separate processes each read for themselves,
// under the same rule. Label checks and bet records are counted apart.
func TestManyPlansShareReads(t *testing.T) {
	t.Parallel() // one of the package's slowest: runs beside the others
	// Over the card's next 5 races: each of the 8 plans starts on one of
	// them, so every race has bets of several plans.
	one := runPlansCounted(t, newWorld(t), 1, 40, 5, true)
	shared := runPlansCounted(t, newWorld(t), 8, 5, 5, true)
	apart := runPlansCounted(t, newWorld(t), 8, 5, 5, false)
	for _, m := range []struct {
		name string
		r    planRuns
	}{{"1 plan x 40 bets", one}, {"8 plans x 5 bets, one run", shared}, {"8 plans x 5 bets, 8 processes", apart}} {
		reads, ticks, most, labels := m.r.polls()
		t.Logf("%s: %d list reads over %d ticks (at most %d a tick in one process), %d label checks, %d bet record reads, %.3f calls per bet",
			m.name, reads, ticks, most, labels, m.r.records(), m.r.perBet)
	}
	require.Len(t, apart.procs, 8)
	oneReads, oneTicks, _, _ := one.polls()
	sharedReads, _, sharedMost, _ := shared.polls()
	// 40 bets on one page: one read a tick while any is open.
	assert.LessOrEqual(t, oneReads, oneTicks+1)
	// The plans of one run read the page together: what one plan would,
	// plus a read for a plan that created since the others read it.
	assert.LessOrEqual(t, sharedReads, oneReads+8)
	assert.LessOrEqual(t, sharedMost, 1+8, "a tick reads the one page, plus one for each plan that created since")
	for i, f := range apart.procs {
		assert.Positive(t, f.ticks, "process %d polled", i)
	}
}

// Fifty plans of 4 bets over the next 5 races, in one run: each tick
// reads at most the pages holding open bets (two for the 200), once for
// every plan (runPlansCounted holds the run to the rule). Fifty plans of
// 20 bets are BenchmarkManyPlans/50x20, ten pages a tick.
func TestFiftyPlansShareReads(t *testing.T) {
	if testing.Short() {
		t.Skip("50 plans")
	}
	t.Parallel()
	r := runPlansCounted(t, newWorld(t), 50, 4, 5, true)
	reads, ticks, most, labels := r.polls()
	t.Logf("50 plans x 4 bets over 5 races: %d list reads over %d ticks (at most %d a tick), %d label checks, %d bet record reads, %.3f calls per bet",
		reads, ticks, most, labels, r.records(), r.perBet)
	assert.LessOrEqual(t, reads, 2*ticks+50, "two pages a tick, plus a read for a plan that created since the others read")
}

// BenchmarkManyPlans measures one run of many plans on one account:
// 8 plans of 5 bets and 50 plans of 20 bets over the next 10 races, and 50
// plans of 20 bets over the whole card: list reads a tick (the most, and
// on average over the ticks with open bets) and API calls per bet.
func BenchmarkManyPlans(b *testing.B) {
	for _, size := range []struct{ plans, bets, races int }{{8, 5, 10}, {50, 20, 10}, {50, 20, 0}} {
		name := fmt.Sprintf("%dx%d", size.plans, size.bets)
		if size.races == 0 {
			name += "-card"
		}
		b.Run(name, func(b *testing.B) {
			var r planRuns
			for b.Loop() {
				b.StopTimer()
				w := newWorld(b)
				b.StartTimer()
				r = runPlansCounted(b, w, size.plans, size.bets, size.races, true)
			}
			reads, ticks, most, _ := r.polls()
			b.ReportMetric(r.perBet, "calls/bet")
			b.ReportMetric(float64(most), "max-reads/tick")
			b.ReportMetric(float64(reads)/float64(max(ticks, 1)), "reads/tick")
		})
	}
}

// A plan's view of the account shares reads with the other plans, but
// never hands a plan a list read before its own last create, never keeps
// a read past the window, and never shares label look-ups.
func TestAccountSharesReadsNotWrites(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// The engine's clock against a service steps when the first Date header
// arrives, back as well as forward: a read sent a moment "after" now on
// the stepped clock still serves the next plan that asks (it did not: the
// plans of a run each read the races once more, in CI one run in five).
func TestSharedReadServesAcrossAClockStep(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	clock := sim.NewManualClock(w.clock.Now())
	account := engine.NewAccount(w.client(), clock, 2*time.Second)
	first, second := account.Plan(), account.Plan()
	_, err := first.ListRaces(context.Background())
	require.NoError(t, err)
	clock.Set(clock.Now().Add(-80 * time.Millisecond))
	_, err = second.ListRaces(context.Background())
	require.NoError(t, err)
	clock.Set(clock.Now().Add(3 * time.Second))
	_, err = second.ListRaces(context.Background())
	require.NoError(t, err)
	races := 0
	for _, r := range w.svc.Requests() {
		if strings.Contains(r.Path, "/competition/namecodes/") {
			races++
		}
	}
	assert.Equal(t, 2, races, "one read for both plans, one more past the window")
}
