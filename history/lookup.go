package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/state"
)

// Journals written before outcome entries existed hold no outcomes: their
// bets are read from the service by label, once, and what was read is kept
// in an outcome cache of history's own the state keeps apart from the
// journals (state.OutcomeCache: a file of a state dir, a table of
// PostgreSQL; never a journal a run may be holding), so the next history
// reads the state alone.

// Lookup is what history asks the service: a label's notifications, and
// a notification's bet records (a session's part each).
type Lookup interface {
	NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error)
	BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error)
}

// Cache is the outcomes history read from the service, by the service of
// the bet's journal and its label, as the state keeps them: two plans on
// two services may give their bets one label.
type Cache struct {
	store state.OutcomeCache // nil: the state keeps none
	known map[cacheKey]*outcomeRecord
}

// cacheKey is an outcome's key in the cache: the service identity of its
// bet's journal ("" for an outcome kept before the cache was keyed by
// service), and its label.
type cacheKey struct{ service, label string }

// outcome is the outcome kept for bet: its service's, else one kept
// before the cache was keyed by service.
func (c *Cache) outcome(bet *Bet) *outcomeRecord {
	if o := c.known[cacheKey{bet.Service, bet.Label}]; o != nil {
		return o
	}
	return c.known[cacheKey{"", bet.Label}]
}

// cachedOutcome is a bet's outcome as the cache keeps it. SessionsRead
// says its sessions were read from the bet records: an outcome an
// earlier betplan kept without them is read again, once.
type cachedOutcome struct {
	outcomeRecord
	SessionsRead bool `json:"sessions_read"`
}

// OpenCache reads the outcomes store keeps (nil: none); one that does not
// read is read again from the service.
func OpenCache(ctx context.Context, store state.OutcomeCache) (*Cache, error) {
	c := &Cache{store: store, known: map[cacheKey]*outcomeRecord{}}
	if store == nil {
		return c, nil
	}
	err := store.ReadOutcomes(ctx, func(service, label string, b []byte) error {
		var o cachedOutcome
		if json.Unmarshal(b, &o) == nil && o.SessionsRead {
			c.known[cacheKey{service, label}] = &o.outcomeRecord
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the outcome cache: %w", err)
	}
	return c, nil
}

// Unresolved are the bets with no outcome whose meeting day is over a day
// before today: a run should have seen them end, and did not keep it.
func Unresolved(bets []Bet, today string) []int {
	cut := ""
	if d, err := time.Parse("2006-01-02", today); err == nil {
		cut = d.AddDate(0, 0, -1).Format("2006-01-02")
	}
	var out []int
	for i := range bets {
		if !bets[i].Final && bets[i].Day != "" && bets[i].Day < cut {
			out = append(out, i)
		}
	}
	return out
}

// Complete fills in the outcomes of bets[idx] from the cache, then from
// svc (nil: none to ask), saying on progress how many it reads, and keeps
// what it read in the cache (a cache it cannot write is a warning on
// progress, see keep). It returns the labels still without an
// outcome because the service could not be asked or did not answer. An
// outcome kept or read with amounts that are not money is a corrupt
// record: counted in corrupt, and its bet left out of every sum.
func Complete(ctx context.Context, bets []Bet, idx []int, svc Lookup, cache *Cache, progress io.Writer, corrupt *Corruption) (missing []string, err error) {
	var ask []int
	for _, i := range idx {
		if o := cache.outcome(&bets[i]); o != nil {
			if err := applyOutcome(&bets[i], o, ""); err != nil {
				bets[i].corrupt = true
				corrupt.add(Corrupt{Where: cache.where(), Label: bets[i].Label, Reason: err.Error()})
			}
			continue
		}
		ask = append(ask, i)
	}
	if len(ask) == 0 {
		return nil, nil
	}
	if svc == nil {
		for _, i := range ask {
			missing = append(missing, bets[i].Label)
		}
		return missing, nil
	}
	fmt.Fprintf(progress, "reading %d bets the journals kept no outcome of from the service, by label (once: kept in %s)\n", len(ask), cache.where())
	var read []state.KeptOutcome
	for n, i := range ask {
		if n > 0 && n%100 == 0 {
			fmt.Fprintf(progress, "  %d of %d\n", n, len(ask))
		}
		o, err := lookUp(ctx, svc, bets[i].Label)
		var bad *corruptAnswer
		if errors.As(err, &bad) {
			bets[i].corrupt = true
			corrupt.add(Corrupt{Where: "the service's " + bad.what, Label: bets[i].Label, Reason: bad.why})
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, j := range ask[n:] {
				missing = append(missing, bets[j].Label)
			}
			cache.keep(ctx, read, progress)
			return missing, err
		}
		if o == nil {
			continue // not ended yet: asked again next time
		}
		if err := applyOutcome(&bets[i], o, ""); err != nil {
			return nil, err // read from amounts apiclient found to be money
		}
		b, err := json.Marshal(cachedOutcome{*o, true})
		if err != nil {
			return nil, err
		}
		read = append(read, state.KeptOutcome{Service: bets[i].Service, Label: bets[i].Label, Outcome: b})
	}
	cache.keep(ctx, read, progress)
	return nil, nil
}

// corruptAnswer is an answer of the service with amounts that are not
// money (apiclient's CorruptAmounts): what it was, and why.
type corruptAnswer struct{ what, why string }

func (e *corruptAnswer) Error() string { return e.what + ": " + e.why }

// lookUp reads how the bet labelled label ended from the service: its
// notification, and the bet records of the sessions that had it, as the
// run that saw it end would have kept them. Nil while it has not ended;
// a *corruptAnswer when an amount of them is not money.
func lookUp(ctx context.Context, svc Lookup, label string) (*outcomeRecord, error) {
	ns, err := svc.NotificationsByLabel(ctx, label)
	if err != nil {
		return nil, fmt.Errorf("read bet %s from the service: %w", label, err)
	}
	for i := range ns {
		if why := ns[i].CorruptAmounts(); why != "" {
			return nil, &corruptAnswer{what: fmt.Sprintf("notification %d", ns[i].ID), why: why}
		}
	}
	o := notificationOutcome(ns)
	if o == nil {
		return nil, nil
	}
	recs, err := svc.BetsByNotification(ctx, int64(ns[0].ID))
	if err != nil {
		return nil, fmt.Errorf("read the bet records of %s from the service: %w", label, err)
	}
	o.Sessions = make([]engine.SessionOutcome, 0, len(recs))
	for _, r := range recs {
		if why := r.CorruptAmounts(); why != "" {
			return nil, &corruptAnswer{what: fmt.Sprintf("bet record %d", r.ID), why: why}
		}
		name := r.DisplayName
		if strings.TrimSpace(name) == "" {
			name = string(r.Bookie)
		}
		o.Sessions = append(o.Sessions, engine.SessionOutcome{Session: name, Accepted: Dollars(r.Amount.Cents()),
			Odds: float64(r.CurrentOdds), Profit: Dollars(r.Profit.Cents())})
	}
	return o, nil
}

// notificationOutcome is how a label's notification ended, or nil while it
// has not.
func notificationOutcome(ns []apiclient.Notification) *outcomeRecord {
	if len(ns) != 1 {
		return nil
	}
	n := &ns[0]
	o := &outcomeRecord{Accepted: Dollars(n.TotalAccepted.Cents()), Profit: Dollars(n.Profit.Cents()),
		Market: n.Tip.Market, Type: n.Type, ResultTime: n.Tip.ResultTime.Time}
	switch {
	case n.TotalAccepted > 0 && n.Resulted():
		o.Odds = float64(n.AverageOdds)
		switch {
		case o.Profit > 0:
			o.Result = "won"
		case o.Profit < 0:
			o.Result = "lost"
		default:
			o.Result = "void"
		}
	case n.TotalAccepted == 0 && (bool(n.IsCanceled) || n.Resulted()):
		o.Result = "not_placed"
	default:
		return nil
	}
	if o.ResultTime.IsZero() {
		o.ResultTime = n.CreatedAt.Time
	}
	return o
}

func (c *Cache) where() string {
	if c.store == nil {
		return "no cache: this state keeps none"
	}
	return fmt.Sprintf("the outcome cache of %s", c.store)
}

// keep adds the outcomes read to the cache. The totals already hold them,
// so a cache that cannot be written (a read-only state dir, a database
// user that may only read) costs the next history the same reads again,
// nothing more: it is said on progress, not returned as a failure.
func (c *Cache) keep(ctx context.Context, outcomes []state.KeptOutcome, progress io.Writer) {
	if c.store == nil || len(outcomes) == 0 {
		return
	}
	if err := c.store.KeepOutcomes(ctx, outcomes); err != nil {
		fmt.Fprintf(progress, "warning: the %d outcome(s) read from the service were not kept in the outcome cache, so the next history reads them again: %v\n", len(outcomes), err)
	}
}
