package history

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"strings"

	"github.com/betplan/betplan/apiclient"
)

// BetLister reads the service's bet records, newest first (GET /bet/).
type BetLister interface {
	Bets(ctx context.Context, opts apiclient.ListBetsOptions) iter.Seq2[*apiclient.BetRecord, error]
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

// serviceBet is one label's records as the service shows them.
type serviceBet struct {
	profit, accepted int64
	settled          bool
	day              string
}

// Reconcile reads the service's bet records newest first, until they are
// older than since (a meeting day; "" for the oldest day of bets), and
// lists every difference with bets: a bet settled differently, a profit
// corrected after the fact, a bet the service shows that no plan of the
// state made, and a settled bet of the window the service shows nothing
// of. Records sum by label, as the sessions' own profits.
func Reconcile(ctx context.Context, bets []Bet, svc BetLister, since string) ([]Difference, error) {
	if since == "" {
		for i := range bets {
			if d := bets[i].Day; d != "" && (since == "" || d < since) {
				since = d
			}
		}
	}
	seen := map[string]*serviceBet{}
	var order []string
	for r, err := range svc.Bets(ctx, apiclient.ListBetsOptions{PageSize: 100}) {
		if err != nil {
			return nil, fmt.Errorf("read the service's bet records: %w", err)
		}
		day := r.MeetingDate
		if day == "" && !r.CreatedAt.IsZero() {
			day = r.CreatedAt.Format("2006-01-02")
		}
		if since != "" && day != "" && day < since {
			break
		}
		key := r.Label
		if key == "" {
			key = "notification " + string(r.Notification)
		}
		b := seen[key]
		if b == nil {
			b = &serviceBet{settled: true, day: day}
			seen[key] = b
			order = append(order, key)
		}
		b.profit += r.Profit.Cents()
		b.accepted += r.Amount.Cents()
		if r.Accepted() && !strings.EqualFold(r.Status, "SETTLED") && !strings.EqualFold(r.Status, "VOID") {
			b.settled = false
		}
	}
	byLabel := map[string]*Bet{}
	for i := range bets {
		byLabel[bets[i].Label] = &bets[i]
	}
	var out []Difference
	for _, key := range order {
		s := seen[key]
		b := byLabel[key]
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
			mine = 0
			for _, x := range b.Sessions {
				mine += x.Profit
			}
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
	return out, nil
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
