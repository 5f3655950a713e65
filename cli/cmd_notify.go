package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/notify"
)

func notifyCommand() *command {
	return &command{
		name:    "notify",
		args:    "test PLAN|DIR",
		summary: "send a test alert to every notify target of the plan (or of every plan under DIR)",
		exits: []exitDoc{
			{exitOK, "every target took the test alert"},
			{exitFailed, "a target did not take it (each is named by scheme and host)"},
			{exitUsage, "usage error, invalid plan, or a ${NAME} its URL reads is not set"},
		},
		examples: `  export SLACK_URL=slack://...
  betplan notify test plans/saturday.yaml
  betplan notify test plans/
`,
		setup: bindTo(nil, notifyTest),
	}
}

// notifyTest is `betplan notify test PLAN`.
func notifyTest(ctx context.Context, sys *sysIO, _ *noFlags, args []string) error {
	if len(args) == 0 || args[0] != "test" {
		return usagef("the notify command is `betplan notify test PLAN`")
	}
	if len(args) < 2 {
		return usagef("missing the plan file: betplan notify test PLAN (or a directory of plans)")
	}
	// The account file found the usual way ($BETPLAN_CONFIG, or up to the
	// repository root): its targets hear the test too. A directory tests
	// every plan's targets, each target once.
	accounts := &accountOptions{}
	files, err := accounts.planArgs(sys, args[1:])
	if err != nil {
		return err
	}
	type tested struct {
		target notify.Target
		plan   string
	}
	var targets []tested
	seen := map[string]bool{}
	for _, path := range files {
		p, account, err := accounts.loadPlan(sys, path)
		if err != nil {
			return err
		}
		ts, err := alertTargets(sys, p, account, false)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if !seen[t.ID()] {
				seen[t.ID()] = true
				targets = append(targets, tested{t, p.Name})
			}
		}
	}
	if len(targets) == 0 {
		return usagef("%s has no notify targets (nor its account file)", strings.Join(args[1:], " "))
	}
	var failed []string
	for _, tt := range targets {
		t := tt.target
		m := &notify.Message{
			ID:      "test-" + strconv.FormatInt(time.Now().UnixNano(), 36),
			Event:   "test",
			Plan:    tt.plan,
			Time:    time.Now().UTC().Format(time.RFC3339),
			Message: fmt.Sprintf("a test alert: this target is sent %s", strings.Join(t.On, ", ")),
		}
		if o, err := notify.Send(ctx, nil, t, m); err != nil {
			if o != notify.NotDelivered {
				// Refused or unknown: the words say it is not sent again.
				err = fmt.Errorf("%s: %w", o, err)
			}
			fmt.Fprintf(sys.Stdout, "FAILED  %s: %v\n", t.Where(), err)
			failed = append(failed, t.Where())
			continue
		}
		fmt.Fprintf(sys.Stdout, "sent    %s (%s)\n", t.Where(), strings.Join(t.On, ", "))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d targets did not take the test alert: %s", len(failed), len(targets), strings.Join(failed, ", "))
	}
	return nil
}
