package plan_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/betplan/betplan/limit"
	"github.com/betplan/betplan/plan"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // the diagnostics, as Diagnostic.String
	}{
		{"limits", "version: 1\nlimits:\n  period: day\n  max_total_stake: 50\n", nil},
		{"no limits", "version: 1\n", []string{"betplan.yaml:1:1: warning: the account file has no limits: add limits (max_total_stake, max_loss) to bound what every plan together may spend"}},
		{"missing version", "limits: {max_bets: 3}\n", []string{"betplan.yaml:1:1: the account file is missing version: add version: 1 at the top"}},
		{"a plan's key", "version: 1\nname: x\n", []string{
			"betplan.yaml:1:1: warning: the account file has no limits: add limits (max_total_stake, max_loss) to bound what every plan together may spend",
			`betplan.yaml:2:1: unknown field "name" in account file (fields: version, limits, notify)`}},
		{"a limit as a plan's", "version: 1\nlimits: {max_loss: -5}\n", []string{
			"betplan.yaml:2:20: max_loss must be more than 0, got -5: write the most the period may lose as a positive amount (max_loss: 50 never risks going below -$50), or leave it out"}},
		{"empty", "", []string{"betplan.yaml:1:1: the account file is empty"}},
		{"a notify event unknown", "version: 1\nlimits: {max_bets: 3}\nnotify:\n  - {url: \"${HOOK}\", on: [placed, setled]}\n", []string{
			`betplan.yaml:4:35: unknown alert event "setled": notify events are placed, not_placed, missed, settled, limit, in_doubt, run_failed, summary, stopped, plan_invalid, token_expiring; did you mean "settled"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, diags := plan.ParseConfig("betplan.yaml", []byte(tt.src))
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			equal(t, tt.want, got)
			check(t, (c == nil) == diags.HasErrors(), "a config comes back exactly when there is no error")
		})
	}
	c, _ := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {max_total_stake: 50}\n"))
	equal(t, limit.Set{limit.MaxTotalStake: limit.Amount(50)}, c.Limits.Set)
	equal(t, plan.PeriodPlan, c.Limits.Period)

	// The account's targets, read as a plan's are.
	c, diags := plan.ParseConfig("betplan.yaml", []byte("version: 1\nlimits: {max_bets: 3}\nnotify:\n  - url: ${HOOK}\n    on: [limit]\n  - url: ${CHAT}\n"))
	check(t, !diags.HasErrors(), "valid: %v", diags)
	equal(t, 2, len(c.Notify))
	equal(t, []string{"limit"}, c.Notify[0].On)
	equal(t, plan.DefaultAlertEvents(), c.Notify[1].On)
	equal(t, 6, c.Notify[1].Line)
}

func TestFindConfig(t *testing.T) {
	write := func(path string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte("version: 1\n"), 0o644))
	}
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	write(filepath.Join(repo, plan.ConfigFileName))
	write(filepath.Join(root, plan.ConfigFileName)) // above the repository: never the plans'
	got, err := plan.FindConfig(filepath.Join(repo, "plans", "weekend", "card.yaml"))
	must(t, err)
	equal(t, filepath.Join(repo, plan.ConfigFileName), got)

	// The nearest one wins.
	write(filepath.Join(repo, "plans", plan.ConfigFileName))
	got, err = plan.FindConfig(filepath.Join(repo, "plans", "weekend", "card.yaml"))
	must(t, err)
	equal(t, filepath.Join(repo, "plans", plan.ConfigFileName), got)

	// Outside a repository: the plan's own directory only.
	loose := filepath.Join(root, "loose", "plans")
	got, err = plan.FindConfig(filepath.Join(loose, "card.yaml"))
	must(t, err)
	equal(t, "", got)
	write(filepath.Join(loose, plan.ConfigFileName))
	got, err = plan.FindConfig(filepath.Join(loose, "card.yaml"))
	must(t, err)
	equal(t, filepath.Join(loose, plan.ConfigFileName), got)

	check(t, plan.IsAccountFile("plans/betplan.yaml") && !plan.IsAccountFile("plans/betplan.yml") && !plan.IsAccountFile("plans/card.yaml"), "IsAccountFile names betplan.yaml only")
}

// An account file is known by what it holds, whatever its name; a plan,
// a half-written plan and what is not YAML are not taken for one.
func TestLooksLikeAccountFile(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		want      bool
	}{
		{"limits", "version: 1\nlimits: {max_loss: 50}\n", true},
		{"notify only", "notify:\n  - url: ${HOOK}\n", true},
		{"version only", "version: 1\n", false},
		{"plan", "version: 1\nname: x\nlimits: {max_loss: 5}\nbets: []\n", false},
		{"plan without a name", "version: 1\nlimits: {max_loss: 5}\nbets: []\n", false},
		{"list", "- limits: {}\n", false},
		{"not yaml", "limits: [\n", false},
		{"two documents", "limits: {}\n---\nlimits: {}\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := plan.LooksLikeAccountFile([]byte(tt.src)); got != tt.want {
				t.Errorf("LooksLikeAccountFile(%q) = %v, want %v", tt.src, got, tt.want)
			}
		})
	}
}
