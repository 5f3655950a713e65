package engine

import (
	"fmt"
	"strings"

	"github.com/betplan/betplan/engine/book"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// confirmSummary is what the prompt shows before the first create: each
// bet that may be created, its requested amount and what it puts at risk
// (and how that was worked out), and the limits of its period.
func (r *creator) confirmSummary() string { return r.askedBets().text }

// askedBets is confirmSummary's text, with its sums.
func (r *creator) askedBets() betsAsked {
	var rows []*instance
	only := r.opts.OnlyLabels
	for _, in := range r.book.byStart() {
		if in.status != StatusWaiting || in.notifID != 0 {
			continue
		}
		if only != nil {
			if _, ok := only[in.label]; !ok {
				continue
			}
		}
		if notInField(in) != "" {
			continue // a vacant box or a scratched runner: never created
		}
		rows = append(rows, in)
	}
	var requested, atRisk book.Total
	unknown := 0
	now := r.clock.Now()
	// One line per race (a line per bet with --verbose): the decision
	// stays on one screen however many bets a card has.
	type raceRows struct {
		race              RaceInfo
		bets              []askedBet
		requested, atRisk book.Total
	}
	var races []*raceRows
	byRace := map[string]*raceRows{}
	for _, in := range rows {
		if in.amount <= 0 {
			unknown++
			continue
		}
		e := r.money.exposure(in)
		requested.Add(in.amount)
		atRisk.Add(e.Amount)
		a := askedBet{in: in, risk: e, when: ""}
		if only == nil {
			// What is certain now: the bets whose conditions hold already
			// (a saved plan's creates are all made now).
			if ready, err := in.bet.Ready(r.res.instanceEnv(in, now)); err == nil && ready {
				a.when = "ready now"
			} else {
				a.when = "when its condition holds"
			}
		}
		key := bookRace(in.info).Key()
		if r.opts.Verbose {
			key = in.label
		}
		rr := byRace[key]
		if rr == nil {
			rr = &raceRows{race: in.info}
			byRace[key] = rr
			races = append(races, rr)
		}
		rr.bets = append(rr.bets, a)
		rr.requested.Add(in.amount)
		rr.atRisk.Add(e.Amount)
	}
	// A basis every listed bet shares is said once.
	common := ""
	if n := len(rows) - unknown; n > 1 {
		common = races[0].bets[0].risk.Basis
		for _, rr := range races {
			for _, a := range rr.bets {
				if a.risk.Basis != common {
					common = ""
				}
			}
		}
	}
	lines := make([]string, 0, len(races))
	for _, rr := range races {
		if len(rr.bets) == 1 {
			lines = append(lines, rr.bets[0].line(common))
			continue
		}
		ids := make([]string, len(rr.bets))
		whens := map[string]int{}
		var order []string
		for i, a := range rr.bets {
			ids[i] = a.in.name()
			if whens[a.when] == 0 {
				order = append(order, a.when)
			}
			whens[a.when]++
		}
		line := fmt.Sprintf("  %s: %d bets (%s), %s requested, %s at risk", raceWords(rr.race), len(rr.bets), plan.CutList(ids, 4),
			usd(rr.requested.Dollars()), usd(rr.atRisk.Dollars()))
		var parts []string
		for _, w := range order {
			if w != "" {
				parts = append(parts, fmt.Sprintf("%d %s", whens[w], w))
			}
		}
		if len(parts) > 0 {
			line += "; " + strings.Join(parts, ", ")
		}
		lines = append(lines, line)
	}
	var b strings.Builder
	noun := plural(len(rows), "bet", "bets")
	if only != nil {
		fmt.Fprintf(&b, "Saved plan of %q against %s: %d %s will be created, %s requested, %s at risk.", r.plan.Name, r.opts.BaseURL, len(rows), noun, usd(requested.Dollars()), usd(atRisk.Dollars()))
	} else {
		fmt.Fprintf(&b, "Plan %q against %s: up to %d %s may be created, %s requested, %s at risk", r.plan.Name, r.opts.BaseURL, len(rows), noun, usd(requested.Dollars()), usd(atRisk.Dollars()))
		if unknown > 0 {
			fmt.Fprintf(&b, " before %d more whose amounts are known when their conditions hold", unknown)
		}
		b.WriteString(".")
		b.WriteString(r.tipsWords())
	}
	switch {
	case common != "":
		b.WriteString("\nAt risk of each bet: " + common + " (a stake is placed by each session it reaches).")
	case len(lines) > 0:
		b.WriteString("\nAt risk is each stake times the sessions that place it (with ensure_total_wager, the total).")
	}
	most := 10
	if r.opts.Verbose {
		most = len(lines) // every bet
	}
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&b, "\n  ... and %d more %s (--verbose lists every bet)", len(lines)-most, plural(len(lines)-most, "line", "lines"))
			break
		}
		b.WriteString("\n" + l)
	}
	asked := betsAsked{plan: r.plan.Name, bets: len(rows), requested: requested.Dollars(), atRisk: atRisk.Dollars(), tips: r.tipsWords() != ""}
	if len(rows) > 0 {
		u := r.money.usageFor(rows[0].info)
		if w := limitsWords(r.plan.Limits, u); w != "" {
			b.WriteString("\n" + w)
		}
		b.WriteString(worstCaseWords(r.plan.Limits, u.Staked, atRisk.Dollars(), unknown))
		if l := r.money.accountLimits(); l != nil {
			au, _ := r.money.accountUsage(*l, rows[0].info, r.money.accountOthers)
			if w := limitsWords(*l, au); w != "" {
				asked.file = r.opts.Account.Filename
				// "Limits for day 2026-11-28: …", or for the plan (all time).
				w = strings.Replace(strings.TrimPrefix(w, "Limits "), "for the plan (all time)", "over all time", 1)
				asked.account = "Account limits of " + asked.file + ", every plan together, " + w
			}
		}
	}
	asked.text = b.String()
	return asked
}

// askedBet is one bet the prompt lists: what it puts at risk and when it
// would be created ("" for a saved plan's, all made now).
type askedBet struct {
	in   *instance
	risk exposure
	when string
}

// line is the bet's line of the prompt; its basis is left out when it is
// common, said once above.
func (a askedBet) line(common string) string {
	in := a.in
	line := fmt.Sprintf("  %s on %s: %s %s requested, %s at risk", in.name(), raceWords(in.info), usd(in.amount), in.bet.AmountField(), usd(a.risk.Amount))
	if a.risk.Basis != common {
		line += " (" + a.risk.Basis + ")"
	}
	if a.when != "" {
		line += "; " + a.when
	}
	return line
}

// worstCaseWords says, for the prompt, what the listed bets put at risk
// together with what the period has committed, against the total limit:
// the worst case the user agrees to.
func worstCaseWords(l plan.Limits, committed, listed float64, unknown int) string {
	total, ok := l.Set.Get(limit.MaxTotalStake)
	if !ok || listed <= 0 {
		return ""
	}
	worst := committed + listed
	s := fmt.Sprintf("\nWorst case if every bet listed is created: %s at risk in the period (%s committed + %s listed)", usd(worst), usd(committed), usd(listed))
	if unknown > 0 {
		s += fmt.Sprintf(", plus %d whose amounts are not known yet", unknown)
	}
	if worst > total.Dollars {
		return s + fmt.Sprintf("; max_total_stake %s stops the bets past it.", usd(total.Dollars))
	}
	return s + fmt.Sprintf(", within max_total_stake %s.", usd(total.Dollars))
}

// certainRefusal returns why the bets certain to be created now (a named
// race, no when, a static amount, not created yet) cannot all be created
// within the limits, with what the plan committed before, or "". Run then
// refuses before creating any of them rather than some.
//
// seen is the limit that refused them, at the first bet it held back, and
// the sums it saw there; nil when none did.
func (r *creator) certainRefusal() (why string, certain []*instance, seen *limitSeen) {
	certain = r.certainBets()
	if len(certain) == 0 {
		return "", nil, nil
	}
	return r.certainRefusalOf(certain)
}

// limitSeen is a limit's refusal of a bet, and the sums it saw.
type limitSeen struct {
	why reason.Why
	u   usage
}

// certainBets are the bets certain to be created now, by race start.
func (r *creator) certainBets() []*instance {
	now := r.clock.Now()
	var certain []*instance
	for _, in := range r.book.byStart() {
		if in.status != StatusWaiting || in.notifID != 0 || in.race == nil || !in.bet.Certain() || !now.Before(in.race.StartTime.Time) {
			continue
		}
		if r.hold.journal != nil {
			if s := r.hold.journal.State(in.label); s != nil && !s.untried() {
				continue // tried before: decide settles it on its own
			}
		}
		if only := r.opts.OnlyLabels; only != nil {
			if _, ok := only[in.label]; !ok {
				continue
			}
		}
		certain = append(certain, in)
	}
	return certain
}

// certainRefusalOf is certainRefusal for the certain bets given.
func (r *creator) certainRefusalOf(certain []*instance) (string, []*instance, *limitSeen) {
	// Each certain bet counts the ones before it, as if created.
	before := book.NewLedger(r.plan.Limits.Period)
	now := r.clock.Now()
	for _, in := range certain {
		risk := r.money.exposure(in)
		u := r.money.usageFor(in.info).Plus(before.Usage(bookRace(in.info)))
		if why := limitRefusal(r.plan.Limits, risk, in.info, u, "committed by this plan and by the certain bets before it"); why.Text != "" {
			ids := make([]string, len(certain))
			for i, c := range certain {
				ids[i] = c.bet.ID
			}
			return fmt.Sprintf("the bets certain to be created (%s: a named race, no when, a static amount) break a limit together, with what the plan committed before: at bet %s, %s",
				plan.CutList(ids, idsShown), in.bet.ID, why.Text), certain, &limitSeen{why: why, u: u}
		}
		before.Put(r.money.asCreated(in, risk), now)
	}
	if why, seen := r.money.certainAccountRefusal(certain); why != "" {
		return why, certain, seen
	}
	return "", nil, nil
}
