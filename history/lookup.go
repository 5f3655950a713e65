package history

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// Journals written before outcome entries existed hold no outcomes: their
// bets are read from the service by label, once, and what was read is kept
// in an outcome cache of history's own beside the journals (never in a
// journal a run may be holding), so the next history reads the state
// alone.

// Lookup is what history asks the service: a label's notifications.
type Lookup interface {
	NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error)
}

// CacheName is the outcome cache's file in the state dir.
const CacheName = "history-outcomes.jsonl"

// Cache is the outcomes history read from the service, by label.
type Cache struct {
	path  string
	known map[string]*outcomeRecord
}

type cacheLine struct {
	Label   string         `json:"label"`
	Outcome *outcomeRecord `json:"outcome"`
}

// OpenCache reads the cache kept at path ("" keeps none); a line that does
// not read is read again from the service.
func OpenCache(path string) (*Cache, error) {
	c := &Cache{path: path, known: map[string]*outcomeRecord{}}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the outcome cache: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l cacheLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Label != "" && l.Outcome != nil {
			c.known[l.Label] = l.Outcome
		}
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
// what it read in the cache. It returns the labels still without an
// outcome because the service could not be asked or did not answer.
func Complete(ctx context.Context, bets []Bet, idx []int, svc Lookup, cache *Cache, progress io.Writer) (missing []string, err error) {
	var ask []int
	for _, i := range idx {
		if o := cache.known[bets[i].Label]; o != nil {
			applyOutcome(&bets[i], o, "")
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
	var read []cacheLine
	for n, i := range ask {
		if n > 0 && n%100 == 0 {
			fmt.Fprintf(progress, "  %d of %d\n", n, len(ask))
		}
		ns, err := svc.NotificationsByLabel(ctx, bets[i].Label)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for _, j := range ask[n:] {
				missing = append(missing, bets[j].Label)
			}
			err = fmt.Errorf("read bet %s from the service: %w", bets[i].Label, err)
			return missing, errors.Join(err, cache.add(read))
		}
		o := notificationOutcome(ns)
		if o == nil {
			continue // not ended yet: asked again next time
		}
		applyOutcome(&bets[i], o, "")
		read = append(read, cacheLine{bets[i].Label, o})
	}
	return nil, cache.add(read)
}

// notificationOutcome is how a label's notification ended, or nil while it
// has not.
func notificationOutcome(ns []apiclient.Notification) *outcomeRecord {
	if len(ns) != 1 {
		return nil
	}
	n := &ns[0]
	o := &outcomeRecord{Accepted: Dollars(Cents(float64(n.TotalAccepted))), Profit: Dollars(Cents(float64(n.Profit))),
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
	if c.path == "" {
		return "no cache: this state keeps none"
	}
	return c.path
}

// add appends lines to the cache file.
func (c *Cache) add(lines []cacheLine) error {
	if c.path == "" || len(lines) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			return err
		}
		b.Write(append(j, '\n'))
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("keep the outcome cache: %w", err)
	}
	return f.Close()
}
