package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// A tipster plan publishes picks to the subscribers of a tip package
// (POST /pick/tipster/publish/). The service has no label on tips and no
// way to list them, so the plan's journal is the only thing that knows a
// tip went out: every publish call is announced (`publishing`, fsync'd)
// before it is sent and recorded (`published`) after. A call whose
// outcome is unknown (a timeout, a dropped connection, a 5xx) may have
// reached subscribers: its tips are reported unknown and never sent again
// by a run on its own; `run --republish TIP-ID` is the deliberate way.
// The pre-alert (which wakes subscribers' bots) is journalled the same
// way, once per race.

// TipsterBackend is the calls of a tip package; *apiclient.Client
// satisfies it.
type TipsterBackend interface {
	PublishTips(ctx context.Context, apikey string, tips []apiclient.PublishTip) (*apiclient.TipsterAnswer, error)
	SendPrealert(ctx context.Context, apikey string) (*apiclient.TipsterAnswer, error)
}

// TipStatus is where one tip of a plan stands. The strings are part of the
// report.json contract.
type TipStatus string

// The statuses of a tip.
const (
	TipWaiting    TipStatus = "waiting"    // its when is not true yet
	TipSkipped    TipStatus = "skipped"    // its race started before it was published
	TipUnresolved TipStatus = "unresolved" // its race could not be found
	TipPublished  TipStatus = "published"  // the service took it
	TipUnknown    TipStatus = "unknown"    // a publish was sent and may have gone out: never re-sent by itself
	TipFailed     TipStatus = "failed"     // the service refused it, or it could not be sent
)

// TipStatuses lists every tip status in report order.
func TipStatuses() []TipStatus {
	return []TipStatus{TipWaiting, TipSkipped, TipUnresolved, TipPublished, TipUnknown, TipFailed}
}

// The outcomes of a published tip at its race.
const (
	TipWon  = "won"
	TipLost = "lost"
	TipVoid = "void"
)

// tipInstance is one tip of the plan on one race.
type tipInstance struct {
	tip  *plan.Tip
	race *apiclient.Race // nil when unresolved or known only from the journal
	info RaceInfo
	key  string

	status      TipStatus
	reason      string
	err         string
	attempts    int
	publishedAt time.Time
	answer      string // what the service said
	republish   bool   // --republish names it and its outcome is unknown

	action Action // plan previews: what run would do now

	alertKey string // the key of its race's pre-alert, once needed

	result  string   // the race's result, runner numbers joined by "/"
	outcome string   // won, lost, void; "" until known
	units   *float64 // units won (+) or lost (-) at the tipped odds
	final   bool
}

func (in *tipInstance) open() bool {
	return !in.final && (in.status == TipWaiting || in.status == TipPublished)
}

// alertInstance is the pre-alert of one race.
type alertInstance struct {
	key    string
	info   RaceInfo
	status string // waiting, sent, unknown, failed
	reason string
	sentAt time.Time
	path   string
}

// The statuses of a pre-alert.
const (
	AlertWaiting = "waiting"
	AlertSent    = "sent"
	AlertUnknown = "unknown"
	AlertFailed  = "failed"
	AlertSkipped = "skipped" // no tip of the race was left to publish
)

// tipRun is a command's tips: the instances and what it learnt.
type tipRun struct {
	insts     []*tipInstance
	byKey     map[string]*tipInstance
	alerts    map[string]*alertInstance
	alertKeys []string
	expanded  bool
	// stop, once set, says why nothing more is published this run.
	stop string
	// path is the pre-alert path that answered, for the report.
	path string
	// resultsAt is when the last results scan ran.
	resultsAt time.Time
	warned    bool // the saved-plan notice was logged
	noted     bool // --republish was checked against the journal
}

func (r *tracker) hasTips() bool { return len(r.plan.Tips) > 0 }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// resultsEvery is how often a run reads the account's notifications for
// the results of races with published tips.
const resultsEvery = time.Minute

// followResults reads the results of the races of published tips once
// they have run. The service shows a race's result only on notifications:
// the account's own on the race (the tipster's copy of the tip, when it
// follows its package, or any bet of its own) give it. A race nothing of
// the account's is on has no result to read; after unresultedAfter its
// tip is final with the result unknown.
func (r *tracker) followResults(ctx context.Context, now time.Time) error {
	var want []*tipInstance
	for _, in := range r.tips.insts {
		if in.status != TipPublished || in.final || in.info.Start.IsZero() || now.Before(in.info.Start) {
			continue
		}
		want = append(want, in)
	}
	if len(want) == 0 || (!r.tips.resultsAt.IsZero() && now.Sub(r.tips.resultsAt) < resultsEvery) {
		return nil
	}
	r.tips.resultsAt = now
	oldest := want[0].info.Start
	for _, in := range want {
		if in.info.Start.Before(oldest) {
			oldest = in.info.Start
		}
	}
	results := map[string]string{}
	_, err := r.eachPage(ctx, func(page []apiclient.Notification) bool {
		older := true
		for i := range page {
			n := &page[i]
			info := notificationRace(n)
			if res := strings.TrimSpace(n.Tip.Competition.Result); res != "" {
				if _, seen := results[resultKey(info)]; !seen {
					results[resultKey(info)] = res
				}
			}
			if n.CreatedAt.IsZero() || !n.CreatedAt.Time.Before(oldest.Add(-24*time.Hour)) {
				older = false
			}
		}
		return !older
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.logf("tip results: %v", err)
	}
	for _, in := range want {
		res, ok := results[resultKey(in.info)]
		if !ok {
			if now.After(in.info.Start.Add(unresultedAfter)) {
				in.final = true
				in.reason = fmt.Sprintf("no result to read %s after the start: nothing in the account is on the race (follow your own package to read results)", unresultedAfter)
			}
			continue
		}
		in.result = res
		in.outcome, in.units = tipOutcome(in.tip, res)
		in.final = true
		switch in.outcome {
		case "":
			in.reason = "the result " + res + " does not settle the tip"
		case TipVoid:
			in.reason = "void (result " + res + ")"
		default:
			in.reason = fmt.Sprintf("%s %+.2f units at %.2f (result %s)", in.outcome, *in.units, in.tip.Odds, res)
		}
		r.logf("tip %s on %s R%d: %s", in.tip.ID, in.info.Venue, in.info.EventNumber, in.reason)
	}
	return nil
}

// resultKey is a race's identity for matching results: venue, code,
// number and meeting date.
func resultKey(info RaceInfo) string {
	return fmt.Sprintf("%s|%s|%d|%s", plan.FoldVenue(info.Venue), strings.ToLower(info.Code), info.EventNumber, meetingDate(info.Start))
}

// tipOutcome settles a tip against its race's result at the tipped odds:
// a win market needs the runner first, a place market in the first three,
// Same Race Multi every R:P leg (runner R in the first P); a lay tip wins
// when the back bet loses. Won: +units × (odds − 1); lost: −units (a lay
// loses units × (odds − 1)); a void result returns the stake.
func tipOutcome(t *plan.Tip, result string) (string, *float64) {
	zero := 0.0
	if strings.EqualFold(strings.TrimSpace(result), "VOID") {
		return TipVoid, &zero
	}
	order := strings.Split(result, "/")
	for i := range order {
		order[i] = strings.TrimSpace(order[i])
	}
	type leg struct {
		runner string
		top    int
	}
	var legs []leg
	if t.Market == plan.MarketSameRaceMulti {
		for _, p := range strings.Split(t.Selection, ",") {
			r, top, _ := strings.Cut(strings.TrimSpace(p), ":")
			n := 0
			fmt.Sscan(top, &n)
			legs = append(legs, leg{r, n})
		}
	} else {
		top := 1
		if strings.Contains(t.Market, "Place") {
			top = 3
		}
		legs = []leg{{strings.TrimSpace(t.Selection), top}}
	}
	won := true
	for _, l := range legs {
		pos := slices.Index(order, l.runner) + 1
		switch {
		case pos > 0 && pos <= l.top:
		case pos == 0 && len(order) < l.top:
			return "", nil // the result lists too few runners to tell
		default:
			won = false
		}
	}
	units := t.AmountUnits
	lay := strings.HasPrefix(t.Market, "Lay")
	var v float64
	switch {
	case lay && !won:
		v = units
	case lay:
		v = -units * (t.Odds - 1)
	case won:
		v = units * (t.Odds - 1)
	default:
		v = -units
	}
	v = roundCents(v)
	if v >= 0 {
		return TipWon, &v
	}
	return TipLost, &v
}

// tipsDone reports whether every tip is final: published and resulted,
// or past being published.
func (r *tracker) tipsDone() bool {
	for _, in := range r.tips.insts {
		if in.open() {
			return false
		}
	}
	return true
}

// tipsWaiting counts the tips still to be published.
func (r *tracker) tipsWaiting() int {
	n := 0
	for _, in := range r.tips.insts {
		if in.status == TipWaiting && !in.final {
			n++
		}
	}
	return n
}

// fillTips writes the tips, pre-alerts and what was assumed into res.
func (r *tracker) fillTips(res *Result) {
	if !r.hasTips() {
		return
	}
	index := map[*plan.Tip]int{}
	for i, t := range r.plan.Tips {
		index[t] = i
	}
	insts := slices.Clone(r.tips.insts)
	sort.SliceStable(insts, func(i, j int) bool {
		a, b := insts[i], insts[j]
		if index[a.tip] != index[b.tip] {
			return index[a.tip] < index[b.tip]
		}
		return a.info.Start.Before(b.info.Start)
	})
	res.Tips = res.Tips[:0]
	for _, in := range insts {
		t := in.tip
		tr := TipResult{
			ID: t.ID, Key: in.key, Race: in.info, Market: t.Market, Selection: t.Selection,
			AmountUnits: t.AmountUnits, Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
			Confidence: t.Confidence, Status: in.status, Action: in.action, Reason: in.reason, PublishedAt: in.publishedAt,
			Attempts: in.attempts, Answer: in.answer, Result: in.result, Outcome: in.outcome, Final: in.final, Error: in.err,
		}
		if strings.HasPrefix(in.key, "unresolved:") {
			tr.Key = ""
		}
		if in.units != nil {
			u := *in.units
			tr.Units = &u
		}
		res.Tips = append(res.Tips, tr)
	}
	res.Prealerts = res.Prealerts[:0]
	for _, k := range r.tips.alertKeys {
		a := r.tips.alerts[k]
		if a.status == AlertWaiting && !r.alertNeeded(a) {
			a.status, a.reason = AlertSkipped, "not sent: no tip of the race was left to publish"
			if r.tips.stop != "" {
				a.reason = "not sent: " + r.tips.stop
			}
		}
		res.Prealerts = append(res.Prealerts, PrealertResult{Race: a.info, Status: a.status, Reason: a.reason, SentAt: a.sentAt, Path: a.path})
	}
	res.Assumptions = r.tipAssumptions()
}

// tipAssumptions says what a tipster run assumed where the service's
// shapes are not known (service facts §9).
func (r *tracker) tipAssumptions() []string {
	out := []string{
		"Publish body: the docs' flat variant, which matches the spec (competition is the venue's name); confidence and analysis, from the docs' nested variant, are sent as extra fields when set and may be ignored by the service.",
		"Publish answer: any 2xx is taken as published ({\"status\": \"Success\"} is documented); a 2xx with another status is reported unknown.",
		"Publish outcome: the service has no label on tips and no list of them, so betplan's journal is the only record of what was published; a call that timed out, lost its connection or got a 5xx may have gone out: its tips are reported unknown and never sent again by themselves (`betplan run --republish TIP-ID` does).",
		"Race results: read from a notification on the same race in the account (the tipster's own copy of a tip, when it follows its package); without one a tip's result stays unknown.",
		"Units won or lost, at the tipped odds: a win market needs the runner first, a place market in the first three, Same Race Multi every R:P leg; a lay tip wins its units when the runner loses and loses units × (odds − 1) when it wins; a void result returns the units.",
	}
	if r.plan.Prealert != nil {
		path := "not sent yet"
		if r.tips.path != "" {
			path = r.tips.path + " answered"
		}
		out = append(out, fmt.Sprintf("Pre-alert: POST %s (the spec), then %s (the docs) when the first answers 404; %s. Body {\"apikey\"} only: the pre-alert is for the package, so betplan sends one per race, %s before the race's first tip.", apiclient.PrealertMessagePath, apiclient.PrealertDocPath, path, shortDuration(r.plan.Prealert.Before)))
	}
	return out
}

// ActionPublish is a preview's tip that is ready: run would publish it now.
const ActionPublish Action = "publish"

// previewTips says for each tip what run would do now (betplan plan).
func (r *tracker) previewTips(res *Result, now time.Time) error {
	if !r.hasTips() {
		return nil
	}
	if err := r.expandTips(); err != nil {
		return err
	}
	r.followTipJournal()
	for _, in := range r.tips.insts {
		switch {
		case in.status == TipUnresolved:
			in.action = ActionUnresolved
		case in.status == TipPublished:
			in.action, in.reason = ActionNone, "published by an earlier run at "+in.publishedAt.UTC().Format(time.RFC3339)
		case in.status == TipUnknown:
			in.action = ActionNone
		case in.race == nil || !now.Before(in.race.StartTime.Time):
			in.action, in.status, in.reason = ActionSkip, TipSkipped, "the race has started"
		default:
			env := r.env(in.race, now)
			ready, err := in.tip.Ready(env)
			switch {
			case err != nil:
				in.action, in.status, in.reason = ActionSkip, TipFailed, fmt.Sprintf("evaluating when: %v", err)
			case !ready:
				in.action, in.reason = ActionWait, fmt.Sprintf("waiting for %q (%s)", in.tip.When.String(), in.tip.When.Explain(env))
			default:
				in.action, in.reason = ActionPublish, "ready: run would publish it now"
			}
		}
	}
	r.fillTips(res)
	return nil
}

// statusTips re-reads what the journal knows of the tips and the results
// of their races (betplan status).
func (r *tracker) statusTips(ctx context.Context) error {
	if !r.hasTips() {
		return nil
	}
	if err := r.expandTips(); err != nil {
		return err
	}
	r.followTipJournal()
	now := r.clock.Now()
	for _, in := range r.tips.insts {
		if in.status != TipWaiting {
			continue
		}
		if in.race == nil || !now.Before(in.race.StartTime.Time) {
			in.status, in.final, in.reason = TipSkipped, true, "not published before its race started"
		} else if in.reason == "" {
			in.reason = "not published yet"
		}
	}
	for _, in := range r.tips.insts {
		if in.status != TipUnresolved && r.plan.Prealert != nil {
			r.alert(prealertKey(r.plan.Name, in.info), in.info)
		}
	}
	return r.followResults(ctx, now)
}

// shortDuration is 20m rather than Go's 20m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// checkTipsOnline is validate --online for the tips: each tip's race found
// and its runner in it, each for_each_race matching some race, with the
// races CheckOnline read (no call of its own).
func (r *tracker) checkTipsOnline(now time.Time) plan.Diagnostics {
	var out plan.Diagnostics
	add := func(t *plan.Tip, sev plan.Severity, format string, args ...any) {
		out = append(out, plan.Diagnostic{Severity: sev, Summary: fmt.Sprintf(format, args...),
			Filename: r.plan.Filename, Line: t.Line, Column: t.Column})
	}
	for _, t := range r.plan.Tips {
		if t.ForEachRace != nil {
			n := 0
			for i := range r.races {
				ok, err := t.Matches(r.env(&r.races[i], now))
				if err != nil {
					add(t, plan.SeverityError, "tip %s: for_each_race: %v", t.ID, err)
					break
				}
				if ok {
					n++
				}
			}
			if n == 0 {
				add(t, plan.SeverityWarning, "tip %s: for_each_race matches none of the %d upcoming races", t.ID, len(r.races))
			}
			continue
		}
		rc, why := findRace(r.races, *t.Race)
		if rc == nil {
			add(t, plan.SeverityError, "tip %s: %s", t.ID, why)
			continue
		}
		if why := checkRunners(&instance{bet: &plan.Bet{Selection: t.Selection}, race: rc, info: raceInfo(rc)}); why != "" {
			add(t, plan.SeverityError, "tip %s: %s", t.ID, strings.TrimSuffix(why, ": not created"))
		}
	}
	return out
}
