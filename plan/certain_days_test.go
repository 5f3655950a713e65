package plan

import (
	"fmt"
	"strings"
	"testing"
)

// The bets certain to be created may fall on different days: under
// period day or week a sum over a total limit (max_total_stake,
// max_open_stake, max_bets), the plan's or the account file's, is a
// warning naming the condition, the run's up-front check deciding. Under
// period plan it stays an error, as do a per-race sum and
// max_stake_per_bet whatever the period.
func TestCertainBetsOverTotalsByPeriod(t *testing.T) {
	const bets = `defaults: {market: Fixed Win, type: Fixed Wager}
bets:
  - {id: b1, race: {venue: Flemington, code: Galloping, event_number: 1}, selection: "1", stake: 30}
  - {id: b4, race: {venue: Flemington, code: Galloping, event_number: 4}, selection: "1", stake: 30}
`
	for _, tt := range []struct {
		period, limits string
		severity       Severity
		says           string
	}{
		{"day", "max_total_stake: 50", SeverityWarning, "if these races fall on one day, run refuses the plan"},
		{"week", "max_total_stake: 50", SeverityWarning, "if these races fall in one week, run refuses the plan"},
		{"plan", "max_total_stake: 50", SeverityError, "run would refuse the plan"},
		{"day", "max_open_stake: 50", SeverityWarning, "if these races fall on one day, run refuses the plan"},
		{"week", "max_bets: 1", SeverityWarning, "if these races fall in one week, run refuses the plan"},
		{"plan", "max_bets: 1", SeverityError, "run would refuse the plan"},
	} {
		t.Run(tt.period+" "+tt.limits, func(t *testing.T) {
			src := fmt.Sprintf("version: 1\nname: days\nlimits: {period: %s, max_stake_per_bet: 30, %s}\n%s", tt.period, tt.limits, bets)
			_, diags := Parse("days.yaml", []byte(src))
			found := false
			for _, d := range diags {
				if strings.Contains(d.Summary, "certain to be created") {
					found = true
					if d.Severity != tt.severity || !strings.Contains(d.Summary, tt.says) {
						t.Errorf("%s: %s, want a %s saying %q", d.Severity, d.Summary, tt.severity, tt.says)
					}
				}
			}
			if !found {
				t.Fatalf("no finding on the certain bets: %v", diags)
			}
			// The account file's limits alike.
			p, _ := Parse("days.yaml", []byte(fmt.Sprintf("version: 1\nname: days\nlimits: {max_stake_per_bet: 30, max_total_stake: 100, max_bets: 5}\n%s", bets)))
			cfg, cd := ParseConfig("betplan.yaml", []byte(fmt.Sprintf("version: 1\nlimits: {period: %s, %s}\n", tt.period, tt.limits)))
			if cd.HasErrors() {
				t.Fatalf("account file: %v", cd)
			}
			ad := CheckAccountLimits(p, "betplan.yaml", cfg.Limits)
			if len(ad) != 1 || ad[0].Severity != tt.severity || !strings.Contains(ad[0].Summary, strings.Replace(tt.says, "run ", "the run ", 1)) {
				t.Errorf("account file: %v, want one %s saying %q", ad, tt.severity, tt.says)
			}
		})
	}
	// A per-race sum and a stake above max_stake_per_bet stay errors under
	// period day.
	oneRace := strings.ReplaceAll(bets, "event_number: 4", "event_number: 1")
	for _, tt := range []struct{ limits, says string }{
		{"max_stake_per_bet: 30, max_stake_per_race: 50, max_total_stake: 500, max_bets: 5", "are on one race and put $60 at risk at least, above max_stake_per_race"},
		{"max_stake_per_bet: 20, max_total_stake: 500, max_bets: 5", "stake 30 is above limits.max_stake_per_bet (20)"},
	} {
		_, diags := Parse("days.yaml", []byte("version: 1\nname: days\nlimits: {period: day, "+tt.limits+"}\n"+oneRace))
		found := false
		for _, d := range diags {
			found = found || (d.Severity == SeverityError && strings.Contains(d.Summary, tt.says))
		}
		if !found {
			t.Errorf("no error saying %q under period day: %v", tt.says, diags)
		}
	}
}
