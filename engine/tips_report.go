package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// fillTips writes the tips, pre-alerts and what was assumed into res.
func (r *tipRun) fillTips(res *Result) {
	if !r.hasTips() {
		return
	}
	index := map[*plan.Tip]int{}
	for i, t := range r.plan.Tips {
		index[t] = i
	}
	insts := slices.Clone(r.insts)
	sort.SliceStable(insts, func(i, j int) bool {
		a, b := insts[i], insts[j]
		if index[a.tip] != index[b.tip] {
			return index[a.tip] < index[b.tip]
		}
		return a.info.Start.Before(b.info.Start)
	})
	res.Tips = res.Tips[:0]
	for _, in := range insts {
		t := in.tip
		tr := TipResult{
			ID: t.ID, Key: in.key, Race: in.info, Market: t.Market, Selection: t.Selection,
			AmountUnits: t.AmountUnits, Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
			Confidence: t.Confidence, Status: in.status, Action: in.action, Reason: in.reason, PublishedAt: in.publishedAt,
			Attempts: in.attempts, Answer: in.answer, Result: in.result, Outcome: in.outcome, Final: in.final, Error: in.err,
		}
		if strings.HasPrefix(in.key, "unresolved:") {
			tr.Key = ""
		}
		if in.units != nil {
			u := *in.units
			tr.Units = &u
		}
		res.Tips = append(res.Tips, tr)
	}
	res.Prealerts = res.Prealerts[:0]
	for _, k := range r.alertKeys {
		a := r.alerts[k]
		if a.status == AlertWaiting && !r.alertNeeded(a) {
			a.status, a.reason = AlertSkipped, "not sent: no tip of the race was left to publish"
			if r.stop != "" {
				a.reason = "not sent: " + r.stop
			}
		}
		res.Prealerts = append(res.Prealerts, PrealertResult{Race: a.info, Status: a.status, Reason: a.reason, SentAt: a.sentAt, Path: a.path})
	}
	res.Assumptions = r.tipAssumptions()
}

// tipAssumptions says what a tipster run assumed where the service's
// shapes are not known (service facts §9).
func (r *tipRun) tipAssumptions() []string {
	out := []string{
		"Publish body: the docs' flat variant, which matches the spec (competition is the venue's name); confidence and analysis, from the docs' nested variant, are sent as extra fields when set and may be ignored by the service.",
		"Publish answer: any 2xx is taken as published ({\"status\": \"Success\"} is documented); a 2xx with another status is reported unknown.",
		"Publish outcome: the service has no label on tips and no list of them, so betplan's journal is the only record of what was published; a call that timed out, lost its connection or got a 5xx may have gone out: its tips are reported unknown and never sent again by themselves (`betplan run --republish TIP-ID` does).",
		"Race results: read from a notification on the same race in the account (the tipster's own copy of a tip, when it follows its package); without one a tip's result stays unknown.",
		"Units won or lost, at the tipped odds: a win market needs the runner first, a place market in the first three, Same Race Multi every R:P leg; a lay tip wins its units when the runner loses and loses units × (odds − 1) when it wins; a void result returns the units.",
	}
	if r.plan.Prealert != nil {
		path := "not sent yet"
		if r.path != "" {
			path = r.path + " answered"
		}
		out = append(out, fmt.Sprintf("Pre-alert: POST %s (the spec), then %s (the docs) when the first answers 404; %s. Body {\"apikey\"} only: the pre-alert is for the package, so betplan sends one per race, %s before the race's first tip.", apiclient.PrealertMessagePath, apiclient.PrealertDocPath, path, shortDuration(r.plan.Prealert.Before)))
	}
	return out
}

// ActionPublish is a preview's tip that is ready: run would publish it now.
const ActionPublish Action = "publish"

// previewTips says for each tip what run would do now (betplan plan).
func (r *tipRun) previewTips(res *Result, now time.Time) error {
	if !r.hasTips() {
		return nil
	}
	if err := r.expandTips(); err != nil {
		return err
	}
	r.followTipJournal()
	for _, in := range r.insts {
		switch {
		case in.status == TipUnresolved:
			in.action = ActionUnresolved
		case in.status == TipPublished:
			in.action, in.reason = ActionNone, "published by an earlier run at "+r.host.raceTime(in.info.Venue, in.publishedAt)
		case in.status == TipUnknown:
			in.action = ActionNone
		case in.race == nil || !now.Before(in.race.StartTime.Time):
			in.action, in.status, in.reason = ActionSkip, TipSkipped, "the race has started"
		default:
			env := r.races.env(in.race, now)
			ready, err := in.tip.Ready(env)
			switch {
			case err != nil:
				in.action, in.status, in.reason = ActionSkip, TipFailed, fmt.Sprintf("evaluating when: %v", err)
			case !ready:
				in.action, in.reason = ActionWait, fmt.Sprintf("waiting for %q (%s)", in.tip.When.String(), in.tip.When.Explain(env))
			default:
				in.action, in.reason = ActionPublish, "ready: run would publish it now"
			}
		}
	}
	r.fillTips(res)
	return nil
}

// statusTips re-reads what the journal knows of the tips and the results
// of their races (betplan status).
func (r *tipRun) statusTips(ctx context.Context) error {
	if !r.hasTips() {
		return nil
	}
	if err := r.expandTips(); err != nil {
		return err
	}
	r.followTipJournal()
	now := r.clock.Now()
	for _, in := range r.insts {
		if in.status != TipWaiting {
			continue
		}
		if in.race == nil || !now.Before(in.race.StartTime.Time) {
			in.status, in.final, in.reason = TipSkipped, true, "not published before its race started"
		} else if in.reason == "" {
			in.reason = "not published yet"
		}
	}
	for _, in := range r.insts {
		if in.status != TipUnresolved && r.plan.Prealert != nil {
			r.alert(prealertKey(r.plan.Name, in.info), in.info)
		}
	}
	return r.followResults(ctx, now)
}

// shortDuration is 20m rather than Go's 20m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// checkTipsOnline is validate --online for the tips: each tip's race found
// and its runner in it, each for_each_race matching some race, with the
// races CheckOnline read (no call of its own).
func (r *tipRun) checkTipsOnline(now time.Time) plan.Diagnostics {
	var out plan.Diagnostics
	add := func(t *plan.Tip, sev plan.Severity, format string, args ...any) {
		out = append(out, plan.Diagnostic{Severity: sev, Summary: fmt.Sprintf(format, args...),
			Filename: r.plan.Filename, Line: t.Line, Column: t.Column})
	}
	for _, t := range r.plan.Tips {
		if t.ForEachRace != nil {
			n := 0
			for i := range r.races.races {
				ok, err := t.Matches(r.races.env(&r.races.races[i], now))
				if err != nil {
					add(t, plan.SeverityError, "tip %s: for_each_race: %v", t.ID, err)
					break
				}
				if ok {
					n++
				}
			}
			if n == 0 {
				add(t, plan.SeverityWarning, "%s", r.races.unmatchedWords("tip "+t.ID, t.ForEachRace, nil, now))
			}
			continue
		}
		rc, why := findRace(r.races.races, *t.Race)
		if rc == nil {
			add(t, plan.SeverityError, "tip %s: %s", t.ID, why)
			continue
		}
		if why := checkRunners(&instance{bet: &plan.Bet{Selection: t.Selection}, race: rc, info: raceInfo(rc)}); why != "" {
			add(t, plan.SeverityError, "tip %s: %s", t.ID, strings.TrimSuffix(why, ": not created"))
		}
	}
	return out
}
