package cli

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// explainOptions are the flags of `betplan explain`.
type explainOptions struct {
	state   stateOptions
	service serviceOptions
	Bet     string
	Format  string
	Refresh bool
}

// explainFormats are explain's output formats.
var explainFormats = []string{"text", "json"}

func explainCommand() *command {
	return &command{
		name:    "explain",
		args:    "PLAN|DIR|GLOB...",
		summary: "what happened to each bet and why, in order, from the journal alone",
		exits: append([]exitDoc{
			{exitOK, "the bets were explained"},
			{exitFailed, "with --refresh: the service could not be read"},
			{exitUsage, "usage error, invalid plan, or a --bet the plan and its journal do not know"},
			{exitRefused, "the state cannot be read (out of reach, a damaged journal), or with --refresh the service cannot be used"},
		}, interruptedExits...),
		examples: `  betplan explain plans/saturday.yaml
  betplan explain plans/dogs.yaml --bet box1@the-meadows-r5
  betplan explain plans/ --format json | jq '.plans[].bets[].now'
  betplan explain --refresh plans/saturday.yaml
`,
		setup: bindTo((*explainOptions).bind, explainBets),
	}
}

func (o *explainOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Bet, "bet", "", "only this `KEY`: a bet id (every race of a for_each_race bet), or an instance id as reports show it (box1@the-meadows-r5)")
	fs.StringVar(&o.Format, "format", "text", "output format: "+strings.Join(explainFormats, ", "))
	fs.BoolVar(&o.Refresh, "refresh", false, "read the service too, as status does, for where each bet stands now (without it, no request is sent)")
	o.state.bind(fs)
	o.service.bind(fs)
}

func (o *explainOptions) validate() error {
	if !slices.Contains(explainFormats, o.Format) {
		return usagef("--format is %s, not %q", strings.Join(explainFormats, " or "), o.Format)
	}
	if o.Bet != "" && strings.TrimSpace(o.Bet) != o.Bet {
		return usagef("--bet %q has spaces around it", o.Bet)
	}
	return o.service.validate()
}

// explainBets is `betplan explain PLAN|DIR|GLOB...`.
func explainBets(ctx context.Context, sys *sysIO, o *explainOptions, args []string) error {
	files, err := (&accountOptions{}).planArgs(sys, args)
	if err != nil {
		return err
	}
	plans, err := loadPlans(sys, files)
	if err != nil {
		return err
	}
	var setup *commandSetup
	if o.Refresh {
		if setup, err = setUp(ctx, sys, &o.service, o.state, nil); err != nil {
			return err
		}
		defer setup.close()
	}
	var in []reporters.ExplainInput
	var refreshErr error
	for i, p := range plans {
		var opts engine.Options
		if setup != nil {
			opts = setup.options(files[i])
		} else if opts, err = o.stateOnly(sys, files[i]); err != nil {
			return err
		}
		stories, err := engine.Explain(ctx, p, opts, o.Refresh)
		if stories == nil {
			return err
		}
		if err != nil && refreshErr == nil {
			refreshErr = err
		}
		in = append(in, reporters.ExplainInput{File: files[i], Stories: stories})
	}
	if o.Bet != "" {
		if in, err = onlyBet(in, o.Bet); err != nil {
			return err
		}
	}
	write := reporters.WriteExplainText
	if o.Format == "json" {
		write = reporters.WriteExplainJSON
	}
	if err := write(sys.Stdout, in); err != nil {
		return err
	}
	return refreshErr
}

// onlyBet keeps the stories of the bet key names, in every plan; a key
// none of them names is a usage error that lists what they have.
func onlyBet(in []reporters.ExplainInput, key string) ([]reporters.ExplainInput, error) {
	var out []reporters.ExplainInput
	known := map[string]bool{}
	for _, p := range in {
		kept := reporters.ExplainInput{File: p.File}
		for _, s := range p.Stories {
			var bets []engine.BetStory
			for _, st := range s.Bets {
				known[st.BetID], known[st.InstanceID] = true, true
				if st.Matches(key) {
					bets = append(bets, st)
				}
			}
			if len(bets) > 0 {
				s.Bets = bets
				kept.Stories = append(kept.Stories, s)
			}
		}
		if len(kept.Stories) > 0 {
			out = append(out, kept)
		}
	}
	if len(out) == 0 {
		ids := make([]string, 0, len(known))
		for id := range known {
			if id != "" {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		return nil, usagef("--bet %s: no bet or instance of that id in the plan or its journal; they are: %s", key, strings.Join(ids, ", "))
	}
	return out, nil
}

// stateOnly is the plan's saved state, with no connection: the journal
// of the service named, or with none named every journal of the plan the
// state keeps (the shared state's own, read without this host's lock).
func (o *explainOptions) stateOnly(sys *sysIO, planFile string) (engine.Options, error) {
	opts, err := stateOnly(sys, &o.service, o.state, planFile)
	if err != nil || opts.BaseURL != "" {
		return opts, err
	}
	shared, err := o.state.sharedStore(sys, o.service.Insecure)
	if err != nil || shared == nil {
		return opts, err
	}
	opts.Store = shared
	return opts, nil
}
