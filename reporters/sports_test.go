package reporters_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

// sportsResult is a run of bets on sports events: settled, placed and
// unresolved (named by the plan, never found).
func sportsResult() *engine.Result {
	line := -12.5
	over := 165.5
	r := &engine.Result{
		Kind: engine.KindRun, PlanName: "footy", PlanFile: "examples/sports-day.yaml",
		PlanHash: "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0", Version: "v0.3.0",
		BaseURL: "https://bets.example.com.au", StartedAt: at(0), FinishedAt: at(200), EndReason: "completed",
		Limits: engine.LimitsSummary{Limits: plan.Limits{Set: limit.Set{limit.MaxStakePerBet: limit.Amount(20), limit.MaxTotalStake: limit.Amount(60), limit.MaxBets: limit.Count(3)}}, Committed: 20, CreatedBets: 2},
		Bets: []engine.BetResult{
			{
				ID: "pies-line", Label: "bp:footy:pies-line:4245e2414165",
				Race: engine.RaceInfo{Start: at(20).In(aedt), Event: &engine.EventInfo{ID: "9003", Sport: "AFL", Name: "Collingwood v Carlton",
					Competition: "AFL Premiership", Market: "Line", MarketID: "90031", Selection: "Collingwood", SelectionID: "900303", Handicap: &line}},
				Selection: "Collingwood -12.5", Type: "Fixed Wager", Market: "Line", Stake: money(10),
				Status: engine.StatusSettled, Reason: "won $9.00 (result Collingwood 92 - 78 Carlton)",
				NotificationID: 1007, CreatedAt: at(10), PlacedAt: at(10).Add(3e9), PlacedBy: []string{"Main"},
				Records:        []engine.Record{{Bookie: "42", DisplayName: "Main", Amount: 10, Odds: 1.9, SubmitResult: "Success", Status: "SETTLED", Profit: 9}},
				AmountAccepted: 10, Profit: 9, Final: true,
			},
			{
				ID: "over", Label: "bp:footy:over:0123456789ab",
				Race: engine.RaceInfo{Start: at(20).In(aedt), Event: &engine.EventInfo{ID: "9003", Sport: "AFL", Name: "Collingwood v Carlton",
					Market: "Total Points", MarketID: "90032", Selection: "Over", SelectionID: "900305", Handicap: &over}},
				Selection: "Over 165.5", Type: "Fixed Wager", Market: "Total Points", Stake: money(10),
				Status: engine.StatusPlaced, Reason: "$10.00 accepted at average odds 1.87; awaiting the result",
				NotificationID: 1009, CreatedAt: at(11), PlacedAt: at(11).Add(3e9), PlacedBy: []string{"Main"},
				AmountAccepted: 10,
			},
			{
				ID: "lakers", Race: engine.RaceInfo{Event: &engine.EventInfo{Sport: "NBA", Name: "Lakers v Celtcs", Market: "Head To Head", Selection: "Lakers"}},
				Selection: "Lakers", Type: "Fixed Wager", Market: "Head To Head", Stake: money(10),
				Status: engine.StatusUnresolved, Reason: `no upcoming NBA event "Lakers v Celtcs" is listed; did you mean "Lakers v Celtics"?`, Final: true,
			},
		},
	}
	r.ComputeTotals()
	return r
}

// TestSportsGolden: a bet on an event shows the event where a race goes,
// its selection with the line, and report.json carries the event.
func TestSportsGolden(t *testing.T) {
	sch, err := jsonschema.NewCompiler().Compile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file   string
		format reporters.Format
	}{
		{"sports.json", reporters.FormatJSON},
		{"sports.txt", reporters.FormatText},
		{"sports.md", reporters.FormatMarkdown},
	} {
		t.Run(tt.file, func(t *testing.T) {
			got := render(t, tt.format, sportsResult(), reporters.TextOptions{})
			if tt.format == reporters.FormatJSON {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(got))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("report.json does not match %s: %v", schemaPath, err)
				}
			}
			golden.Check(t, filepath.Join("testdata", tt.file+".golden"), got)
		})
	}
}
