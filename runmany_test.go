package main

import (
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSimCalls is `simcalls MAX`: the requests the simulated service saw,
// per notification it holds, are at most MAX.
func cmdSimCalls(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: simcalls MAX-PER-NOTIFICATION")
	}
	max, err := strconv.ParseFloat(args[0], 64)
	ts.Check(err)
	svc := simOf(ts, "simcalls")
	calls, bets := len(svc.Requests()), svc.NotificationCount()
	if bets == 0 {
		ts.Fatalf("simcalls: no notifications")
	}
	perBet := float64(calls) / float64(bets)
	ts.Logf("%d requests for %d notifications: %.2f per bet", calls, bets, perBet)
	if perBet > max {
		for _, r := range svc.Requests() {
			ts.Logf("%s %s?%s", r.Method, r.Path, r.Query)
		}
		ts.Fatalf("simcalls: %.2f requests per notification, want at most %.2f", perBet, max)
	}
}
