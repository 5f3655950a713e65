package cli

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// One account, three plans and every state a bet's money can be in: a
// placed win, a settled loss, a bet cancelled after its session placed it,
// a bet in doubt, a bet a limit refused and a lay. The gate, the prompt,
// plan DIR, status, doctor, every report format, the alerts and history
// show the same staked, at-risk and profit figures to the cent, on a
// state dir and on PostgreSQL alike.
func TestOneAccountSameMoneyInEveryView(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	for _, store := range []string{"state dir", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			state := "--state-dir=" + filepath.Join(dir, "state")
			if store == "postgres" {
				u, _ := pgtest.Schema(t)
				state = "--state=" + u
			}
			sameMoneyEverywhere(t, dir, state)
		})
	}
}

func sameMoneyEverywhere(t *testing.T, dir, state string) {
	clock := &jumpClock{}
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.FixedZone("AEDT", 11*3600))
	clock.advance(time.Until(at))
	svc := sim.New(sim.Options{Seed: 1, Clock: clock})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	rc := newReceiver(0)
	defer rc.srv.Close()
	env := []string{"BETPLAN_BASE_URL=" + srv.URL, "BETPLAN_TOKEN=" + svc.Token(), "HOOK=" + rc.srv.URL + "/hook"}

	var gallops []sim.RaceInfo
	for _, r := range svc.Races() {
		if r.Code == "Galloping" && r.Start.After(clock.Now()) {
			gallops = append(gallops, r)
		}
	}
	require.GreaterOrEqual(t, len(gallops), 3)
	r0, r1, r2 := gallops[0], gallops[1], gallops[2]
	loser := func(r sim.RaceInfo) string {
		for _, x := range r.Runners {
			if x != svc.Winner(r) {
				return x
			}
		}
		return ""
	}
	race := func(r sim.RaceInfo) string {
		return fmt.Sprintf("{venue: %s, code: Galloping, event_number: %d}", r.Venue, r.EventNumber)
	}
	plans := filepath.Join(dir, "plans")
	require.NoError(t, os.MkdirAll(plans, 0o755))
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(plans, name), []byte(body), 0o644))
	}
	notify := "notify:\n  - url: ${HOOK}\n    on: [summary]\n"
	defaults := "defaults: {market: Fixed Win, type: Fixed Wager, target_session: \"4417\"}\n"
	write("betplan.yaml", "version: 1\nlimits: {period: day, max_total_stake: 500, max_loss: 300}\n")
	write("a.yaml", "version: 1\nname: a\nlimits: {period: day, max_stake_per_bet: 20, max_total_stake: 100}\n"+notify+defaults+
		"bets:\n  - {id: a1, race: "+race(r0)+", selection: \""+svc.Winner(r0)+"\", stake: 10}\n"+
		"  - {id: a2, race: "+race(r1)+", selection: \""+r1.Runners[0]+"\", stake: 6}\n")
	write("b.yaml", "version: 1\nname: b\nlimits: {period: day, max_stake_per_bet: 20, max_total_stake: 100}\n"+notify+defaults+
		"bets:\n  - {id: b1, race: "+race(r0)+", selection: \""+loser(r0)+"\", stake: 8}\n"+
		"  - {id: b2, race: "+race(r2)+", selection: \""+r2.Runners[0]+"\", stake: 3, when: race.minutes_to_start <= 60}\n")
	write("c.yaml", "version: 1\nname: c\nlimits: {period: day, max_stake_per_bet: 200, max_total_stake: 300, max_bets: 1}\n"+notify+defaults+
		"bets:\n  - {id: c1, race: "+race(r1)+", selection: \""+r1.Runners[1]+"\", market: Lay Win, stake: 4, options: {check_max_odds: true, max_odds: 50}}\n"+
		"  - {id: c2, race: "+race(r2)+", selection: \""+r2.Runners[1]+"\", stake: 5, when: race.minutes_to_start <= 600}\n")

	bp := func(args ...string) (string, string, int) {
		t.Helper()
		return betplanExec(t, dir, env, append(args, state)...)
	}
	// The first cron run: a1, a2, b1 and c1 created; c2 held back by c's
	// max_bets (exit 3: a cap first reached); b2 waits for its window.
	out, errs, code := bp("run", "plans", "--yes", "--no-wait")
	require.Equal(t, exitRefused, code, "%s\n%s", out, errs)
	require.Equal(t, 4, svc.NotificationCount(), errs)
	// Each plan's summary alert says the money its report says.
	summaries := map[string]map[string]any{}
	for _, m := range rc.received() {
		if m["event"] == "summary" {
			summaries[str(m["plan"])] = m["totals"].(map[string]any)
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		var rep struct {
			Totals struct {
				AtRisk float64 `json:"at_risk"`
				Profit float64 `json:"profit"`
			} `json:"totals"`
		}
		raw, err := os.ReadFile(filepath.Join(reportDir(dir, state, name), "report.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &rep))
		if tot := summaries[name]; assert.NotNil(t, tot, "%s's summary alert", name) {
			assert.EqualValues(t, rep.Totals.AtRisk, tot["at_risk"], "%s: summary alert at risk", name)
			assert.EqualValues(t, rep.Totals.Profit, tot["profit"], "%s: summary alert profit", name)
		}
	}
	clock.advance(10 * time.Second) // the bots place them

	// a2 is cancelled after its session placed it: its $6 stays on.
	out, errs, code = bp("cancel", "plans/a.yaml", "--yes", "a2")
	require.Equal(t, 0, code, "%s\n%s", out, errs)
	require.Contains(t, errs, "cancelled a2 after it was placed")

	// r0 runs and is resulted: a1 won, b1 lost.
	clock.advance(r0.Start.Sub(clock.Now()) + 5*time.Minute)
	// b2's window opens; its create lands and the answer never comes: in doubt.
	f, err := parseFault("POST /notification/create/ commit+timeout:1m")
	require.NoError(t, err)
	svc.InjectFault(f)
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "run", "plans/b.yaml", "--yes", "--no-wait", "--http-timeout", "2m", state)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{"BETPLAN_TEST_EXEC_MAIN=1", "GITHUB_STEP_SUMMARY=", "CI=",
		"HOME=" + filepath.Join(dir, "home"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}, env...)...)
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return svc.NotificationCount() == 5 }, 30*time.Second, 20*time.Millisecond, "b2's create reached the service")
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_ = cmd.Wait()
	svc.ClearFaults()

	// Every view now, one after the other: nothing moves between them.
	statusJSON, errs, code := bp("status", "plans", "--format", "json")
	require.Contains(t, []int{0, 1}, code, errs)
	var summary struct {
		Plans []struct {
			Name   string `json:"name"`
			Totals struct {
				AtRisk float64 `json:"at_risk"`
				Profit float64 `json:"profit"`
			} `json:"totals"`
		} `json:"plans"`
		Account struct {
			AtRisk float64 `json:"at_risk"`
			Profit float64 `json:"profit"`
		} `json:"account"`
	}
	require.NoError(t, json.Unmarshal([]byte(statusJSON), &summary), statusJSON)
	staked, profit := summary.Account.AtRisk, summary.Account.Profit
	t.Logf("status: staked %.2f, profit %.2f", staked, profit)
	// What the bets are: a1 $10 won, b1 $8 lost, a2 $6 placed then
	// cancelled, b2 $3 in doubt, c1 a lay at its liability, c2 refused.
	require.Greater(t, profit, -8.0, "a1 won and b1 lost $8")
	require.Greater(t, staked, 10+8+6+3+4.0, "the lay counts its liability, above its $4 stake")

	statusText, _, _ := bp("status", "plans")
	accountRow := regexp.MustCompile(`(?m)^ *account +\d+ .*\$[\d.]+ +\$([\d.]+) +\$[\d.]+ +([-+]?\$[\d.]+)`).FindStringSubmatch(statusText)
	require.NotNil(t, accountRow, statusText)
	assert.Equal(t, money(staked), "$"+accountRow[1], "status's table at risk")
	assert.Equal(t, plusSigned(profit), accountRow[2], "status's table profit")

	// plan DIR: the account's limits, used today.
	planText, errs, _ := bp("plan", "plans")
	used := regexp.MustCompile(`(?m)^At risk, day 2026-11-28 +(\$[\d.]+) `).FindAllStringSubmatch(planText, -1)
	require.NotEmpty(t, used, "%s\n%s", planText, errs)
	accountUsed := ""
	for _, u := range used {
		accountUsed = u[1] // the account's table follows each plan's
	}
	assert.Equal(t, money(staked), accountUsed, "plan DIR's account limits")

	// doctor: the account's use today.
	doctorText, errs, _ := bp("doctor", "plans")
	assert.NotContains(t, doctorText, "day 2026-11-27", "today is the races' meeting day, not UTC's")
	doc := regexp.MustCompile(`max_total_stake +(\$[\d.]+) at risk of \$500\.00`).FindStringSubmatch(doctorText)
	require.NotNil(t, doc, "%s\n%s", doctorText, errs)
	assert.Equal(t, money(staked), doc[1], "doctor's account:\n%s", doctorText)
	worst := regexp.MustCompile(`max_loss +worst case (-?\$[\d.]+) if every open bet lost \(settled (-?\$[\d.]+)`).FindStringSubmatch(doctorText)
	require.NotNil(t, worst, doctorText)
	assert.Equal(t, signed(profit), worst[2], "doctor's settled profit")

	// Each plan's reports: the JSON's totals add up to the account's, and
	// its account section says the same; the text, HTML and JUnit show it.
	var sumRisk, sumProfit float64
	for _, p := range summary.Plans {
		repDir := reportDir(dir, state, p.Name)
		raw, err := os.ReadFile(filepath.Join(repDir, "report.json"))
		require.NoError(t, err, "report of %s", p.Name)
		var rep struct {
			Totals struct {
				AtRisk float64 `json:"at_risk"`
				Profit float64 `json:"profit"`
			} `json:"totals"`
			Account struct {
				Periods []struct {
					Period string  `json:"period"`
					Staked float64 `json:"staked"`
					Profit float64 `json:"profit"`
				} `json:"periods"`
			} `json:"account"`
		}
		require.NoError(t, json.Unmarshal(raw, &rep))
		assert.Equal(t, p.Totals.AtRisk, rep.Totals.AtRisk, "%s: report.json and status at risk", p.Name)
		assert.Equal(t, p.Totals.Profit, rep.Totals.Profit, "%s: report.json and status profit", p.Name)
		sumRisk += rep.Totals.AtRisk
		sumProfit += rep.Totals.Profit
		require.NotEmpty(t, rep.Account.Periods, "%s: report.json's account", p.Name)
		assert.Equal(t, staked, rep.Account.Periods[len(rep.Account.Periods)-1].Staked, "%s: report.json's account staked", p.Name)
		assert.Equal(t, profit, rep.Account.Periods[len(rep.Account.Periods)-1].Profit, "%s: report.json's account profit", p.Name)
		shows := map[string]string{
			"report.txt":  "at risk " + money(p.Totals.AtRisk) + "  accepted",
			"report.md":   "at risk **" + money(p.Totals.AtRisk) + "**",
			"report.html": `<div class="v ">` + money(p.Totals.AtRisk) + `</div><div class="l">At risk</div>`,
			"report.xml":  `<property name="at_risk" value="` + strconv.FormatFloat(p.Totals.AtRisk, 'f', 2, 64) + `">`,
		}
		for f, want := range shows {
			b, err := os.ReadFile(filepath.Join(repDir, f))
			require.NoError(t, err)
			assert.Contains(t, string(b), want, "%s: %s", p.Name, f)
		}
	}
	assert.InDelta(t, staked, sumRisk, 0.001, "the plans' at risk add up to the account's")
	assert.InDelta(t, profit, sumProfit, 0.001, "the plans' profits add up to the account's")

	// The account's gate: a bet that would take the account past its
	// max_total_stake is refused with what the account committed.
	d := filepath.Join(dir, "d.yaml")
	require.NoError(t, os.WriteFile(d, []byte("version: 1\nname: d\nlimits: {period: day, max_stake_per_bet: 300, max_total_stake: 300}\n"+defaults+
		"bets:\n  - {id: d1, race: "+race(r2)+", selection: \""+r2.Runners[2]+"\", stake: 290, when: race.minutes_to_start <= 600}\n"), 0o644))
	out, errs, code = bp("run", d, "--yes", "--no-wait", "--config", filepath.Join(plans, "betplan.yaml"))
	require.Equal(t, exitRefused, code, "%s\n%s", out, errs)
	gate := regexp.MustCompile(`account max_loss \$300\.00 in day 2026-11-28: if every open bet and this one lost, the profit would be -\$[\d.]+ \(settled (-?\$[\d.]+), (\$[\d.]+) open at risk`).FindStringSubmatch(out + errs)
	require.NotNil(t, gate, "the gate's refusal:\n%s\n%s", out, errs)
	assert.Equal(t, signed(profit), gate[1], "the gate's settled profit")
	assert.Regexp(t, `(?m)^At risk, day 2026-11-28 +`+regexp.QuoteMeta(money(staked))+` +\$500\.00$`, out, "the refused run's account table")

	// history: the settled profit, on either store.
	hist, errs, code := bp("history", "--format", "json")
	require.Equal(t, 0, code, "%s\n%s", hist, errs)
	var h struct {
		Total struct {
			Profit float64 `json:"profit"`
		} `json:"total"`
	}
	require.NoError(t, json.Unmarshal([]byte(hist), &h), hist)
	assert.Equal(t, profit, h.Total.Profit, "history's total profit:\n%s", hist)
}

func money(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

func plusSigned(v float64) string {
	if v > 0 {
		return "+" + money(v)
	}
	return signed(v)
}

func signed(v float64) string {
	if v < 0 {
		return "-" + money(-v)
	}
	return money(v)
}

// reportDir is where a plan's reports are, with the state flag given.
func reportDir(dir, state, name string) string {
	if strings.Contains(state, "postgres") {
		return filepath.Join(dir, "plans", ".betplan", "report", name)
	}
	return filepath.Join(dir, "state", "report", name)
}
