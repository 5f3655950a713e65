package cli

import (
	"sort"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSimApart is `simapart A B`: it picks two Galloping races of one venue
// as a plan names them (venue and number, each the earliest listed race of
// its number) whose meeting days differ, as the service writes starts (in
// the south-east's zone): A the earlier, B on a later day. It sets
// $A_VENUE, $A_NUMBER, $A_RUNNER and the same of B. Run it after
// `simadvance` moved past some of today's races, so their numbers name
// tomorrow's.
func cmdSimApart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: simapart A B")
	}
	svc := simOf(ts, "simapart")
	zone, err := time.LoadLocation("Australia/Sydney")
	ts.Check(err)
	now := ts.Value(scriptSimKey{}).(*scriptSim).clock.Now()
	type listed struct {
		start  time.Time
		runner string
	}
	byVenue := map[string]map[int]listed{}
	for _, r := range svc.Races() {
		if r.Code != "Galloping" || !r.Start.After(now.Add(3*time.Minute)) {
			continue
		}
		m := byVenue[r.Venue]
		if m == nil {
			m = map[int]listed{}
			byVenue[r.Venue] = m
		}
		if l, ok := m[r.EventNumber]; !ok || r.Start.Before(l.start) {
			m[r.EventNumber] = listed{r.Start, r.Runners[0]}
		}
	}
	venues := make([]string, 0, len(byVenue))
	for v := range byVenue {
		venues = append(venues, v)
	}
	sort.Strings(venues)
	for _, v := range venues {
		m := byVenue[v]
		nums := make([]int, 0, len(m))
		for n := range m {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, a := range nums {
			la := m[a]
			for _, b := range nums {
				lb := m[b]
				if la.start.In(zone).Format(time.DateOnly) < lb.start.In(zone).Format(time.DateOnly) {
					for name, x := range map[string]struct {
						n int
						l listed
					}{args[0]: {a, la}, args[1]: {b, lb}} {
						ts.Setenv(name+"_VENUE", v)
						ts.Setenv(name+"_NUMBER", strconv.Itoa(x.n))
						ts.Setenv(name+"_RUNNER", x.l.runner)
					}
					ts.Logf("%s R%d on %s, R%d on %s", v, a, la.start.In(zone).Format(time.DateTime), b, lb.start.In(zone).Format(time.DateTime))
					return
				}
			}
		}
	}
	ts.Fatalf("simapart: no venue lists races on two days")
}
