package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/plan"
)

// RunGroup is the plans of one run that share an account file and a
// state: before any of them creates, the bets certain to be created by
// all of them (a named race, no when, a static amount) are held to the
// account's limits together, as one plan's are (certainAccountRefusal).
// Each plan's run arrives with its certain bets once its own limits
// passed them; when every plan has arrived (or ended before), the limits
// are checked over them all, with what the account's plans committed
// before, and every plan with certain bets learns the answer.
type RunGroup struct {
	mu      sync.Mutex
	waiting map[string]bool // plans not arrived yet
	members []*groupMember  // plans arrived with certain bets
	done    chan struct{}
	refusal string
}

// groupMember is one plan's part: its certain bets, what it committed
// and what it read of the account's other plans.
type groupMember struct {
	plan    string
	money   *money
	certain []*instance
	own     []book.Bet
	others  []book.Bet
}

// NewRunGroup is the group of the plans named; nil for fewer than two.
func NewRunGroup(plans []string) *RunGroup {
	if len(plans) < 2 {
		return nil
	}
	g := &RunGroup{waiting: map[string]bool{}, done: make(chan struct{})}
	for _, p := range plans {
		g.waiting[p] = true
	}
	return g
}

// leave says plan will arrive no more (its start ended, or it refused
// on its own): the others do not wait for it.
func (g *RunGroup) leave(plan string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.arrivedLocked(plan)
}

// arrivedLocked takes plan off the waiting list; the last one to arrive
// decides. g.mu is held.
func (g *RunGroup) arrivedLocked(plan string) {
	if !g.waiting[plan] {
		return
	}
	delete(g.waiting, plan)
	if len(g.waiting) == 0 {
		g.refusal = g.decide()
		close(g.done)
	}
}

// join brings plan's certain bets to the group and waits for the other
// plans; it says why the group's certain bets break an account limit
// together, and which of this plan's bets are refused. m is the plan's
// money: its account limits, its stakes and what it read of the
// account's other plans.
func (g *RunGroup) join(ctx context.Context, plan string, m *money, certain []*instance) (string, []*instance, error) {
	if g == nil || m.accountLimits() == nil {
		return "", nil, nil
	}
	g.mu.Lock()
	if len(certain) > 0 && g.waiting[plan] {
		g.members = append(g.members, &groupMember{plan: plan, money: m, certain: certain, own: m.counted(), others: m.accountOthers})
	}
	g.arrivedLocked(plan)
	g.mu.Unlock()
	// The wait is not a sleep on the engine's clock: nothing before
	// this point of a run sleeps on it with a fresh journal (a rehearsal's
	// always is), so no plan's clock waits for one held here.
	select {
	case <-g.done:
	case <-ctx.Done():
		return "", nil, ctx.Err()
	}
	if g.refusal == "" || len(certain) == 0 {
		return "", nil, nil
	}
	return g.refusal, certain, nil
}

// decide checks the members' certain bets, by race start, each counting
// the ones before it, with what the account's plans committed: the
// members' own stakes, and the other plans' as the members read them.
func (g *RunGroup) decide() string {
	if len(g.members) < 2 {
		return "" // one plan's certain bets were checked by its own run
	}
	sort.Slice(g.members, func(i, j int) bool { return g.members[i].plan < g.members[j].plan })
	l := g.members[0].money.accountLimits()
	inRun := map[string]bool{}
	for _, m := range g.members {
		inRun[m.plan] = true
	}
	var committed []book.Bet
	outside := map[string]book.Bet{}
	type bet struct {
		m  *groupMember
		in *instance
	}
	var bets []bet
	for _, m := range g.members {
		committed = append(committed, m.own...)
		for _, o := range m.others {
			if !inRun[o.Plan()] {
				outside[o.Plan()+"\x00"+o.Label()] = o
			}
		}
		for _, in := range m.certain {
			bets = append(bets, bet{m, in})
		}
	}
	keys := make([]string, 0, len(outside))
	for k := range outside {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		committed = append(committed, outside[k])
	}
	sort.SliceStable(bets, func(i, j int) bool { return bets[i].in.info.Start.Before(bets[j].in.info.Start) })
	var before []book.Bet
	for _, b := range bets {
		risk := b.m.money.exposure(b.in)
		u, who := accountUsageOf(*l, b.in.info, append(committed[:len(committed):len(committed)], before...), "")
		if reason := limitRefusal(*l, risk, b.in.info, u, who+" and the certain bets before it").Text; reason != "" {
			var parts []string
			for _, m := range g.members {
				ids := make([]string, len(m.certain))
				for i, in := range m.certain {
					ids[i] = in.bet.ID
				}
				parts = append(parts, m.plan+": "+plan.CutList(ids, idsShown))
			}
			return fmt.Sprintf("the bets certain to be created by the plans of this run (%s; each a named race, no when, a static amount) break an account limit together, with what the account's plans committed before: at %s's bet %s, account %s",
				strings.Join(parts, "; "), b.m.plan, b.in.bet.ID, reason)
		}
		before = append(before, b.m.money.asCreated(b.in, risk))
	}
	return ""
}
