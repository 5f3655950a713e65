package engine

import (
	"fmt"
	"strings"

	"github.com/betplan/betplan/engine/book"
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
	var requested, atRisk float64
	unknown := 0
	lines := make([]string, 0, len(rows))
	now := r.clock.Now()
	for _, in := range rows {
		if in.amount <= 0 {
			unknown++
			continue
		}
		e := r.money.exposure(in)
		requested += in.amount
		atRisk += e.Amount
		line := fmt.Sprintf("  %s on %s R%d: %s %s requested, %s at risk (%s)",
			in.name(), in.info.Venue, in.info.EventNumber, usd(in.amount), in.bet.AmountField(), usd(e.Amount), e.Basis)
		if only == nil {
			// What is certain now: the bets whose conditions hold already
			// (a saved plan's creates are all made now).
			if ready, err := in.bet.Ready(r.res.instanceEnv(in, now)); err == nil && ready {
				line += "; ready now"
			} else {
				line += "; when its condition holds"
			}
		}
		lines = append(lines, line)
	}
	var b strings.Builder
	noun := plural(len(rows), "bet", "bets")
	if only != nil {
		fmt.Fprintf(&b, "Saved plan of %q against %s: %d %s will be created, %s requested, %s at risk.", r.plan.Name, r.opts.BaseURL, len(rows), noun, usd(requested), usd(atRisk))
	} else {
		fmt.Fprintf(&b, "Plan %q against %s: up to %d %s may be created, %s requested, %s at risk", r.plan.Name, r.opts.BaseURL, len(rows), noun, usd(requested), usd(atRisk))
		if unknown > 0 {
			fmt.Fprintf(&b, " before %d more whose amounts are known when their conditions hold", unknown)
		}
		b.WriteString(".")
		b.WriteString(r.tipsWords())
	}
	if len(lines) > 0 {
		b.WriteString("\nA Fixed Wager stake is placed by each session the bet reaches: at risk is the stake times those sessions, unless it is a total (ensure_total_wager).")
	}
	const most = 10
	for i, l := range lines {
		if i == most {
			fmt.Fprintf(&b, "\n  ... and %d more", len(lines)-most)
			break
		}
		b.WriteString("\n" + l)
	}
	asked := betsAsked{plan: r.plan.Name, bets: len(rows), requested: requested, atRisk: atRisk, tips: r.tipsWords() != ""}
	if len(rows) > 0 {
		u := r.money.usageFor(rows[0].info)
		if w := limitsWords(r.plan.Limits, u); w != "" {
			b.WriteString("\n" + w)
		}
		b.WriteString(worstCaseWords(r.plan.Limits, u.Staked, atRisk, unknown))
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

// worstCaseWords says, for the prompt, what the listed bets put at risk
// together with what the period has committed, against the total limit:
// the worst case the user agrees to.
func worstCaseWords(l plan.Limits, committed, listed float64, unknown int) string {
	if l.MaxTotalStake == nil || listed <= 0 {
		return ""
	}
	worst := committed + listed
	s := fmt.Sprintf("\nWorst case if every bet listed is created: %s at risk in the period (%s committed + %s listed)", usd(worst), usd(committed), usd(listed))
	if unknown > 0 {
		s += fmt.Sprintf(", plus %d whose amounts are not known yet", unknown)
	}
	if worst > *l.MaxTotalStake {
		return s + fmt.Sprintf("; max_total_stake %s stops the bets past it.", usd(*l.MaxTotalStake))
	}
	return s + fmt.Sprintf(", within max_total_stake %s.", usd(*l.MaxTotalStake))
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
			if s := r.hold.journal.State(in.label); s != nil && !s.decidedOnly() {
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
