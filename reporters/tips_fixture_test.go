package reporters_test

import "github.com/betplan/betplan/engine"

// tipsResult is a tipster's run: one tip of each status and outcome, the
// pre-alerts, and what was assumed. The package key appears nowhere in a
// result, so it cannot appear in a report.
func tipsResult() *engine.Result {
	units := func(v float64) *float64 { return &v }
	return &engine.Result{
		Kind:       engine.KindRun,
		PlanName:   "tipster",
		PlanFile:   "examples/tipster.yaml",
		PlanHash:   "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
		Version:    "v0.4.0",
		BaseURL:    "https://bets.example.com.au",
		StartedAt:  t0,
		FinishedAt: at(200),
		EndReason:  engine.EndCompleted,
		Tips: []engine.TipResult{
			{ID: "flem4-no3", Race: race("Flemington", 4, 60), Market: "Fixed Win", Selection: "3", AmountUnits: 2, Odds: 3.5, MaxOdds: 5, Bookies: "41&42",
				Confidence: "High", Status: engine.TipPublished, PublishedAt: at(45), Attempts: 1, Answer: "Success",
				Result: "3/7/1/5", Outcome: engine.TipWon, Units: units(5), Final: true, Reason: "won 5.00 units at 3.50 (result 3/7/1/5)"},
			{ID: "flem5-no1", Race: race("Flemington", 5, 95), Market: "Fixed Place", Selection: "1", AmountUnits: 1, Odds: 1.8, MaxOdds: 2.5, Bookies: "41",
				Status: engine.TipPublished, PublishedAt: at(80), Attempts: 1, Answer: "Success",
				Result: "4/2/6", Outcome: engine.TipLost, Units: units(-1), Final: true, Reason: "lost 1.00 units at 1.80 (result 4/2/6)"},
			{ID: "rand2-srm", Race: race("Randwick", 2, 70), Market: "Same Race Multi", Selection: "2:1,6:3", AmountUnits: 1, Odds: 8, MaxOdds: 12, Bookies: "41",
				Status: engine.TipUnknown, Attempts: 1, Final: true, Error: "POST /pick/tipster/publish/: 500 Internal Server Error",
				Reason: "a publish was sent and may have reached subscribers (POST /pick/tipster/publish/: 500 Internal Server Error): it is never sent again by itself; `betplan run --republish TIP-ID` sends it again"},
			{ID: "rand3-no9", Race: race("Randwick", 3, 100), Market: "Fixed Win", Selection: "9", AmountUnits: 1, Odds: 6, MaxOdds: 9, Bookies: "41",
				Status: engine.TipFailed, Attempts: 1, Final: true, Error: "POST /pick/tipster/publish/: 404 Not Found: Competition or market unavailable.",
				Reason: "the service refused the publish"},
			{ID: "rand4-no2", Race: race("Randwick", 4, 130), Market: "Fixed Win", Selection: "2", AmountUnits: 1, Odds: 3, MaxOdds: 4, Bookies: "41",
				Status: engine.TipSkipped, Final: true, Reason: `the race started before "race.minutes_to_start <= 5" was true (race.minutes_to_start = 7.5)`},
			{ID: "scratched", Race: race("Flemington", 6, 125), Market: "Fixed Win", Selection: "8", AmountUnits: 1, Odds: 4.2, MaxOdds: 6, Bookies: "41",
				Status: engine.TipPublished, PublishedAt: at(110), Attempts: 1, Answer: "Success", Result: "VOID", Outcome: engine.TipVoid, Units: units(0), Final: true, Reason: "void (result VOID)"},
			{ID: "later", Race: race("Flemington", 8, 240), Market: "Fixed Win", Selection: "5", AmountUnits: 1, Odds: 5, MaxOdds: 7, Bookies: "41",
				Status: engine.TipWaiting, Reason: `waiting for "race.minutes_to_start <= 15" (race.minutes_to_start = 40)`},
		},
		Prealerts: []engine.PrealertResult{
			{Race: race("Flemington", 4, 60), Status: engine.AlertSent, SentAt: at(25), Path: "/pick/tipster/message/"},
			{Race: race("Randwick", 2, 70), Status: engine.AlertUnknown, Reason: "it may have gone out (POST /pick/tipster/message/: 502 Bad Gateway): not sent again"},
		},
		Assumptions: []string{
			"Publish body: the docs' flat variant, which matches the spec.",
			"Race results: read from a notification on the same race in the account.",
		},
	}
}

// tipsPlanResult is a preview of a tipster's plan.
func tipsPlanResult() *engine.Result {
	r := tipsResult()
	r.Kind = engine.KindPlan
	r.Prealerts, r.EndReason = nil, engine.EndCompleted
	actions := []engine.Action{engine.ActionNone, engine.ActionNone, engine.ActionNone, engine.ActionPublish, engine.ActionSkip, engine.ActionNone, engine.ActionWait}
	for i := range r.Tips {
		r.Tips[i].Action = actions[i]
	}
	r.Tips[3].Status, r.Tips[3].Reason, r.Tips[3].Error = engine.TipWaiting, "ready: run would publish it now", ""
	return r
}
