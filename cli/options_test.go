package cli

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestOptionsValidate checks each command's flag combinations and ranges
// without running the command: validate alone decides.
func TestOptionsValidate(t *testing.T) {
	rps := func(v float64) serviceOptions {
		return serviceOptions{MaxRPS: optional[float64]{Value: v, IsSet: true}}
	}
	timeout := func(d time.Duration) serviceOptions {
		return serviceOptions{HTTPTimeout: optional[time.Duration]{Value: d, IsSet: true}}
	}
	run := func(change func(*runOptions)) validator {
		o := &runOptions{AmbiguousGrace: time.Minute, report: reportOptions{Format: "text"}}
		change(o)
		return o
	}
	history := func(change func(*historyOptions)) validator {
		o := &historyOptions{Format: "text", ReconcileRecords: 1, ReconcileMB: 1, ReconcilePages: 1}
		change(o)
		return o
	}
	tests := []struct {
		name string
		opts validator
		want string // "" when valid
	}{
		{"run defaults", run(func(*runOptions) {}), ""},
		{"run grace 1ns", run(func(o *runOptions) { o.AmbiguousGrace = time.Nanosecond }), "--ambiguous-grace 1ns: want at least 1s and at most 1h0m0s (look-ups after an ambiguous create must outlast a slow one)"},
		{"run grace 0", run(func(o *runOptions) { o.AmbiguousGrace = 0 }), "--ambiguous-grace 0s: want at least 1s and at most 1h0m0s (look-ups after an ambiguous create must outlast a slow one)"},
		{"run grace 2h", run(func(o *runOptions) { o.AmbiguousGrace = 2 * time.Hour }), "--ambiguous-grace 2h0m0s: want at least 1s and at most 1h0m0s (look-ups after an ambiguous create must outlast a slow one)"},
		{"run grace 1s", run(func(o *runOptions) { o.AmbiguousGrace = time.Second }), ""},
		{"run negative lock timeout", run(func(o *runOptions) { o.LockTimeout = -5 * time.Second }), "--lock-timeout -5s: want 0 (do not wait) or more"},
		{"run fault without sim", run(func(o *runOptions) { o.rehearsal.Faults.Specs = []string{"/x 500"} }), "--fault injects faults into the simulated service: use it with --sim"},
		{"run bad fault", run(func(o *runOptions) { o.rehearsal.Sim, o.rehearsal.Faults.Specs = true, []string{"/x explode"} }), `fault "/x explode": unknown fault kind "explode" (see --help)`},
		{"run bad format", run(func(o *runOptions) { o.report.Format = "pdf" }), `unknown report format "pdf": want text, json, markdown (md), junit (xml) or html`},
		{"run max-rps 0", run(func(o *runOptions) { o.service = rps(0) }), "--max-rps 0: want between 0.1 and 50 requests per second"},
		{"status max-rps NaN", &statusOptions{report: reportOptions{Format: "text"}, service: rps(math.NaN())}, "--max-rps NaN: want between 0.1 and 50 requests per second"},
		{"cancel max-rps +Inf", &cancelOptions{service: rps(math.Inf(1))}, "--max-rps +Inf: want between 0.1 and 50 requests per second"},
		{"cancel max-rps 50", &cancelOptions{service: rps(50)}, ""},
		{"plan max-rps 0.05", &planOptions{Format: "text", service: rps(0.05)}, "--max-rps 0.05: want between 0.1 and 50 requests per second"},
		{"plan http-timeout 0", &planOptions{Format: "text", service: timeout(0)}, "--http-timeout 0s: want between 1s and 10m0s"},
		{"plan http-timeout 11m", &planOptions{Format: "text", service: timeout(11 * time.Minute)}, "--http-timeout 11m0s: want between 1s and 10m0s"},
		{"plan format junit", &planOptions{Format: "junit"}, `--format for plan is text, json or markdown, not "junit"`},
		{"doctor format", &doctorOptions{Format: "xml"}, `--format "xml": want text or json`},
		{"doctor http-timeout -1s", &doctorOptions{Format: "json", service: timeout(-time.Second)}, "--http-timeout -1s: want between 1s and 10m0s"},
		{"validate format", &validateOptions{Format: "html"}, `--format is text, json, github or sarif, not "html"`},
		{"diff format", &diffOptions{Format: "sarif"}, `--format is text, markdown or json, not "sarif"`},
		{"fmt check and write", &fmtOptions{Check: true, Write: true}, "--check and -w exclude each other: --check changes nothing"},
		{"stop resume with all", &stopOptions{Resume: true, All: true}, "--resume clears plans' stop marks; it does not go with --all or --sessions-off"},
		{"stop negative wait", &stopOptions{Wait: -time.Second}, "--wait -1s: want 0 (do not wait) or more"},
		{"sim off loopback", &simOptions{Addr: "0.0.0.0:8787", Speed: 1}, "--addr 0.0.0.0:8787 is not a loopback address: the simulated service only serves this machine"},
		{"sim speed NaN", &simOptions{Addr: "127.0.0.1:0", Speed: math.NaN()}, "--speed must be positive, got NaN"},
		{"sim fine", &simOptions{Addr: "127.0.0.1:0", Speed: 60}, ""},
		{"history reconcile bounds", history(func(*historyOptions) {}), ""},
		{"history no records", history(func(o *historyOptions) { o.ReconcileRecords = 0 }), "--reconcile-max-records is 0: want 1 or more"},
		{"history negative megabytes", history(func(o *historyOptions) { o.ReconcileMB = -1 }), "--reconcile-max-mb is -1: want 1 or more"},
		{"history no pages", history(func(o *historyOptions) { o.ReconcilePages = 0 }), "--reconcile-max-pages is 0: want 1 or more"},
		{"history megabytes past a terabyte", history(func(o *historyOptions) { o.ReconcileMB = 1<<20 + 1 }), "--reconcile-max-mb is 1048577: want at most 1048576 (a terabyte)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.validate()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			var ue *usageError
			if assert.ErrorAs(t, err, &ue, "a usage error: exit 2") {
				assert.Equal(t, tt.want, ue.msg)
			}
		})
	}
}

func TestGraceWarning(t *testing.T) {
	o := &runOptions{AmbiguousGrace: 10 * time.Second}
	o.service.HTTPTimeout.Value = 30 * time.Second
	assert.Equal(t, "warning: --ambiguous-grace 10s is shorter than the HTTP timeout 30s: a create that lands late may not be found by the look-ups and be created again", o.graceWarning())
	o.rehearsal.Sim = true // a rehearsal's own timeout is 5s
	assert.Empty(t, o.graceWarning())
	o.AmbiguousGrace = time.Minute
	o.rehearsal.Sim = false
	assert.Empty(t, o.graceWarning())
}
