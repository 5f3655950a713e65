package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/betplan/betplan/plan"
)

// TestExamplesRehearse plays every plan in examples/ on the simulated
// service, as the README tells a newcomer to: each must exit 0 with every
// bet final, so an example can never rot unnoticed. A newcomer runs them
// at any hour, so each plays at now, across the night summer time ends,
// and at times spread over a day (in Sydney: late at night, past
// midnight, morning, the afternoon card, the evening): once, the
// examples taking the hours in turn so that together they play every
// third hour (a rehearsal costs up to two seconds of CPU under -race: 11
// examples at every third hour were 110 of them, and at two hours each
// 44 rehearsals were a third of the package's CPU).
func TestExamplesRehearse(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	day := time.Date(2026, 11, 28, 0, 42, 0, 0, time.UTC)
	for i, file := range files {
		starts := []string{"", "2026-04-05T01:30:00+11:00"} // now; summer time ends at 03:00
		starts = append(starts, day.Add(time.Duration(3*(i%8))*time.Hour).Format(time.RFC3339))
		for _, start := range starts {
			name := filepath.Base(file)
			if start != "" {
				name += "@" + start
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				rehearseExample(t, file, start)
			})
		}
	}
}

func rehearseExample(t *testing.T, file, start string) {
	t.Helper()
	dir := t.TempDir()
	sys, s := testIO(nil)
	stdout, stderr := s.Stdout, s.Stderr
	args := []string{"run", "--sim", "--state-dir", filepath.Join(dir, "state"), "--report-dir", filepath.Join(dir, "report"), file}
	if start != "" {
		args = append(args, "--sim-start", start)
	}
	if code := execute(context.Background(), args, sys); code != exitOK {
		t.Fatalf("betplan %v: exit %d\n%s\n%s", args, code, stderr.String(), stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "report", "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		EndReason string `json:"end_reason"`
		Bets      []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Final  bool   `json:"final"`
		} `json:"bets"`
		Tips []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Final  bool   `json:"final"`
		} `json:"tips"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	if report.EndReason != "completed" {
		t.Errorf("ended %s, want completed", report.EndReason)
	}
	if len(report.Bets)+len(report.Tips) == 0 {
		t.Error("the report lists no bets and no tips")
	}
	for _, bet := range report.Bets {
		if !bet.Final {
			t.Errorf("bet %s is %s, not final", bet.ID, bet.Status)
		}
	}
	// A rehearsed tip is published and resulted: the sim's own package key
	// is set for the rehearsal, and its tipster follows the package.
	for _, tip := range report.Tips {
		if tip.Status != "published" || !tip.Final {
			t.Errorf("tip %s is %s (final %v), want published and resulted", tip.ID, tip.Status, tip.Final)
		}
	}
}

// Every example is in fmt's canonical layout: what a newcomer copies is
// what `betplan fmt --check` accepts.
func TestExamplesAreCanonical(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out, diags := plan.Format(file, src)
		if diags.HasErrors() {
			t.Errorf("%s: %v", file, diags)
			continue
		}
		if !bytes.Equal(out, src) {
			t.Errorf("%s is not in fmt's layout: run betplan fmt -w %s", file, file)
		}
	}
}
