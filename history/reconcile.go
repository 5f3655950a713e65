package history

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/engine/book"
)

// BetWalker reads the service's bet records a page at a time (GET /bet/):
// each record to record as it is read, each page once its records have
// gone (apiclient.Client.EachBet).
type BetWalker interface {
	EachBet(ctx context.Context, record func(*apiclient.BetRecord) error) iter.Seq2[apiclient.BetsPage, error]
}

// Difference is one way the journals and the service's bet records
// disagree (--reconcile).
type Difference struct {
	Label string `json:"label"`
	Plan  string `json:"plan,omitempty"`
	// Kind is "unknown" (a bet the service shows that no plan made),
	// "settled_differently", "profit_corrected" or "not_on_service".
	Kind  string `json:"kind"`
	Words string `json:"words"`
}

// ReconcileLimits bound what --reconcile reads of a service, whatever it
// sends: a service that answers page after page, or records with labels
// of megabytes, ends the read with a ReconcileLimitError instead of
// taking the machine's memory. Records are counted as they are read,
// bytes as the pages' bodies.
type ReconcileLimits struct {
	Records int   // --reconcile-max-records
	Bytes   int64 // --reconcile-max-mb, in bytes
	Pages   int   // --reconcile-max-pages
}

// DefaultReconcileLimits are the flags' defaults: a year and more of
// records for a busy account (three sessions on a hundred bets a day),
// on pages of 100, or of 10 for a service that sends fewer.
var DefaultReconcileLimits = ReconcileLimits{Records: 100_000, Bytes: 256 << 20, Pages: 10_000}

// ReconcileLimitError is --reconcile ended at one of its limits, with the
// service still sending.
type ReconcileLimitError struct {
	What string // "100000 bet records"
	Flag string // the flag that raises the limit
}

func (e *ReconcileLimitError) Error() string {
	return fmt.Sprintf("read %s and the service has more: that is the most it reads (%s raises it)", e.What, e.Flag)
}

// How a reconcile's read of the service ended (ServiceRead.Ended).
const (
	EndedLastPage  = "last_page"  // the service's list ended
	EndedOlderPage = "older_page" // a whole page was older than Since
)

// ServiceRead is what --reconcile read of the service's bet records.
type ServiceRead struct {
	// Since is the meeting day it read back to ("" for every record).
	Since string `json:"since"`
	// Records and Pages were read; Bytes are the pages' bodies.
	Records int   `json:"records"`
	Pages   int   `json:"pages"`
	Bytes   int64 `json:"bytes"`
	// LeftOut are records of the window whose label is not betplan's (a
	// bet made by hand or another tool, no label, a label too long):
	// counted, not kept.
	LeftOut int `json:"left_out"`
	// Ended says why it stopped: EndedLastPage or EndedOlderPage.
	Ended string `json:"ended"`
}

// words say what the read took in and why it stopped, in a line.
func (r *ServiceRead) words() string {
	back := "every bet record"
	if r.Since != "" {
		back = "back to " + r.Since
	}
	s := fmt.Sprintf("reconcile read %s: %d bet records on %d pages", back, r.Records, r.Pages)
	switch r.Ended {
	case EndedOlderPage:
		s += fmt.Sprintf(", up to page %d, the first wholly before %s", r.Pages, r.Since)
	default:
		s += ", to the service's last page"
	}
	if r.LeftOut > 0 {
		s += fmt.Sprintf("; %d of them not labelled by betplan, left out", r.LeftOut)
	}
	return s
}

// serviceBet is one label's records as the service shows them.
type serviceBet struct {
	profit, accepted book.Total
	settled          bool
	ids              []int64 // records summed, so a record a shifting list shows twice counts once
}

// Reconcile reads the service's bet records, page by page, back to since
// (a meeting day; "" for the oldest day of bets), and lists every
// difference with bets: a bet settled differently, a profit corrected
// after the fact, a bet the service shows that no plan of the state made,
// and a settled bet of the window the service shows nothing of. Records
// sum by label, as the sessions' own profits.
//
// The pages need not come newest first: a record older than since is
// passed over, and the read stops only after a page wholly older, or at
// the service's last page (read.Ended says which), or at a limit, with a
// ReconcileLimitError. Of a record it keeps only what a bet's label of
// betplan's form needs (engine.IsLabel, or a label of bets); the rest are
// counted in read.LeftOut and dropped as they are read.
func Reconcile(ctx context.Context, bets []Bet, svc BetWalker, since string, limits ReconcileLimits) ([]Difference, ServiceRead, error) {
	if since == "" {
		for i := range bets {
			if d := bets[i].Day; d != "" && (since == "" || d < since) {
				since = d
			}
		}
	}
	read := ServiceRead{Since: since, Ended: EndedLastPage}
	byLabel := map[string]*Bet{}
	for i := range bets {
		byLabel[bets[i].Label] = &bets[i]
	}
	seen := map[string]*serviceBet{}
	inWindow := 0 // records of this page in the window
	record := func(r *apiclient.BetRecord) error {
		if read.Records == limits.Records {
			return &ReconcileLimitError{What: fmt.Sprintf("%d bet records", read.Records), Flag: "--reconcile-max-records"}
		}
		read.Records++
		day := r.MeetingDate
		if day == "" && !r.CreatedAt.IsZero() {
			day = r.CreatedAt.Format("2006-01-02")
		}
		if since != "" && day != "" && day < since {
			return nil
		}
		inWindow++
		b := seen[r.Label]
		if b == nil {
			key := r.Label
			if mine := byLabel[key]; mine != nil {
				key = mine.Label // the state's own copy: nothing of the record is kept
			} else if engine.IsLabel(key) {
				key = strings.Clone(key)
			} else {
				read.LeftOut++
				return nil
			}
			b = &serviceBet{settled: true}
			seen[key] = b
		}
		if id := int64(r.ID); id != 0 {
			if slices.Contains(b.ids, id) {
				return nil
			}
			b.ids = append(b.ids, id)
		}
		b.profit.AddCents(r.Profit.Cents())
		b.accepted.AddCents(r.Amount.Cents())
		if r.Accepted() && !strings.EqualFold(r.Status, "SETTLED") && !strings.EqualFold(r.Status, "VOID") {
			b.settled = false
		}
		return nil
	}
	for page, err := range svc.EachBet(ctx, record) {
		if err != nil {
			var limit *ReconcileLimitError
			if errors.As(err, &limit) {
				return nil, read, err
			}
			return nil, read, fmt.Errorf("read the service's bet records: %w", err)
		}
		read.Pages++
		read.Bytes += int64(page.Bytes)
		switch {
		case read.Pages > limits.Pages:
			return nil, read, &ReconcileLimitError{What: fmt.Sprintf("%d pages of bet records", limits.Pages), Flag: "--reconcile-max-pages"}
		case read.Bytes > limits.Bytes:
			return nil, read, &ReconcileLimitError{What: fmt.Sprintf("%d MB of bet records", limits.Bytes>>20), Flag: "--reconcile-max-mb"}
		}
		if page.Records > 0 && inWindow == 0 {
			read.Ended = EndedOlderPage
			break
		}
		inWindow = 0
	}

	var out []Difference
	for key, sb := range seen {
		b := byLabel[key]
		s := struct {
			profit, accepted int64
			settled          bool
		}{sb.profit.Cents(), sb.accepted.Cents(), sb.settled}
		if b == nil {
			out = append(out, Difference{Label: key, Kind: "unknown",
				Words: fmt.Sprintf("the service shows a bet (%s accepted, %s) that no plan of this state made", "$"+money(Dollars(s.accepted)), signed(Dollars(s.profit)))})
			continue
		}
		if !b.Final || !s.settled || b.Result == "not_placed" && s.accepted == 0 {
			continue
		}
		mine := b.Profit
		if len(b.Sessions) > 0 {
			var sum book.Total
			for _, x := range b.Sessions {
				sum.AddCents(x.Profit)
			}
			mine = sum.Cents()
		}
		switch {
		case resultOf(mine, b.Accepted) != resultOf(s.profit, s.accepted):
			out = append(out, Difference{Label: key, Plan: b.Plan, Kind: "settled_differently",
				Words: fmt.Sprintf("the journal has it %s %s, the service %s %s", resultOf(mine, b.Accepted), signed(Dollars(mine)), resultOf(s.profit, s.accepted), signed(Dollars(s.profit)))})
		case mine != s.profit:
			out = append(out, Difference{Label: key, Plan: b.Plan, Kind: "profit_corrected",
				Words: fmt.Sprintf("the profit was corrected after the fact: the journal kept %s, the service now shows %s", signed(Dollars(mine)), signed(Dollars(s.profit)))})
		}
	}
	for i := range bets {
		b := &bets[i]
		if b.Final && b.Result != "not_placed" && b.Day != "" && b.Day >= since && seen[b.Label] == nil {
			out = append(out, Difference{Label: b.Label, Plan: b.Plan, Kind: "not_on_service",
				Words: fmt.Sprintf("the journal has it %s %s; the service's bet records show nothing of it", b.Result, signed(Dollars(b.Profit)))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out, read, nil
}

func resultOf(profit, accepted int64) string {
	switch {
	case accepted == 0:
		return "not_placed"
	case profit > 0:
		return "won"
	case profit < 0:
		return "lost"
	}
	return "void"
}
