package sim

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// advance lets the world catch up with now: bots take up due
// notifications and races get resulted, in time order (take-ups before
// resultings at the same instant, then by notification id). Only the
// events due are touched, popped from the queue in that order.
func (s *Service) advance(now time.Time) {
	s.world.ensure(now)
	for len(s.due) > 0 && !s.due[0].at.After(now) {
		e := heap.Pop(&s.due).(event)
		switch {
		case e.settle:
			// A race whose time moved leaves events at its old time.
			if !e.n.settled && (e.void || e.at.Equal(e.n.resultAt())) {
				s.settle(e.n, e.at, e.void)
			}
		case e.n.pendingTakeUp && e.n.takeUpAt.Equal(e.at):
			s.takeUp(e.n, e.at)
		}
	}
}

// fire broadcasts a notification to the bots: they act TakeUpDelay later,
// or, for the share Options.SlowBots of notifications the seed picks,
// after 85 to 95 seconds (a bot busy with another slip, a slow login).
func (s *Service) fire(n *notification, now time.Time) {
	n.TriggeredAt = now.Add(7 * time.Millisecond)
	delay := s.opts.TakeUpDelay
	if h := mix(uint64(s.opts.Seed), uint64(n.ID), 90); float64(h%10000) < s.opts.SlowBots*10000 {
		delay = 85*time.Second + time.Duration(h/10000%10001)*time.Millisecond
	}
	n.takeUpAt = now.Add(delay)
	n.pendingTakeUp = true
	n.touch()
	s.schedule(event{at: n.takeUpAt, n: n})
}

func (n *notification) targets(ss *session) bool {
	if n.TargetSession != "" {
		found := false
		for _, id := range strings.Split(n.TargetSession, ",") {
			if strings.TrimSpace(id) == strconv.Itoa(ss.ID) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return n.TargetBot == "" || n.TargetBot == ss.BotID
}

// takeUp is the bots acting on a notification: one record per running,
// targeted session, if the race (or sports event) is known and has not
// started.
func (s *Service) takeUp(n *notification, at time.Time) {
	n.pendingTakeUp = false
	n.touch()
	if n.IsCanceled || n.settled {
		return
	}
	if off, ok := n.off(); !ok || !at.Before(off) {
		return
	}
	var acting []*session
	for _, ss := range s.sessions {
		if ss.UserID != n.UserID || !ss.BotRunning || !n.targets(ss) {
			continue
		}
		if ss.LoginError != "" {
			// Its bot runs but is not logged in to the bookmaker: it
			// makes no slip, no record; its line says why.
			s.log(n, ss.BotID, ss.DisplayName+": not logged in to "+ss.Bookie+" ("+ss.LoginError+"): bet not placed", at)
			continue
		}
		acting = append(acting, ss)
	}
	var bots []string
	for i, ss := range acting {
		if !slices.Contains(bots, ss.BotID) {
			bots = append(bots, ss.BotID)
		}
		submitted := at.Add(time.Duration(i) * 850 * time.Millisecond)
		rec := &betRecord{ID: s.newID(), n: n, s: ss, CreatedAt: submitted, Status: "PENDING"}
		odds, errMsg := s.price(n)
		rec.Odds = odds
		amount := 0.0
		switch n.Type {
		case "Fixed Profit":
			if odds > 1 {
				amount = cents(n.TargetProfit / (odds - 1))
			}
		case "Fixed Wager":
			amount = n.Stake
			if n.EnsureTotalWager {
				amount = shareOf(n.Stake, len(acting), i)
			}
		default:
			amount = n.Stake
		}
		if m := ss.refusesMarket(n.Market); m != "" {
			errMsg = m // the account's bookmaker does not take the market at all
		}
		switch {
		case errMsg != "":
		case n.CheckOdds && n.Odds > 0 && odds < n.Odds:
			errMsg = fmt.Sprintf("Odds %.2f are below the minimum of %.2f.", odds, n.Odds)
		case n.CheckMaxOdds && n.MaxOdds > 0 && odds > n.MaxOdds && !s.opts.MaxOddsIgnored:
			errMsg = fmt.Sprintf("Odds %.2f are above the maximum of %.2f.", odds, n.MaxOdds)
		case amount < ss.MinBet:
			errMsg = ss.refusesStake(amount)
		case amount < 1 || mix(uint64(s.opts.Seed), uint64(n.ID), uint64(ss.ID))%100 < 3:
			errMsg = "The minimum stake is $1."
		case amount > ss.Balance:
			errMsg = "Insufficient funds in your account."
		case ss.refusesStake(amount) != "":
			// Refused, not capped: the service does not say which a bot
			// does, and a refusal is what a plan must be told of.
			errMsg = ss.refusesStake(amount)
		}
		ss.BetsToday++
		ss.UpdateTime = submitted
		if errMsg != "" {
			rec.SubmitResult, rec.SubmitError, rec.Status = "Error", errMsg, "FAILED"
			ss.FailedToday++
			s.log(n, ss.BotID, ss.DisplayName+": bet failed: "+errMsg, submitted)
		} else {
			rec.Amount = amount
			rec.SubmitResult, rec.SubmitError = "Success", "Bet has been placed."
			rec.TxID = strconv.FormatUint(mix(uint64(s.opts.Seed), uint64(rec.ID))%1e10, 10)
			ss.Balance = cents(ss.Balance - amount)
			ss.OKToday++
			ss.StakeToday += amount
			s.log(n, ss.BotID, fmt.Sprintf("%s: placed $%.2f at %.2f", ss.DisplayName, amount, odds), submitted)
		}
		s.addRecord(n, rec)
	}
	if len(acting) == 0 {
		s.log(n, "", "No running session matched the notification.", at)
	}
	n.ReceivedBots = strings.Join(bots, ",")
}

// shareOf is session i's part of a Fixed Wager stake that is the total
// across n sessions (ensure_total_wager, service facts §2.4): whole cents,
// the odd cents to the first sessions, so the parts add up to the total
// exactly and never to more.
func shareOf(total float64, n, i int) float64 {
	all := int64(math.Round(total * 100))
	part := all / int64(n)
	if int64(i) < all%int64(n) {
		part++
	}
	return float64(part) / 100
}

func (s *Service) log(n *notification, botID, msg string, at time.Time) {
	n.logs = append(n.logs, len(s.botLogs))
	s.botLogs = append(s.botLogs, botLog{ID: len(s.botLogs) + 1, NotificationID: n.ID, UserID: n.UserID, BotID: botID, Log: msg, At: at})
}

// price gives the odds a bookmaker offers for the notification's market and
// selection, or the error a bot would meet placing it.
func (s *Service) price(n *notification) (float64, string) {
	if b := n.sports; b != nil {
		odds, line, err := b.price()
		b.placedAt = line
		return odds, err
	}
	legs, err := parseSelection(n)
	if err != "" {
		return 0, err
	}
	odds := 1.0
	for _, l := range legs {
		rn, ok := n.race.runner(l.runner)
		if !ok {
			return 0, fmt.Sprintf("Runner %d is not in this race.", l.runner)
		}
		if slices.Contains(n.race.scratched, l.runner) {
			return 0, fmt.Sprintf("Runner %d has been scratched.", l.runner)
		}
		o := rn.Odds
		switch {
		case n.Market == "Same Race Multi":
			o = 1 + (rn.Odds-1)/float64(l.top)
		case strings.Contains(n.Market, "Place"):
			o = 1 + (rn.Odds-1)/4
		}
		odds *= o
	}
	return niceOdds(odds), ""
}

type leg struct{ runner, top int }

func parseSelection(n *notification) ([]leg, string) {
	sel := strings.TrimSpace(n.Selection)
	if n.Market != "Same Race Multi" {
		r, err := strconv.Atoi(sel)
		if err != nil {
			return nil, fmt.Sprintf("Selection %q not found.", sel)
		}
		top := 1
		if strings.Contains(n.Market, "Place") {
			top = 3
		}
		return []leg{{r, top}}, ""
	}
	var legs []leg
	for _, part := range strings.Split(sel, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), ":")
		r, err1 := strconv.Atoi(a)
		p, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || p < 1 {
			return nil, fmt.Sprintf("Same Race Multi selection %q is not valid.", sel)
		}
		legs = append(legs, leg{r, p})
	}
	return legs, ""
}

// settle results a notification when its race (or sports event) is
// resulted, or at once as void when its selection was scratched (every
// stake returned).
func (s *Service) settle(n *notification, at time.Time, void bool) {
	won, lay := false, false
	if n.sports != nil && !void {
		won, void = n.sports.outcome()
	}
	n.settled, n.settledAt, n.void = true, at, void
	n.touch()
	if void {
		for _, r := range n.records {
			if r.SubmitResult != "Success" {
				continue
			}
			r.Profit, r.TxResult, r.Status, r.SettledAt = 0, "VOID", "VOID", at
			r.s.Balance = cents(r.s.Balance + r.Amount)
			r.json = nil
		}
		return
	}
	if n.sports == nil {
		legs, _ := parseSelection(n)
		won = len(legs) > 0
		for _, l := range legs {
			if p := n.race.position(l.runner); p == 0 || p > l.top {
				won = false
			}
		}
		lay = strings.HasPrefix(n.Market, "Lay")
	}
	for _, r := range n.records {
		if r.SubmitResult != "Success" {
			continue
		}
		switch {
		case lay && !won: // the runner lost: the layer keeps the backer's stake
			r.Profit, r.TxResult = r.Amount, "WIN"
			r.s.Balance = cents(r.s.Balance + 2*r.Amount)
		case lay:
			r.Profit, r.TxResult = -cents(r.Amount*(r.Odds-1)), "LOSS"
			r.s.Balance = cents(r.s.Balance + r.Amount + r.Profit)
		case won:
			r.Profit, r.TxResult = cents(r.Amount*(r.Odds-1)), "WIN"
			r.s.Balance = cents(r.s.Balance + r.Amount + r.Profit)
		default:
			r.Profit, r.TxResult = -r.Amount, "LOSS"
		}
		r.Status, r.SettledAt = "SETTLED", at
		r.json = nil
		r.s.ProfitToday += r.Profit
	}
}
