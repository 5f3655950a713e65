package engine

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// ExamineAccount adds to rep the account's limits and what the plans
// sharing store on the service at baseURL use of each today, reading the
// other plans' open bets from svc as a run would before applying a
// stop-loss. It only reads. A limit reached is a warning: a run creates
// nothing more under it, but that is the limit doing its work.
func ExamineAccount(ctx context.Context, rep *DoctorReport, svc Backend, clock Clock, store state.Store, baseURL string, account *plan.Config) {
	if account == nil || !account.Limits.Any() {
		return
	}
	defer func() { rep.Ready = len(rep.Reasons) == 0 }()
	r := newTracker(&plan.Plan{}, Options{Backend: svc, Clock: clock, Store: store, BaseURL: baseURL, Account: account})
	l := account.Limits
	now := r.clock.Now()
	a := &DoctorAccount{File: account.Filename, Plans: []string{}, Periods: []DoctorPeriod{}}
	rep.Account = a
	if err := r.money.loadAccount(ctx); err != nil {
		a.Unread = err.Error()
		rep.add("account", LevelFail, "%s: cannot tell what the account's plans used: %v", a.File, err)
		return
	}
	// Today is the meeting day where the account's races run: a morning
	// in Melbourne is the day before in UTC.
	for _, o := range r.money.accountOthers {
		if st := o.Race().Start; !st.IsZero() {
			now = now.In(st.Location())
			break
		}
	}
	starts := map[string]time.Time{periodKey(l.Period, now): now}
	inPeriods := map[string]bool{}
	for _, o := range r.money.accountOthers {
		if st := o.Race().Start; !st.IsZero() && st.Sub(now).Abs() <= 24*time.Hour {
			if k := periodKey(l.Period, st); starts[k].IsZero() {
				starts[k] = st
			}
		}
	}
	for _, o := range r.money.accountOthers {
		if k := periodKey(l.Period, o.Race().Start); !starts[k].IsZero() || o.Race().Start.IsZero() || l.Period == "" {
			inPeriods[o.Plan()] = true
		}
	}
	for p := range inPeriods {
		a.Plans = append(a.Plans, p)
	}
	sort.Strings(a.Plans)
	var reached []string
	for k, st := range starts {
		u, _ := accountUsageOf(l, RaceInfo{Start: st}, r.money.accountOthers, "")
		dp := DoctorPeriod{Period: k, Words: periodWords(l.Period, k), Limits: doctorLimits(l, u)}
		for _, dl := range dp.Limits {
			if dl.Reached {
				reached = append(reached, dl.Name+" in "+dp.Words)
			}
		}
		a.Periods = append(a.Periods, dp)
	}
	sort.Slice(a.Periods, func(i, j int) bool { return a.Periods[i].Period < a.Periods[j].Period })
	sort.Strings(reached)
	who := "no plan has a bet in it yet"
	if len(a.Plans) > 0 {
		who = plural(len(a.Plans), "plan ", "plans ") + strings.Join(a.Plans, ", ")
	}
	if len(reached) > 0 {
		rep.add("account", LevelWarn, "%s (%s): %s reached, a run creates nothing more under it", a.File, who, joinAnd(reached))
		return
	}
	rep.add("account", LevelOK, "%s (%s): every limit has room", a.File, who)
}

// doctorLimits says each of l's limits with its use in u: first those
// counted over the period, then those of each bet or race.
func doctorLimits(l plan.Limits, u usage) []DoctorLimit {
	sums := u.Sums()
	var out []DoctorLimit
	for _, period := range []bool{true, false} {
		for _, k := range limit.Shown() {
			v, ok := l.Set.Get(k)
			if !ok || (k.Span == limit.PerPeriod) != period {
				continue
			}
			use := k.Use(v, sums)
			dl := DoctorLimit{Name: k.Key, Limit: k.Number(v), Words: use.Words}
			if period {
				dl.Used, dl.Reached = &use.Used, use.Reached
			}
			out = append(out, dl)
		}
	}
	return out
}

// joinAnd says "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
