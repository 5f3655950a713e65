package cli

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// A plan's run gets its engine options from the same flags the same way
// whether it runs alone or with other plans. The test hooks ride on those
// options (checkpointHook, storeHook): each must reach every plan's run on
// both paths, once per plan. (The several-plan path once left storeHook
// out, so the crash tests could not watch a plan's shared store there.)
// Not parallel: it swaps the package's hooks, which in-process runs read.
func TestRunOptionsSameAloneOrTogether(t *testing.T) {
	checkpoint, store := checkpointHook, storeHook
	t.Cleanup(func() { checkpointHook, storeHook = checkpoint, store })
	var checkpoints, stores int
	checkpointHook = func(sys *sysIO) func(string) { checkpoints++; return checkpoint(sys) }
	storeHook = func(sys *sysIO, s state.Store) state.Store { stores++; return store(sys, s) }

	for _, plans := range [][]string{
		{"examples/single-race.yaml"},
		{"examples/single-race.yaml", "examples/each-way.yaml"},
	} {
		checkpoints, stores = 0, 0
		dir := t.TempDir()
		sys, s := testIO(nil)
		args := append([]string{"run", "--sim", "--no-wait", "--state-dir", filepath.Join(dir, "state"), "--report-dir", filepath.Join(dir, "report")}, plans...)
		if code := execute(context.Background(), args, sys); code != exitOK {
			t.Fatalf("betplan %v: exit %d\n%s", args, code, s.Stderr)
		}
		assert.Equal(t, len(plans), checkpoints, "checkpointHook asked once per plan, %d plans", len(plans))
		assert.Equal(t, len(plans), stores, "storeHook asked once per plan, %d plans", len(plans))
	}
}

// Every flag of run that the engine reads reaches engine.Options through
// engineOptions, the one place they are copied; a new flag of runOptions
// must either reach it under its own name or be listed here as one run
// uses before the engine.
func TestRunEngineOptions(t *testing.T) {
	beforeEngine := map[string]string{
		"Yes":       "the confirmation question",
		"NoLimits":  "checkMoneyBound",
		"Republish": "dealt to each plan: planToRun.republish",
	}
	o := &runOptions{Yes: true, NoWait: true, AmbiguousGrace: 7 * time.Second, LockTimeout: 3 * time.Minute, AllowNoBot: true, NoLimits: true, Verbose: true, Republish: []string{"tip-a"}}
	sys, _ := testIO(nil)
	s, err := setUp(context.Background(), sys, &o.service, stateOptions{StateDir: t.TempDir()}, &rehearsalOptions{Sim: true})
	require.NoError(t, err)
	defer s.close()
	p := &plan.Plan{Name: "alpha"}
	account := &plan.Config{}
	targets := []notify.Target{{}}
	opts, err := o.engineOptions(sys, s, planToRun{file: "plans/alpha.yaml", plan: p, account: account, notify: targets, republish: []string{"tip-b"}, rehearsed: []string{"alpha", "beta"}})
	require.NoError(t, err)

	flags, got := reflect.ValueOf(*o), reflect.ValueOf(opts)
	for i := range flags.NumField() {
		f := flags.Type().Field(i)
		if !f.IsExported() {
			continue // the flag groups: the setup's (service, state, report, rehearsal)
		}
		if why, ok := beforeEngine[f.Name]; ok {
			t.Logf("runOptions.%s: used before the engine (%s)", f.Name, why)
			continue
		}
		assert.False(t, flags.Field(i).IsZero(), "the test sets %s", f.Name)
		field := got.FieldByName(f.Name)
		if assert.True(t, field.IsValid(), "runOptions.%s reaches no engine.Options field of its name: copy it in engineOptions, or list it here", f.Name) {
			assert.Equal(t, flags.Field(i).Interface(), field.Interface(), "engine.Options.%s", f.Name)
		}
	}
	assert.Equal(t, "plans/alpha.yaml", opts.PlanFile)
	assert.Same(t, account, opts.Account)
	assert.Equal(t, targets, opts.Notify)
	assert.Equal(t, []string{"tip-b"}, opts.Republish, "each plan its own tips to send again")
	assert.Equal(t, []string{"alpha", "beta"}, opts.RehearsalPlans)
	assert.True(t, opts.Simulated)
}
