package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// alertTargets expands the account's and the plan's notify targets from
// the environment; a
// variable not set is a usage error before any request, except in a
// rehearsal, which goes on without that target: a punter rehearses a plan
// long before its secrets are set.
func alertTargets(sys *sysIO, p *plan.Plan, account *plan.Config, rehearsal bool) ([]notify.Target, error) {
	type target struct {
		file string
		t    plan.NotifyTarget
	}
	var all []target
	if account != nil {
		for _, t := range account.Notify {
			all = append(all, target{account.Filename, t})
		}
	}
	for _, t := range p.Notify {
		all = append(all, target{p.Filename, t})
	}
	var out []notify.Target
	for _, a := range all {
		t := a.t
		ts, err := notify.Targets(a.file, []plan.NotifyTarget{t}, sys.Getenv)
		var unset *plan.UnsetVariableError
		switch {
		case err != nil && rehearsal && errors.As(err, &unset):
			fmt.Fprintf(sys.Stderr, "rehearsal without the notify target at %s:%d: %v\n", a.file, t.Line, unset)
		case err != nil:
			return nil, &invalidError{err}
		default:
			out = append(out, ts...)
		}
	}
	return out, nil
}

// planAlerts is where a plan's alerts go (its own and its account's
// targets) and its heartbeat URL ("" for none), each checked before any
// request.
func planAlerts(sys *sysIO, p *plan.Plan, account *plan.Config, rehearsal bool) ([]notify.Target, string, error) {
	targets, err := alertTargets(sys, p, account, rehearsal)
	if err != nil {
		return nil, "", err
	}
	hb, err := heartbeatURL(sys, p, rehearsal)
	if err != nil {
		return nil, "", err
	}
	return targets, hb, nil
}

// alertUnusable tells the alert targets of the plans of a run that could
// not start: the service unusable at its connection check (an
// unusableError), or the shared state out of reach before it. One
// problem, one run_failed alert to each target that hears it, however
// many of the run's plans list it. Any other error (a usage error, no
// confirmation, something other than the service at the URL) tells no
// one.
func alertUnusable(sys *sysIO, err error, planNames []string, targets [][]notify.Target) {
	var unusable *unusableError
	var unavailable *state.StateUnavailableError
	if !errors.As(err, &unusable) && !errors.As(err, &unavailable) {
		return
	}
	told := map[string]bool{}
	for i, name := range planNames {
		var ts []notify.Target
		for _, t := range targets[i] {
			if !told[t.ID()] {
				told[t.ID()] = true
				ts = append(ts, t)
			}
		}
		for _, u := range engine.SendRunFailure(engine.Options{}, ts, name, err) {
			fmt.Fprintf(sys.Stderr, "betplan: run_failed alert to %s not delivered (%s)\n", u.Target, u.Error)
		}
	}
}

// heartbeatURL expands the plan's heartbeat URL ("" for none). A rehearsal
// never requests it: it would tell the heartbeat's service that real runs
// are happening.
func heartbeatURL(sys *sysIO, p *plan.Plan, rehearsal bool) (string, error) {
	if p.Heartbeat == "" {
		return "", nil
	}
	if rehearsal {
		fmt.Fprintf(sys.Stderr, "rehearsal: the heartbeat is not requested\n")
		return "", nil
	}
	u, err := plan.ExpandNotifyURL(p.Heartbeat, sys.Getenv)
	if err == nil {
		err = plan.CheckNotifyURL(u)
	}
	if err != nil {
		return "", invalidf("%s: heartbeat: %w", p.Filename, err)
	}
	return u, nil
}

// heartbeatURLFor is hb with the run's exit status, in the form its
// service reads: Cronitor's telemetry takes state and status_code in the
// query; healthchecks.io (and the rest) the status appended to the path,
// URL/0 for success, URL/3 for a refusal.
func heartbeatURLFor(hb string, code int) (string, error) {
	u, err := url.Parse(hb)
	if err != nil {
		return "", err
	}
	host := strings.ToLower(u.Hostname())
	if host == "cronitor.link" || strings.HasSuffix(host, ".cronitor.link") || strings.HasSuffix(host, ".cronitor.io") {
		q := u.Query()
		state := "complete"
		if code != exitOK {
			state = "fail"
		}
		q.Set("state", state)
		q.Set("status_code", strconv.Itoa(code))
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + strconv.Itoa(code)
	return u.String(), nil
}

// heartbeatUnlessSimulation is heartbeat, unless the service turned out to
// be a simulation (simulation, once connected, says so): a rehearsal must
// not tell the heartbeat's service that real runs happen.
func heartbeatUnlessSimulation(ctx context.Context, sys *sysIO, hb string, code int, simulation func() bool) {
	if simulation != nil && simulation() {
		fmt.Fprintf(sys.Stderr, "the service is a simulation: the heartbeat is not requested\n")
		return
	}
	heartbeat(ctx, sys, hb, code)
}

// heartbeat requests hb with the run's exit status (heartbeatURLFor), so
// its service notices both failed runs and runs that stopped happening.
// It never changes how the run exits.
func heartbeat(ctx context.Context, sys *sysIO, hb string, code int) {
	target, err := heartbeatURLFor(hb, code)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), notify.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader([]byte("exit "+strconv.Itoa(code)+"\n")))
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", "betplan")
	// The alerts' client: no redirect followed with the body, plain http
	// only on loopback.
	resp, err := notify.NewClient(nil).Do(req)
	where := plan.RedactURL(hb)
	if err != nil {
		fmt.Fprintf(sys.Stderr, "betplan: heartbeat to %s not sent: the request failed\n", where)
		return
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		fmt.Fprintf(sys.Stderr, "betplan: heartbeat to %s answered %s\n", where, resp.Status)
	}
}
