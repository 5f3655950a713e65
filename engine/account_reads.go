package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/follow"
)

// Account is what the plans of one run share on one account of the
// service: one set of reads. Races, sessions, events and the pages of the
// notification and bet lists that several plans ask for within a short
// window of the engine's clock are read once and handed to each. Writes
// (creates, cancels) and the look-ups that follow a create (a label, a
// notification's bets) always go to the service.
//
// A plan never sees a list read before its own last write: its own bets
// are in every page it is given. Another plan's writes do not matter to
// it: they carry that plan's labels, not its own.
type Account struct {
	backend Backend
	clock   Clock
	window  time.Duration

	mu      sync.Mutex
	plans   int   // views handed out: the plans sharing the reads
	writes  int64 // writes completed by every plan, in order
	entries map[string]*accountRead
	epoch   time.Time     // the first tick of the account's plans (tickAt)
	step    time.Duration // the smallest poll interval of its plans (joinGrid)
}

// joinGrid notes that a plan of the account polls every interval: the
// smallest interval of the run's plans is the step of their common grid.
func (a *Account) joinGrid(interval time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.step == 0 || interval < a.step {
		a.step = interval
	}
}

// tickAt is the next tick of a plan of the account that ticks every
// interval and last ticked at last: the latest point no later than
// last+interval of the account's grid (the first plan's first tick, plus
// whole steps of the smallest interval of the run's plans). The plans of a
// run then tick together and read each page of the notification list
// once for all, never more often than the smallest interval, whatever the
// time their starts took; a plan's first interval is shortened to meet
// the grid, and a slower plan's ticks fall on the faster one's (so it
// polls at the smallest interval).
func (a *Account) tickAt(last time.Time, interval time.Duration) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.epoch.IsZero() || last.Before(a.epoch) {
		a.epoch = last
	}
	step := interval
	if a.step > 0 && a.step < step {
		step = a.step
	}
	next := last.Add(interval)
	return next.Add(-next.Sub(a.epoch) % step)
}

// accountRead is one read of the service, done or in flight.
type accountRead struct {
	at     time.Time // when it was sent, on the engine's clock
	writes int64     // the writes completed when it was sent
	done   chan struct{}
	value  any
	err    error
	// listPage is the page number of a read of the notification list, 0
	// for any other read: another plan adopts it (listPagesSince).
	listPage int
}

// DefaultShareWindow is how long a read serves the plans that ask for the
// same thing after it: a tick's worth of plans asking together.
const DefaultShareWindow = 2 * time.Second

// NewAccount shares backend's reads among the plans given Plan's views;
// window <= 0 is DefaultShareWindow. clock nil is the wall clock.
func NewAccount(backend Backend, clock Clock, window time.Duration) *Account {
	if clock == nil {
		clock = RealClock()
	}
	if window <= 0 {
		window = DefaultShareWindow
	}
	return &Account{backend: backend, clock: clock, window: window, entries: map[string]*accountRead{}}
}

// Plan is the Backend one plan's run uses: its own view of the shared
// reads.
func (a *Account) Plan() Backend { return a.PlanTelling(nil) }

// PlanTelling is Plan whose own calls (its creates, cancels and look-ups,
// not the reads it shares) tell onRetry of every attempt the client
// repeats, so a log says which plan a slow call is about. The shared
// reads tell the client's own OnRetry: they are the account's.
func (a *Account) PlanTelling(onRetry func(apiclient.Retry)) Backend {
	a.mu.Lock()
	a.plans++
	a.mu.Unlock()
	return &accountPlan{account: a, onRetry: onRetry}
}

// sharedBy is how many plans share the reads of svc: a page of the bet
// history one plan reads at the end of its run serves the others that end
// with it, so it is worth more pages than one plan's own records.
func sharedBy(svc Backend) int {
	if p, ok := svc.(*accountPlan); ok {
		p.account.mu.Lock()
		defer p.account.mu.Unlock()
		return max(1, p.account.plans)
	}
	return 1
}

// accountPlan is one plan's view: it remembers its own last write.
type accountPlan struct {
	account *Account
	onRetry func(apiclient.Retry) // told of the retries of this plan's own calls; nil: the client's
	mu      sync.Mutex
	wrote   int64 // the account's write count just after this plan's last write
}

// ServesSimulation passes on what the shared backend says of the service
// (apiclient.Client.ServesSimulation): a plan of several run against a
// betplan sim files its reports as a rehearsal's, as one plan alone does.
func (p *accountPlan) ServesSimulation() bool {
	s, ok := p.account.backend.(interface{ ServesSimulation() bool })
	return ok && s.ServesSimulation()
}

func (p *accountPlan) since() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wrote
}

// written notes a write of this plan, whatever its outcome: an ambiguous
// create may have landed.
func (p *accountPlan) written() {
	a := p.account
	a.mu.Lock()
	a.writes++
	n := a.writes
	a.mu.Unlock()
	p.mu.Lock()
	p.wrote = n
	p.mu.Unlock()
}

// read returns what key's read gave, sharing one sent within the window
// after this plan's last write (or still in flight), else sending it.
func (p *accountPlan) read(ctx context.Context, key string, fetch func() (any, error)) (any, error) {
	return p.readPage(ctx, key, 0, fetch)
}

// readPage is read of page listPage of the notification list (0: another
// read). A poll's read (readSince) takes no read sent before its tick.
func (p *accountPlan) readPage(ctx context.Context, key string, listPage int, fetch func() (any, error)) (any, error) {
	a := p.account
	since := p.since()
	now := a.clock.Now()
	notBefore := follow.Since(ctx)
	a.mu.Lock()
	e := a.entries[key]
	fresh := e != nil && e.writes >= since && age(now, e.at) < a.window && !e.at.Before(notBefore)
	if fresh {
		select {
		case <-e.done:
			if e.err != nil {
				fresh = false // an error is not shared after the fact
			}
		default:
		}
	}
	if !fresh {
		e = &accountRead{at: now, writes: a.writes, done: make(chan struct{}), listPage: listPage}
		a.entries[key] = e
		a.mu.Unlock()
		e.value, e.err = fetch()
		close(e.done)
		return e.value, e.err
	}
	a.mu.Unlock()
	select {
	case <-e.done:
		return e.value, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func shared[T any](p *accountPlan, ctx context.Context, key string, fetch func() (T, error)) (T, error) {
	v, err := p.read(ctx, key, func() (any, error) { return fetch() })
	if err != nil {
		var zero T
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		var zero T
		return zero, errors.New("shared read " + key + ": unexpected value")
	}
	return t, nil
}

// Each plan gets its own copy of a shared list, so sorting or trimming
// it never reaches another plan.
func copyPage[T any](pg *apiclient.Page[T]) *apiclient.Page[T] {
	if pg == nil {
		return nil
	}
	c := *pg
	c.Results = append([]T(nil), pg.Results...)
	return &c
}

func (p *accountPlan) ListRaces(ctx context.Context) ([]apiclient.Race, error) {
	v, err := shared(p, ctx, "races", func() ([]apiclient.Race, error) { return p.account.backend.ListRaces(ctx) })
	return append([]apiclient.Race(nil), v...), err
}

func (p *accountPlan) ListEvents(ctx context.Context) ([]apiclient.Event, error) {
	v, err := shared(p, ctx, "events", func() ([]apiclient.Event, error) { return p.account.backend.ListEvents(ctx) })
	return append([]apiclient.Event(nil), v...), err
}

func (p *accountPlan) ListSessions(ctx context.Context) ([]apiclient.Session, error) {
	v, err := shared(p, ctx, "sessions", func() ([]apiclient.Session, error) { return p.account.backend.ListSessions(ctx) })
	return append([]apiclient.Session(nil), v...), err
}

func (p *accountPlan) ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	if opts.Label != "" {
		return p.account.backend.ListNotifications(p.own(ctx), opts)
	}
	key := fmt.Sprintf("notifications page=%d size=%d", opts.Page, opts.PageSize)
	page := 0
	if opts.PageSize == listPageSize {
		page = max(opts.Page, 1)
	}
	v, err := p.readPage(ctx, key, page, func() (any, error) {
		return p.account.backend.ListNotifications(ctx, opts)
	})
	if err != nil {
		return nil, err
	}
	pg, ok := v.(*apiclient.Page[apiclient.Notification])
	if !ok {
		return nil, errors.New("shared read " + key + ": unexpected value")
	}
	return copyPage(pg), nil
}

// listPagesSince are the latest reads of the notification list's pages,
// by any plan of the run, sent after since and after this plan's last
// write (so they show every bet it created), oldest first: a page read
// for one plan polls every other plan's bets it shows.
func (p *accountPlan) listPagesSince(since time.Time) []follow.SharedPage {
	a := p.account
	wrote := p.since()
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []follow.SharedPage
	for _, e := range a.entries {
		if e.listPage == 0 || e.writes < wrote || !e.at.After(since) {
			continue
		}
		select {
		case <-e.done:
		default:
			continue // still in flight: the plan that sent it applies it
		}
		pg, ok := e.value.(*apiclient.Page[apiclient.Notification])
		if e.err != nil || !ok || pg == nil {
			continue
		}
		out = append(out, follow.SharedPage{N: e.listPage, At: e.at, Page: copyPage(pg)})
	}
	slices.SortFunc(out, func(x, y follow.SharedPage) int { return cmp.Or(x.At.Compare(y.At), cmp.Compare(x.N, y.N)) })
	return out
}

func (p *accountPlan) ListBets(ctx context.Context, opts apiclient.ListBetsOptions) (*apiclient.Page[apiclient.BetRecord], error) {
	key := fmt.Sprintf("bets page=%d size=%d", opts.Page, opts.PageSize)
	v, err := shared(p, ctx, key, func() (*apiclient.Page[apiclient.BetRecord], error) {
		return p.account.backend.ListBets(ctx, opts)
	})
	return copyPage(v), err
}

// own is ctx for a call of this plan's own, telling its retries to the
// plan's hook.
func (p *accountPlan) own(ctx context.Context) context.Context {
	return apiclient.WithRetryHook(ctx, p.onRetry)
}

func (p *accountPlan) GetEvent(ctx context.Context, id string) (*apiclient.Event, error) {
	ctx = p.own(ctx)
	return p.account.backend.GetEvent(ctx, id)
}

func (p *accountPlan) NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error) {
	ctx = p.own(ctx)
	return p.account.backend.NotificationsByLabel(ctx, label)
}

func (p *accountPlan) BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error) {
	ctx = p.own(ctx)
	return p.account.backend.BetsByNotification(ctx, id)
}

func (p *accountPlan) NotificationDetail(ctx context.Context, id int64) (*apiclient.NotificationDetail, error) {
	ctx = p.own(ctx)
	return p.account.backend.NotificationDetail(ctx, id)
}

func (p *accountPlan) BotLogBody(ctx context.Context, id int64) ([]byte, int, error) {
	ctx = p.own(ctx)
	return p.account.backend.BotLogBody(ctx, id)
}

func (p *accountPlan) CreateNotification(ctx context.Context, req *apiclient.CreateNotificationRequest) (*apiclient.CreateResult, error) {
	ctx = p.own(ctx)
	defer p.written()
	return p.account.backend.CreateNotification(ctx, req)
}

func (p *accountPlan) CancelNotification(ctx context.Context, id int64) error {
	ctx = p.own(ctx)
	defer p.written()
	return p.account.backend.CancelNotification(ctx, id)
}

// PublishTips and SendPrealert pass a tipster plan's calls through.
func (p *accountPlan) PublishTips(ctx context.Context, apikey string, tips []apiclient.PublishTip) (*apiclient.TipsterAnswer, error) {
	ctx = p.own(ctx)
	tb, ok := p.account.backend.(TipsterBackend)
	if !ok {
		return nil, errors.New("the service client cannot publish tips")
	}
	return tb.PublishTips(ctx, apikey, tips)
}

func (p *accountPlan) SendPrealert(ctx context.Context, apikey string) (*apiclient.TipsterAnswer, error) {
	ctx = p.own(ctx)
	tb, ok := p.account.backend.(TipsterBackend)
	if !ok {
		return nil, errors.New("the service client cannot send a pre-alert")
	}
	return tb.SendPrealert(ctx, apikey)
}

// listPageSize is the page size of every list read; maxScanPages bounds
// one read of a list from its head.
const (
	listPageSize = follow.PageSize
	maxScanPages = follow.MaxScanPages
)

// age is how far apart a read sent at at and now are, either way: the
// engine's clock against a service steps once its first Date header
// arrives (service_clock.go), so a read sent just before may stand a
// moment after now, and is as fresh as one a moment before.
func age(now, at time.Time) time.Duration {
	if d := now.Sub(at); d >= 0 {
		return d
	}
	return at.Sub(now)
}
