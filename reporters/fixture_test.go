package reporters_test

import (
	"fmt"
	"time"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// The results the goldens are made from. Times are fixed so goldens are
// stable; together they hold every status and action, every submit result,
// positive, negative and zero profits, a provisional result, a fatal error,
// a long venue, a label with spaces and a reason with | and <script>.

var t0 = time.Date(2025, 3, 1, 0, 30, 0, 0, time.UTC)

var aedt = time.FixedZone("AEDT", 11*3600)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

func money(v float64) *float64 { return &v }

func race(venue string, n, startMin int) engine.RaceInfo {
	// The service gives race times in the meeting's offset (AEDT here).
	return engine.RaceInfo{Venue: venue, Code: "Galloping", EventNumber: n, Start: at(startMin).In(aedt)}
}

// hostile is a reason that must come out escaped in every format.
const hostile = `bookmaker said "odds | changed" <script>alert('x')</script> & *bold* _it_ [link](http://example.com)`

func runResult() *engine.Result {
	r := &engine.Result{
		Kind:       engine.KindRun,
		PlanName:   "saturday-card",
		PlanFile:   "examples/saturday-card.yaml",
		PlanHash:   "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Version:    "v0.3.0",
		BaseURL:    "https://bets.example.com.au",
		StartedAt:  at(0),
		FinishedAt: at(215),
		EndReason:  "error",
		Error:      "poll notifications: GET /bet/notification/: 502 Bad Gateway",
		Limits: engine.LimitsSummary{
			Limits: plan.Limits{Period: plan.PeriodDay, Set: limit.Set{
				limit.MaxStakePerBet: limit.Amount(50),
				limit.MaxTotalStake:  limit.Amount(400),
				limit.MaxBets:        limit.Count(20),
				limit.MaxLoss:        limit.Amount(100),
			}},
			Committed:   175.5,
			CreatedBets: 10,
			Periods: []engine.PeriodUsage{{Period: "2025-03-01", Words: "day 2025-03-01",
				PlanEnv: plan.PlanEnv{Staked: 125.5, OpenStake: 45, Profit: 29.75, Bets: 10, Settled: 4, Won: 2, Lost: 2}}},
		},
		Bets: []engine.BetResult{
			{
				ID: "early-fav", Label: "betplan saturday-card early-fav R3",
				Race: race("Flemington", 3, 40), Selection: "4 Pride Of Jenni", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), AtRisk: 10, AtRiskBasis: "accepted by the sessions", Status: engine.StatusSettled, Reason: "won",
				NotificationID: 90211, CreatedAt: at(5), PlacedAt: at(5).Add(3 * time.Second), PlacedBy: []string{"Main"},
				Records: []engine.Record{
					{Bookie: "bet365", DisplayName: "Main", Amount: 10, Odds: 3.2, SubmitResult: "Success", Status: "SETTLED", Profit: 22},
				},
				AmountAccepted: 10, Profit: 22, Final: true,
			},
			{
				ID: "each-way", Label: "betplan saturday-card each-way R4",
				Race: race("Flemington", 4, 75), Selection: "7 Zaaki", Type: "Fixed Wager", Market: "Fixed Place",
				Stake: money(20), Status: engine.StatusSettled, Reason: "lost",
				NotificationID: 90212, CreatedAt: at(50),
				Records: []engine.Record{
					{Bookie: "sportsbet", DisplayName: "Sportsbet 2", Amount: 20, Odds: 1.85, SubmitResult: "Success", Status: "SETTLED", Profit: -20},
					{Bookie: "ladbrokes", DisplayName: "Lads", SubmitResult: "Error", SubmitError: "Insufficient funds", Status: "FAILED"},
				},
				AmountAccepted: 20, Profit: -20, Final: true,
			},
			{
				ID: "scratch-saver", Label: "betplan saturday-card scratch-saver R5",
				Race: race("Flemington", 5, 110), Selection: "2 Verry Elleegant", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(15), Status: engine.StatusSettled, Reason: "runner scratched: stake refunded",
				NotificationID: 90213, CreatedAt: at(80),
				Records: []engine.Record{
					{Bookie: "bet365", DisplayName: "Main", Amount: 15, Odds: 4.5, SubmitResult: "Success", Status: "REFUNDED", Profit: 0},
				},
				AmountAccepted: 15, Profit: 0, Final: true,
			},
			{
				ID: "late-money", Label: "betplan saturday-card late-money R6",
				Race: race("Flemington", 6, 145), Selection: "1 Anamoe", Type: "Fixed Wager", Market: "Fixed Win",
				TargetProfit: money(30), Status: engine.StatusSettled, Reason: "won, result provisional",
				NotificationID: 90214, CreatedAt: at(120), PlacedAt: at(121), PlacedBy: []string{"Main", "Sportsbet 2"},
				Records: []engine.Record{
					{Bookie: "bet365", DisplayName: "Main", Amount: 12.5, Odds: 3.4, SubmitResult: "Success", Status: "SETTLED", Profit: 17.5},
					{Bookie: "sportsbet", DisplayName: "Sportsbet 2", Amount: 12.5, Odds: 3.3, SubmitResult: "Success", Status: "SETTLED", Profit: 16.25},
				},
				AmountAccepted: 25, Profit: 33.75, Final: false,
			},
			{
				ID: "box-trial", InstanceID: "box-trial@randwick-r7", Label: "betplan saturday-card box trial R7",
				Race: race("Randwick", 7, 180), Selection: "3", Type: "Tote", Market: "Tote Win",
				Stake: money(25), Status: engine.StatusPlaced, Reason: "one session in review",
				NotificationID: 90215, CreatedAt: at(150),
				Records: []engine.Record{
					{Bookie: "17", DisplayName: "TAB Main", Amount: 25, Odds: 2.9, SubmitResult: "Success", Status: "PENDING"},
					{Bookie: "pointsbet", DisplayName: "PB", Amount: 0, SubmitResult: "In Review", Status: "PENDING"},
				},
				AmountAccepted: 25,
			},
			{
				ID: "market-mover", Label: "betplan saturday-card market-mover R8",
				Race: race("Randwick", 8, 215), Selection: "9 Nature Strip", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), Status: engine.StatusCreated, Reason: "no session has acted yet",
				AtRisk: 20, AtRiskBasis: "$10.00 × 2: 2 sessions with a running bot (Main, Sportsbet 2)",
				NotificationID: 90216, CreatedAt: at(200),
			},
			{
				ID: "drifter", Label: "betplan saturday-card drifter R9",
				Race: race("Randwick", 9, 250), Selection: "5 I Wish I Win", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), Status: engine.StatusWaiting, Reason: "when: odds 4.60 > 3.50 (max)",
				AtRisk: 10, AtRiskBasis: "$10.00 in all, split across the sessions (ensure_total_wager)",
			},
			{
				ID: "rain-check", Label: "betplan saturday-card rain-check R2",
				Race: race("Caulfield", 2, 20), Selection: "6 Mr Brightside", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), Status: engine.StatusSkipped, Reason: "condition never true before the race started",
				Why: reason.Why{Code: reason.ConditionFalse, Text: "condition never true before the race started"},
			},
			{
				ID: "phantom", Label: "betplan saturday-card phantom",
				Race: engine.RaceInfo{Venue: "Nowhere Downs", EventNumber: 12}, Selection: "1", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(5), Status: engine.StatusUnresolved, Reason: "no race Nowhere Downs R12 on 2025-03-01",
				Why: reason.Why{Code: reason.Unresolved, Text: "no race Nowhere Downs R12 on 2025-03-01"},
			},
			{
				ID: "nobody-home", Label: "betplan saturday-card nobody-home R1",
				Race: race("Moonee Valley", 1, 10), Selection: "8 Lunar Flare", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), Status: engine.StatusNotTaken, Reason: "no session acted by race start",
				Why:            reason.Why{Code: reason.NotTaken, Text: "no session acted by race start"},
				NotificationID: 90207, CreatedAt: at(1),
			},
			{
				ID: "all-errors", Label: "betplan saturday-card all-errors R2",
				Race: race("Moonee Valley", 2, 30), Selection: "3 Gold Trip", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(40), Status: engine.StatusFailed, Reason: hostile,
				Why:            reason.Why{Code: reason.SessionRefused, Text: hostile},
				NotificationID: 90208, CreatedAt: at(2),
				Records: []engine.Record{
					{Bookie: "bet365", DisplayName: "Main", SubmitResult: "Error", SubmitError: "Odds changed | price 2.10 <b>now</b>", Status: "FAILED"},
					{Bookie: "sportsbet", DisplayName: "Sportsbet 2", SubmitResult: "Error", SubmitError: "Account limited\nplease contact support", Status: "FAILED"},
				},
			},
			{
				ID: "create-timeout", Label: "betplan saturday-card create-timeout R3",
				Race: race("Moonee Valley", 3, 60), Selection: "10 Alligator Blood", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(20), Status: engine.StatusFailed, Reason: "creating the notification failed",
				Why:   reason.Why{Code: reason.CreateRefused, Text: "creating the notification failed"},
				Error: "create notification: POST /notification/create/: 503 Service Unavailable",
			},
			{
				ID: "second-thoughts", Label: "betplan saturday-card second-thoughts R4",
				Race: race("Moonee Valley", 4, 95), Selection: "2 Mo'unga", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(10), Status: engine.StatusCanceled, Reason: "cancelled by betplan cancel",
				Why:            reason.Why{Code: reason.Cancelled, Text: "cancelled by betplan cancel"},
				NotificationID: 90209, CreatedAt: at(3),
			},
			{
				ID: "country-cup-quaddie-leg-with-a-very-long-id", Label: "betplan saturday-card country cup leg 1 R6",
				InstanceID: "country-cup-quaddie-leg-with-a-very-long-id@murrumbidgee-turf-club-wagga-wagga-gold-cup-carnival-synthetic-track-r6",
				Race:       race("Murrumbidgee Turf Club Wagga Wagga Gold Cup Carnival Synthetic Track", 6, 130),
				Selection:  "11 A Horse With An Unusually Long Name Indeed", Type: "Fixed Wager", Market: "Fixed Win",
				Stake: money(5.5), Status: engine.StatusSettled, Reason: "lost",
				NotificationID: 90210, CreatedAt: at(4),
				Records: []engine.Record{
					{Bookie: "bet365", DisplayName: "Main", Amount: 5.5, Odds: 12, SubmitResult: "Success", Status: "SETTLED", Profit: -5.5},
				},
				AmountAccepted: 5.5, Profit: -5.5, Final: true,
			},
		},
	}
	r.ComputeTotals()
	return r
}

func planResult() *engine.Result {
	r := &engine.Result{
		Kind:       engine.KindPlan,
		PlanName:   "saturday-card",
		PlanFile:   "examples/saturday-card.yaml",
		PlanHash:   "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Version:    "v0.3.0",
		BaseURL:    "https://bets.example.com.au",
		StartedAt:  at(0),
		FinishedAt: at(0).Add(1500 * time.Millisecond),
		EndReason:  "completed",
		Limits: engine.LimitsSummary{
			Limits: plan.Limits{Period: plan.PeriodPlan, Set: limit.Set{
				limit.MaxStakePerBet:  limit.Amount(50),
				limit.MaxTotalStake:   limit.Amount(100),
				limit.MaxBets:         limit.Count(5),
				limit.MaxOpenStake:    limit.Amount(60),
				limit.MaxStakePerRace: limit.Amount(40),
				limit.MaxBetsPerRace:  limit.Count(2),
			}},
			Committed:   30,
			Planned:     45,
			CreatedBets: 2,
			Periods: []engine.PeriodUsage{{Words: "the plan (all time)",
				PlanEnv: plan.PlanEnv{Staked: 95, OpenStake: 75, Bets: 4}, Planned: 65, PlannedBets: 2}},
		},
		Bets: []engine.BetResult{
			{ID: "early-fav", Label: "betplan saturday-card early-fav R3", Race: race("Flemington", 3, 40),
				Selection: "4 Pride Of Jenni", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(10),
				AtRisk: 20, AtRiskBasis: "$10.00 × 2: 2 sessions with a running bot (Main, Sportsbet 2)",
				Status: engine.StatusWaiting, Action: engine.ActionCreate, Reason: "ready"},
			{ID: "late-money", Label: "betplan saturday-card late-money R6", Race: race("Flemington", 6, 145),
				Selection: "1 Anamoe", Type: "Fixed Wager", Market: "Fixed Win", TargetProfit: money(35),
				AtRisk: 45, AtRiskBasis: "$22.50 a session at most ($35.00 profit at odds of at least 2.5) × 2: 2 sessions with a running bot (Main, Sportsbet 2)",
				Status: engine.StatusWaiting, Action: engine.ActionCreate},
			{ID: "drifter", Label: "betplan saturday-card drifter R9", Race: race("Randwick", 9, 250),
				Selection: "5 I Wish I Win", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(10),
				Status: engine.StatusWaiting, Action: engine.ActionWait, Reason: "when: odds 4.60 > 3.50 (max)"},
			{ID: "rain-check", Label: "betplan saturday-card rain-check R2", Race: race("Caulfield", 2, 20),
				Selection: "6 Mr Brightside", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(10),
				Status: engine.StatusSkipped, Action: engine.ActionSkip, Reason: "race started; condition never true"},
			{ID: "box-trial", InstanceID: "box-trial@randwick-r7", Label: "betplan saturday-card box trial R7", Race: race("Randwick", 7, 180),
				Selection: "3", Type: "Tote", Market: "Tote Win", Stake: money(20),
				Status: engine.StatusCreated, Action: engine.ActionAdopt, Reason: "a notification labelled \"betplan saturday-card box trial R7\" exists (id 90215)",
				NotificationID: 90215},
			{ID: "market-mover", Label: "betplan saturday-card market-mover R8", Race: race("Randwick", 8, 215),
				Selection: "9 Nature Strip", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(10),
				Status: engine.StatusPlaced, Action: engine.ActionNone, Reason: "created by an earlier run",
				NotificationID: 90216, AmountAccepted: 10},
			{ID: "phantom", Label: "betplan saturday-card phantom", Race: engine.RaceInfo{Venue: "Nowhere Downs", EventNumber: 12},
				Selection: "1", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(5),
				Status: engine.StatusUnresolved, Action: engine.ActionUnresolved, Reason: "no race Nowhere Downs R12 on 2025-03-01"},
			{ID: "big-punt", Label: "betplan saturday-card big-punt R5", Race: race("Murrumbidgee Turf Club Wagga Wagga Gold Cup Carnival Synthetic Track", 5, 110),
				Selection: "2 Verry Elleegant", Type: "Fixed Wager", Market: "Fixed Win", Stake: money(80),
				Status: engine.StatusWaiting, Action: engine.ActionRefuse, Reason: "stake $80.00 is over max_stake_per_bet $50.00 | " + "<script>"},
		},
	}
	r.ComputeTotals()
	return r
}

// bigResult is n settled or failing bets over a day of racing, for size
// limits and benchmarks.
func bigResult(n int) *engine.Result {
	r := runResult()
	r.Bets = make([]engine.BetResult, n)
	statuses := engine.Statuses()
	for i := range r.Bets {
		st := statuses[i%len(statuses)]
		r.Bets[i] = engine.BetResult{
			ID:    fmt.Sprintf("bet-%05d", i),
			Label: fmt.Sprintf("betplan big bet-%05d", i),
			Race: engine.RaceInfo{Venue: "Murrumbidgee Turf Club Wagga Wagga Gold Cup Carnival", Code: "Galloping",
				EventNumber: i%10 + 1, Start: at(i % 600)},
			Selection: fmt.Sprintf("%d Some Horse | With <odd> *name*", i%14+1), Type: "Fixed Wager", Market: "Fixed Win",
			Stake: money(float64(i%50) + 0.25), Status: st, Reason: "a reason that is fairly long, as reasons from the engine tend to be | <b>",
			NotificationID: int64(100000 + i), CreatedAt: at(i % 600), Final: i%3 != 0,
			Records: []engine.Record{
				{Bookie: "bet365", DisplayName: "Main", Amount: 10, Odds: 2.5, SubmitResult: "Success", Status: "SETTLED", Profit: float64(i%7 - 3)},
				{Bookie: "sportsbet", DisplayName: "Sportsbet 2", SubmitResult: "Error", SubmitError: "Insufficient funds"},
			},
			AmountAccepted: 10, Profit: float64(i%7 - 3),
		}
	}
	r.ComputeTotals()
	return r
}
