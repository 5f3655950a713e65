package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/plan"
)

// CheckOnline resolves a plan's races and sessions against the service
// (read-only: one races call, one sessions call, and for a plan with
// event bets the event list and each event's detail) and reports what
// would go wrong at run time, at the position of each bet.
func CheckOnline(ctx context.Context, p *plan.Plan, svc Backend, clock Clock) (plan.Diagnostics, error) {
	r := newTracker(p, Options{Backend: svc, Clock: clock})
	if err := r.res.refresh(ctx); err != nil {
		return nil, err
	}
	var out plan.Diagnostics
	add := func(b *plan.Bet, sev plan.Severity, format string, args ...any) {
		out = append(out, plan.Diagnostic{Severity: sev, Summary: fmt.Sprintf(format, args...),
			Filename: p.Filename, Line: b.Line, Column: b.Column})
	}
	now := clock.Now()
	sessions := map[string]bool{}
	for _, s := range r.res.sessions {
		sessions[strconv.FormatInt(int64(s.ID), 10)] = bool(s.BotRunning)
	}
	for _, b := range p.Bets {
		if b.TargetSession != "" {
			running, ok := sessions[b.TargetSession]
			switch {
			case !ok:
				add(b, plan.SeverityError, "bet %s: target_session %s is not one of the account's sessions", b.ID, b.TargetSession)
			case !running:
				add(b, plan.SeverityWarning, "bet %s: session %s has no running bot now: run would refuse", b.ID, b.TargetSession)
			}
		}
		if b.ForEachRace != nil {
			n := 0
			var gaps []string
			for i := range r.res.races {
				rc := &r.res.races[i]
				ok, err := b.Matches(r.res.env(rc, now))
				if err != nil {
					add(b, plan.SeverityError, "bet %s: for_each_race: %v", b.ID, err)
					break
				}
				if ok {
					n++
					if why := fieldGap(rc, raceInfo(rc), b.Selection); why != "" {
						gaps = append(gaps, why)
					}
				}
			}
			if n == 0 {
				add(b, plan.SeverityWarning, "%s", r.res.unmatchedWords("bet "+b.ID, b.ForEachRace, nil, now))
			}
			if len(gaps) > 0 {
				add(b, plan.SeverityWarning, "bet %s: run skips %d of the %d races it matches, whose field lacks its selection: %s", b.ID, len(gaps), n, listSome(gaps, 3))
			}
			continue
		}
		if b.Event != nil {
			if _, _, why := r.res.resolveEvent(b); why != "" {
				add(b, plan.SeverityError, "bet %s: %s", b.ID, why)
			}
			continue
		}
		rc, why := findRace(r.res.races, *b.Race)
		if rc == nil {
			add(b, plan.SeverityError, "bet %s: %s", b.ID, why)
			continue
		}
		if why := fieldGap(rc, raceInfo(rc), b.Selection); why != "" {
			add(b, plan.SeverityWarning, "bet %s: %s: run skips it", b.ID, why)
		}
	}
	return append(out, r.tips.checkTipsOnline(now)...), nil
}

// unmatchedWords is the warning for a for_each_race (of the bet or tip
// named what) that matches none of the upcoming races read: what it would
// need that no race has (plan.Expr.Unmatched). envs are the races'
// environments, in r.races' order (nil: made here).
func (r *resolver) unmatchedWords(what string, cond *plan.Expr, envs []*plan.Env, now time.Time) string {
	if envs == nil {
		envs = r.raceEnvs(now)
	}
	return fmt.Sprintf("%s: for_each_race matches none of the %d upcoming races: %s", what, len(r.races), cond.Unmatched(envs))
}

// raceEnvs are the environments of the upcoming races read, in order.
func (r *resolver) raceEnvs(now time.Time) []*plan.Env {
	envs := make([]*plan.Env, len(r.races))
	for i := range r.races {
		envs[i] = r.env(&r.races[i], now)
	}
	return envs
}

// unmatchedForEach warns of each for_each_race of the plan's bets and
// tips that matches none of the upcoming races read, naming what it would
// need: offline a plan names no meeting such a bet runs over, so only
// the races read from the service can say it (betplan plan shows it).
func (r *resolver) unmatchedForEach(now time.Time) plan.Diagnostics {
	var out plan.Diagnostics
	var envs []*plan.Env // made once, for the first for_each_race
	check := func(what string, cond *plan.Expr, line, col int) {
		if envs == nil {
			envs = r.raceEnvs(now)
		}
		for _, env := range envs {
			if ok, err := cond.Holds(env); err != nil || ok {
				return // a condition that fails to evaluate is the run's to report
			}
		}
		out = append(out, plan.Diagnostic{Severity: plan.SeverityWarning, Summary: r.unmatchedWords(what, cond, envs, now),
			Filename: r.plan.Filename, Line: line, Column: col})
	}
	for _, b := range r.plan.Bets {
		if b.ForEachRace != nil {
			check("bet "+b.ID, b.ForEachRace, b.Line, b.Column)
		}
	}
	for _, t := range r.plan.Tips {
		if t.ForEachRace != nil {
			check("tip "+t.ID, t.ForEachRace, t.Line, t.Column)
		}
	}
	return out
}

// listSome joins the first n of items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}
