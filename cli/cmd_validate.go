package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/plan"
)

// validateOptions are the flags of `betplan validate`.
type validateOptions struct {
	Format  string
	Online  bool
	account accountOptions
	service serviceOptions
}

func validateCommand() *command {
	return &command{
		name:    "validate",
		args:    "PLAN|DIR|GLOB...",
		summary: "check plans offline and report every problem with its position",
		exits: append([]exitDoc{
			{exitOK, "every plan is valid (warnings allowed)"},
			{exitFailed, "with --online: the check against the service failed (an API error)"},
			{exitUsage, "a plan has errors, or a usage error"},
			{exitRefused, "with --online: the service cannot be reached, is not at that URL, or refuses the credentials"},
		}, interruptedExits...),
		examples: `  betplan validate plans/saturday.yaml
  # every plan under a directory, as CI annotations
  betplan validate --format github plans/
  betplan validate 'plans/*.yaml'
`,
		setup: bindTo((*validateOptions).bind, validatePlans),
	}
}

func (o *validateOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "text", "output format: text, json, github (workflow annotations) or sarif (SARIF 2.1.0, for code scanning)")
	fs.BoolVar(&o.Online, "online", false, "also resolve races and sessions against the service (read-only)")
	o.account.bind(fs)
	o.service.bind(fs)
}

func (o *validateOptions) validate() error {
	switch o.Format {
	case "text", "json", "github", "sarif":
	default:
		return usagef("--format is text, json, github or sarif, not %q", o.Format)
	}
	return o.service.validate()
}

// validatePlans is `betplan validate PLAN...`.
func validatePlans(ctx context.Context, sys *sysIO, o *validateOptions, args []string) error {
	if len(args) == 0 {
		return usagef("missing the plan files to validate")
	}
	files, err := planFiles(args)
	if err != nil {
		return err
	}
	var all plan.Diagnostics
	src := map[string][]byte{}
	var plans []*plan.Plan
	var planCount int
	var accounts []string // each account file checked, once
	configs := map[string]*plan.Config{}
	checkAccount := func(path string) *plan.Config {
		path = filepath.Clean(path)
		if slices.Contains(accounts, path) {
			return configs[path]
		}
		accounts = append(accounts, path)
		c, data, diags := plan.LoadConfig(path)
		all = append(all, diags...)
		src[path] = data
		configs[path] = c
		return c
	}
	for _, path := range files {
		if o.account.isAccountFile(sys, path) {
			checkAccount(path)
			continue
		}
		p, data, diags := plan.LoadSource(path)
		if p == nil && plan.LooksLikeAccountFile(data) {
			// An account file under another name is found by no plan:
			// its limits would hold for nothing, silently.
			checkAccount(path)
			all = append(all, strayAccountFile(path))
			continue
		}
		planCount++
		all = append(all, diags...)
		src[path] = data
		if p != nil {
			plans = append(plans, p)
		}
		account, err := o.account.accountFile(sys, path)
		if err != nil {
			return err
		}
		if account != "" {
			if c := checkAccount(account); c != nil && p != nil {
				// What the plan alone is certain to break of the
				// account's limits, the run would refuse.
				all = append(all, plan.CheckAccountLimits(p, filepath.Clean(account), c.Limits)...)
			}
		}
	}
	if o.Online && !all.HasErrors() {
		diags, err := validateOnline(ctx, sys, &o.service, plans)
		if err != nil {
			return err
		}
		all = append(all, diags...)
	}
	switch o.Format {
	case "json":
		err = plan.WriteJSON(sys.Stdout, all)
	case "github":
		err = plan.WriteGitHub(sys.Stdout, all)
	case "sarif":
		err = plan.WriteSARIF(sys.Stdout, all, version)
	default:
		if len(all) > 0 {
			err = plan.WriteText(sys.Stderr, all, src)
		}
		if !all.HasErrors() {
			fmt.Fprintf(sys.Stdout, "%s valid", validWords(planCount, accounts))
			if n := all.Warnings(); n > 0 {
				fmt.Fprintf(sys.Stdout, " (%s)", count(n, "warning"))
			}
			fmt.Fprintln(sys.Stdout)
			if n := perSessionBets(plans); n > 0 {
				have := fmt.Sprintf("%d bets have", n)
				if n == 1 {
					have = "1 bet has"
				}
				fmt.Fprintf(sys.Stdout, "note: %s no target_session: each stakes its amount on every running session, and the limits count it once per session (how many run is known when the plan runs: betplan plan shows it)\n", have)
			}
		}
	}
	if err != nil {
		return err
	}
	if all.HasErrors() {
		summary := fmt.Sprintf("%s, %s", count(all.Errors(), "error"), count(all.Warnings(), "warning"))
		if planCount+len(accounts) > 1 {
			bad := map[string]bool{}
			for _, d := range all {
				if d.Severity == plan.SeverityError {
					bad[d.Filename] = true
				}
			}
			noun := "plans"
			if len(accounts) > 0 {
				noun = "files" // the plans and the account file
			}
			summary += fmt.Sprintf(" in %d of %d %s", len(bad), planCount+len(accounts), noun)
		}
		return &invalidError{errors.New(summary)}
	}
	return nil
}

// perSessionBets counts the bets that name no session: each stakes on
// every session whose bot runs, so what it puts at risk (and what the
// limits count) is its amount times sessions validate cannot know.
func perSessionBets(plans []*plan.Plan) int {
	n := 0
	for _, p := range plans {
		for _, b := range p.Bets {
			if b.TargetSession == "" && !b.StakeIsTotal() {
				n++
			}
		}
	}
	return n
}

// validWords says what validate found valid: "2 plans are", "1 plan and
// the account file betplan.yaml are".
func validWords(plans int, accounts []string) string {
	var parts []string
	if plans > 0 {
		parts = append(parts, count(plans, "plan"))
	}
	for _, a := range accounts {
		parts = append(parts, "the account file "+a)
	}
	if plans == 1 && len(accounts) == 0 || plans == 0 && len(accounts) == 1 {
		return parts[0] + " is"
	}
	return strings.Join(parts, " and ") + " are"
}

// validateOnline resolves each plan's races and sessions against the
// service with read-only calls.
func validateOnline(ctx context.Context, sys *sysIO, so *serviceOptions, plans []*plan.Plan) (plan.Diagnostics, error) {
	conn, err := so.connect(ctx, sys, nil)
	if err != nil {
		return nil, err
	}
	defer conn.close()
	var out plan.Diagnostics
	for _, p := range plans {
		d, err := engine.CheckOnline(ctx, p, conn.client, conn.clock)
		if err != nil {
			return nil, explainAt(conn.baseURL, conn.client.Answered(), err)
		}
		out = append(out, d...)
	}
	return out, nil
}
