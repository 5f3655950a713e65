package cli

import (
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSimScratch is `scratch VAR`: it scratches $VAR_RUNNER from the
// race simrace picked as VAR; bets on it are resulted void at once.
func cmdSimScratch(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: scratch VAR")
	}
	svc := simOf(ts, "scratch")
	v := args[0]
	venue, runner := ts.Getenv(v+"_VENUE"), ts.Getenv(v+"_RUNNER")
	number, err := strconv.Atoi(ts.Getenv(v + "_NUMBER"))
	ts.Check(err)
	for _, r := range svc.Races() {
		if r.Venue == venue && r.EventNumber == number && r.Start.After(time.Now()) {
			// The void is an outcome: `seenwithin` measures from here.
			ts.Value(scriptSimKey{}).(*scriptSim).resulted = time.Now()
			if !svc.Scratch(r, runner) {
				ts.Fatalf("scratch: %s R%d not found", venue, number)
			}
			return
		}
	}
	ts.Fatalf("scratch: no upcoming race %s R%d", venue, number)
}
