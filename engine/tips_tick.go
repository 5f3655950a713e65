package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/betplan/betplan/plan"
)

// tipsByStart is the tip instances with the soonest race first.
func (r *tipRun) tipsByStart() []*tipInstance {
	out := slices.Clone(r.insts)
	soonestFirst(out, func(in *tipInstance) time.Time { return in.info.Start })
	return out
}

// tipsTick is one tick of the tips: due pre-alerts, then every tip ready
// now in one publish call, then the results of published tips.
func (r *tipRun) tipsTick(ctx context.Context, now time.Time) error {
	if !r.hasTips() {
		return nil
	}
	if r.opts.OnlyLabels != nil {
		if !r.warned {
			r.warned = true
			r.host.logf("a saved plan applies its creates only: no tip is published")
		}
		for _, in := range r.insts {
			if in.status == TipWaiting {
				in.status, in.final, in.reason = TipSkipped, true, "not published: a saved plan applies its creates only"
			}
		}
		return r.followResults(ctx, now)
	}
	if r.halt.why != "" || r.halt.lockLost() {
		r.stopPublishing(r.halt.why)
	}
	r.noteRepublish()
	var due []*tipInstance
	for _, in := range r.tipsByStart() {
		if in.race == nil && in.republish {
			in.republish = false
			in.reason = "--republish: its race is no longer upcoming, so it is not sent again; " + in.reason
		}
		if in.race == nil || in.final || (in.status != TipWaiting && !(in.status == TipUnknown && in.republish)) {
			continue
		}
		if !now.Before(in.race.StartTime.Time) {
			in.status, in.final = TipSkipped, true
			if in.republish {
				in.status, in.reason = TipUnknown, "--republish: the race started before it could be sent again; "+in.reason
			} else if in.tip.When != nil {
				in.reason = fmt.Sprintf("the race started before %q was true (%s)", in.tip.When.String(), in.tip.When.Explain(r.races.env(in.race, now)))
			} else {
				in.reason = "the race started before the tip could be published"
			}
			continue
		}
		if in.republish {
			due = append(due, in)
			continue
		}
		env := r.races.env(in.race, now)
		ready, err := in.tip.Ready(env)
		if err != nil {
			in.status, in.final = TipFailed, true
			in.reason = fmt.Sprintf("evaluating when %q: %v", in.tip.When.String(), err)
			continue
		}
		if !ready {
			in.reason = fmt.Sprintf("waiting for %q (%s)", in.tip.When.String(), in.tip.When.Explain(env))
			continue
		}
		// The bets' runner check, on the tip's selection.
		if reason := checkRunners(&instance{bet: &plan.Bet{Selection: in.tip.Selection}, race: in.race, info: in.info}); reason != "" {
			in.status, in.final = TipFailed, true
			in.reason = strings.Replace(reason, "not created", "not published", 1)
			continue
		}
		due = append(due, in)
	}
	if r.stop != "" {
		for _, in := range due {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+r.stop
		}
		return r.followResults(ctx, now)
	}
	if err := r.prealerts(ctx, now, due); err != nil {
		return err
	}
	if len(due) > 0 {
		if err := r.publish(ctx, due); err != nil {
			return err
		}
	}
	return r.followResults(ctx, now)
}

// noteRepublish says, once, which tips --republish names that have no
// publish of unknown outcome to send again.
func (r *tipRun) noteRepublish() {
	if r.noted {
		return
	}
	r.noted = true
	for _, id := range r.opts.Republish {
		found := false
		for _, in := range r.insts {
			found = found || (in.tip.ID == id && in.republish)
		}
		if !found {
			r.host.logf("--republish %s: no publish of it has an unknown outcome; nothing is sent again", id)
		}
	}
}
