package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileBetplan runs the real binary (this test binary in main mode) in
// dir, killed after the timeout: a command that hangs fails the test
// instead of blocking it.
func hostileBetplan(t *testing.T, dir string, timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BETPLAN_TEST_EXEC_MAIN=1", "GORACE=atexit_sleep_ms=10",
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"),
		"BETPLAN_BASE_URL=", "BETPLAN_TOKEN=", "BETPLAN_EMAIL=", "BETPLAN_PASSWORD=", "GITHUB_STEP_SUMMARY=", "CI=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// The exit status is what is checked; a killed command fails below.
	_ = cmd.Run()
	require.NoError(t, ctx.Err(), "betplan %s did not finish within %s", strings.Join(args, " "), timeout)
	code = cmd.ProcessState.ExitCode()
	return out.String(), errOut.String(), code
}

// TestPlansThatAreNotRegularFiles: a named pipe as the plan (alone, or as
// a *.yaml inside a directory) and /dev/zero are refused at once with
// what they are, by every command that reads a plan; nothing waits on a
// writer or reads without end.
func TestPlansThatAreNotRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "plans"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "plans", "pipe.yaml"), 0o644))
	ok, err := os.ReadFile(filepath.Join("examples", "saturday-card.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plans", "ok.yaml"), ok, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.yaml"), ok, 0o644))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"validate", "pipe.yaml"}, "pipe.yaml: cannot read the plan: not a regular file (a named pipe)"},
		{[]string{"validate", "plans"}, "plans/pipe.yaml: cannot read the plan: not a regular file (a named pipe)"},
		{[]string{"fmt", "-w", "pipe.yaml"}, "pipe.yaml: cannot read the plan: not a regular file (a named pipe)"},
		{[]string{"run", "--sim", "pipe.yaml"}, "pipe.yaml: not a regular file (a named pipe)"},
		{[]string{"plan", "--sim", "pipe.yaml"}, "pipe.yaml: cannot read the plan: not a regular file (a named pipe)"},
		{[]string{"diff", "ok.yaml", "/dev/zero"}, "/dev/zero: cannot read the plan: not a regular file (a character device)"},
		{[]string{"validate", "/dev/zero"}, "/dev/zero: cannot read the plan: not a regular file (a character device)"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, code := hostileBetplan(t, dir, 30*time.Second, tt.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

const bombPlan = `version: 1
name: bomb
vars: {x: "x", n: 1000000}
limits: {max_stake_per_bet: 25, max_total_stake: 100}
defaults: {type: Fixed Wager, market: Fixed Win, target_session: "4417"}
races:
  flem1: {venue: Flemington, code: Galloping, event_number: 1}
bets:
  - id: good
    race: flem1
    selection: "2"
    stake: 5
  - id: bomb
    race: flem1
    selection: "3"
    stake: 5
    when: %s
`

// TestAnExpressionThatBlowsItsBoundFailsItsBetAlone: a when that would
// build a terabyte string fails its bet with the reason while the good
// bet beside it is created; validate refuses the same when written with
// constants, which it can prove never evaluates.
func TestAnExpressionThatBlowsItsBoundFailsItsBetAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, when string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(bombPlan, "%s", when, 1)), 0o644))
	}
	write("vars.yaml", `len(repeat(repeat(vars.x, 999999), vars.n)) > 0`)
	write("const.yaml", `len(repeat(repeat("x", 999999), 1000000)) > 0`)

	_, stderr, code := hostileBetplan(t, dir, 30*time.Second, "validate", "const.yaml")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "const.yaml:17:15: when: invalid expression: this repeat would build a string of 999999000000 bytes")

	stdout, stderr, code := hostileBetplan(t, dir, 60*time.Second, "run", "--sim", "vars.yaml")
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "created good on Flemington Galloping R1")
	assert.Regexp(t, `(?m)^bomb .* not placed`, stdout)
	assert.Contains(t, stdout, "repeat would build a string of 999999000000 bytes, more than the 1048576 an expression may build")
}

// TestAStakePastTheCeilingIsRefused: vars.unit * 1e300 is refused by
// validate at its position, with the value it always gives.
func TestAStakePastTheCeilingIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plan := strings.Replace(strings.Replace(bombPlan, "    when: %s\n", "", 1), "stake: 5\n", "stake: vars.unit * 1e300\n", 2)
	plan = strings.Replace(plan, `vars: {x: "x", n: 1000000}`, `vars: {unit: 5}`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "huge.yaml"), []byte(plan), 0o644))
	_, stderr, code := hostileBetplan(t, dir, 30*time.Second, "validate", "huge.yaml")
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "huge.yaml:12:12: stake: the amount vars.unit * 1e300 is always 5e+300: a bet's stake or target profit is at most $1,000,000")
}

// TestTenThousandProblemsOnOneLine: 10,000 duplicate keys on one flow
// line of a 90 KB plan are reported as the first 100 and a count of the
// rest, each quoting 80 characters around its column, in every format:
// the output stays small instead of growing with the square of the line.
func TestTenThousandProblemsOnOneLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := strings.Repeat("max_bets: 1, ", 10000)
	plan := "version: 1\nname: dup\nlimits: {" + keys + "max_bets: 1}\nbets: []\n"
	require.Greater(t, len(plan), 90_000)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dup.yaml"), []byte(plan), 0o644))
	for _, format := range []string{"text", "json", "github", "sarif"} {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := hostileBetplan(t, dir, 60*time.Second, "validate", "--format", format, "dup.yaml")
			assert.Equal(t, exitUsage, code, stderr)
			out := stdout + stderr
			require.Less(t, len(out), 100_000, "the output grows with the problems")
			assert.Regexp(t, `and 990\d more problems in dup.yaml \(990\d errors, 0 warnings\) not shown`, out)
			if format == "text" {
				assert.Contains(t, out, "\n    … max_bets: 1, max_bets: 1,")
				assert.Equal(t, 99, strings.Count(out, "duplicate key"), "with the warning and the count, 101 problems")
			}
		})
	}
}
