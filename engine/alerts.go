package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
	"github.com/betplan/betplan/state"
)

// alerting is a run's alerts: the events its bets raised, handed to a
// background sender once each is journalled.
type alerting struct {
	targets []notify.Target
	sender  *notify.Sender
	// earlier are alerts of earlier runs found interrupted mid-attempt:
	// never sent again, and listed in this run's report.
	earlier []AlertResult
	// added are targets new to a plan that already has bets, and before
	// the bets the journal knew as the run started: what those bets had
	// already done when the target was added is not sent to it (the
	// first tick's events), only what they do from then on.
	added  map[string]bool
	before map[string]bool
	ticked bool
	// startSerial is the journal's last entry as the run began; raised
	// counts the events the run journalled for its targets.
	startSerial int64
	raised      int
	mu          sync.Mutex
	notes       []string        // attempts that failed, for the log (written by the run's goroutine)
	failing     map[string]bool // targets with a failed attempt this run

	run alertRun
}

// alertRun is what the alerts read of the run they tell of.
type alertRun struct {
	journal   *Journal
	book      *betBook
	plan      *plan.Plan
	opts      *Options
	clock     Clock
	simulated func() bool
	logf      func(format string, args ...any)
	// logWallf says what the sender did: it works on the wall clock.
	logWallf   func(format string, args ...any)
	checkpoint func(point string)
	// result is a bet as the run's report shows it.
	result func(in *instance) BetResult
	// usage is what the bets of a limit's scope (the plan's, or every
	// plan's of the account) add up to in the period of a race: the
	// book's sums.
	usage func(scope reason.Scope, race RaceInfo) usage
}

// defaultNotifyWithin is how long the end of a run waits for its alerts.
const defaultNotifyWithin = 15 * time.Second

// startAlerts starts the run's sender and hands it what earlier runs
// journalled and did not deliver. It needs the journal (the lock held):
// without it, nil.
func startAlerts(run alertRun) *alerting {
	if run.journal == nil {
		return nil
	}
	r := run
	a := &alerting{targets: r.opts.Notify, startSerial: r.journal.Serial(), run: run}
	a.sender = &notify.Sender{
		Client:  r.opts.NotifyClient,
		Backoff: r.opts.NotifyBackoff,
		Attempting: func(d *notify.Delivery, attempt int) error {
			e := journalEntry{Op: opAlertSending, Alert: &journalAlert{Key: d.Key, Target: d.Target.ID(), Attempt: attempt}}
			if err := r.journal.Record(e); err != nil {
				return err
			}
			r.checkpoint("alert-sending")
			return r.journal.noteInFlight(e)
		},
		Finished: func(d *notify.Delivery, attempt int, o notify.Outcome, err error, gaveUp bool) {
			if o == notify.Delivered {
				r.checkpoint("alert-posted")
			}
			op := opAlertSent
			switch {
			case gaveUp, o == notify.Refused:
				// A redirect answer, or a target alerts may not go to:
				// never tried again, by this run or a later one.
				op = opAlertGivenUp
			case o == notify.NotDelivered:
				op = opAlertFailed
			case o == notify.Unknown:
				op = opAlertUnknown
			}
			e := journalEntry{Op: op, Alert: &journalAlert{Key: d.Key, Target: d.Target.ID(), Attempt: attempt}}
			if err != nil {
				e.Error = err.Error()
				next := "retrying in the background"
				switch o {
				case notify.Unknown:
					next = "it may have arrived, so it is not sent again"
				case notify.Refused:
					next = "not sent again"
				}
				a.noteFailure(d.Target, fmt.Sprintf("alert %s to %s not delivered (attempt %d): %s; %s", d.Message.Event, d.Target.Where(), attempt, e.Error, next))
			}
			_ = r.journal.Record(e) // a journal out of reach stops the run on its own
		},
	}
	r.book.watch() // from here on the alerts take the bets' transitions
	known := r.journal.alertTargets()
	labels := r.journal.Labels()
	for _, t := range a.targets {
		if known[t.ID()] {
			continue
		}
		if len(labels) > 0 {
			if a.added == nil {
				a.added, a.before = map[string]bool{}, map[string]bool{}
				for _, l := range labels {
					a.before[l] = true
				}
			}
			a.added[t.ID()] = true
		}
		// Known from now on, though nothing may be sent to it this run.
		_ = r.journal.Record(journalEntry{Op: opAlertTarget, Alert: &journalAlert{Key: "target", Target: t.ID(), Where: t.Where()}})
	}
	byID := map[string]notify.Target{}
	for _, t := range a.targets {
		byID[t.ID()] = t
	}
	for _, s := range r.journal.Alerts() {
		switch {
		case s.done():
		case s.InFlight:
			// Interrupted while sending: it may have arrived, so it is not
			// sent again.
			why := "interrupted while it was being sent: it may have arrived, so it is not sent again"
			if s.Err != "" {
				why = s.Err
			}
			_ = r.journal.Record(journalEntry{Op: opAlertUnknown, Alert: &journalAlert{Key: s.Key, Target: s.Target}, Error: why})
			var m notify.Message
			_ = json.Unmarshal(s.Body, &m)
			a.earlier = append(a.earlier, AlertResult{Event: s.Event, Bet: m.Instance, Target: s.Where, Outcome: notify.Unknown.String(), Error: why, Attempts: s.Attempts})
		default:
			t, ok := byID[s.Target]
			if !ok {
				continue // a target the plan no longer has
			}
			var m notify.Message
			if json.Unmarshal(s.Body, &m) != nil {
				continue
			}
			a.sender.Start(&notify.Delivery{Key: s.Key, Target: t, Message: &m, Attempts: s.Attempts})
		}
	}
	return a
}

// noteFailure keeps a failed attempt for the log: the first of each
// target in the run, so a target that is down does not flood it.
func (a *alerting) noteFailure(t notify.Target, line string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.failing == nil {
		a.failing = map[string]bool{}
	}
	if a.failing[t.ID()] {
		return
	}
	a.failing[t.ID()] = true
	a.notes = append(a.notes, line)
}

// logAlerts writes the failed attempts noted since the last call.
func (a *alerting) logAlerts() {
	a.mu.Lock()
	notes := a.notes
	a.notes = nil
	a.mu.Unlock()
	for _, n := range notes {
		a.run.logWallf("%s", n)
	}
}

// alertTick raises the events of the bets that moved since the last tick,
// as the book's transitions tell them: each bet once, with every event
// its state has reached (placed and settled when one read showed both),
// and each event once, as the journal keeps what was raised. A bet whose
// event could not be journalled is taken again at the next tick.
func (a *alerting) tick() {
	if a == nil {
		return
	}
	r := a.run
	a.logAlerts()
	named := false
	for _, in := range r.book.takeChanged() {
		if in.label == "" {
			continue
		}
		for _, ev := range betEvents(in) {
			key := in.label + "|" + ev
			if lk := limitKey(in); lk != "" && ev == plan.EventLimit {
				key = lk
			}
			journalled := a.raise(key, in.label, ev, func() *notify.Message {
				if !named {
					// The instance ids reports show ("box1@the-meadows-r5"),
					// named as the run's report will name them.
					r.book.nameInstances()
					named = true
				}
				return a.betMessage(in, ev)
			})
			if !journalled {
				r.book.moved(in)
			}
		}
	}
	a.ticked = true
}

// raise journals event ev (key) for every target that wants it and has
// not had it, and hands it to the sender. The message is built once, and
// only when some target needs it. It reports false when an entry could
// not be journalled: that target has not had the event yet.
func (a *alerting) raise(key, label, ev string, build func() *notify.Message) (journalled bool) {
	return a.raiseTo(key, label, ev, build, nil)
}

// raiseTo is raise for the targets to picks (nil: every one).
func (a *alerting) raiseTo(key, label, ev string, build func() *notify.Message, to func(notify.Target) bool) (journalled bool) {
	journalled = true
	var m *notify.Message
	r := a.run
	for _, t := range a.targets {
		if !t.Wants(ev) || r.journal.Alert(key, t.ID()) != nil || (to != nil && !to(t)) {
			continue
		}
		if !a.ticked && a.added[t.ID()] && a.before[label] {
			_ = r.journal.Record(journalEntry{Op: opAlertSkipped, Alert: &journalAlert{Key: key, Target: t.ID(), Where: t.Where(), Event: ev}})
			continue
		}
		if m == nil {
			m = build()
			m.ID = alertDigest(r.journal.Lineage(), key)
			m.Simulated = r.simulated()
		}
		body, err := json.Marshal(m)
		if err != nil {
			continue
		}
		if err := r.journal.Record(journalEntry{Op: opAlertQueued, Alert: &journalAlert{Key: key, Target: t.ID(), Where: t.Where(), Event: ev, Body: body}}); err != nil {
			r.logf("alert %s to %s not journalled, not sent: %v", ev, t.Where(), err)
			journalled = false
			continue
		}
		a.raised++
		a.sender.Start(&notify.Delivery{Key: key, Target: t, Message: m})
	}
	return journalled
}

// betEvents are the events in has reached.
func betEvents(in *instance) []string {
	var evs []string
	if !in.placedAt.IsZero() {
		evs = append(evs, plan.EventPlaced)
	}
	switch in.status {
	case StatusSkipped:
		if in.why.Code == reason.Missed {
			evs = append(evs, plan.EventMissed)
		}
	case StatusSettled:
		evs = append(evs, plan.EventSettled)
	case StatusNotTaken:
		evs = append(evs, plan.EventNotPlaced)
	case StatusInDoubt:
		evs = append(evs, plan.EventInDoubt)
	case StatusFailed:
		switch in.why.Code {
		case reason.Limit, reason.Stop:
			evs = append(evs, plan.EventLimit)
		case reason.CreateRefused, reason.OddsBound, reason.StakeLimit, reason.InsufficientFunds, reason.LoggedOut,
			reason.MarketUnavailable, reason.SessionRefused, reason.NotTaken:
			evs = append(evs, plan.EventNotPlaced)
		default:
			if in.notifID != 0 {
				evs = append(evs, plan.EventNotPlaced)
			}
		}
	}
	return evs
}

// limitKey is the alert key of a limit (a cap or a stop) that held in
// back: the limit, whose it is and its period, so a limit is told once
// per period, not once for every bet it holds back after it, on this run
// or the next ("" for other bets).
func limitKey(in *instance) string {
	if in.status != StatusFailed || (in.why.Code != reason.Limit && in.why.Code != reason.Stop) {
		return ""
	}
	return "limit|" + in.why.LimitKey() + "|" + in.why.Period
}

// limitRefusedReason begins the reason of a bet a limit refused (create.go).
const limitRefusedReason = "refused by a limit"

// limitWords says what is true once a limit held in back, for the one
// alert of that limit in its period: "no new bets for saturday-card in day
// 2026-11-21: stop_loss $50.00 reached at -$52.40; 2 bets still open,
// $30.00 at risk". Each bet it holds back is in the reports.
func (a *alerting) limitWords(in *instance) string {
	r := a.run
	why := in.why
	text := strings.TrimPrefix(why.Text, limitRefusedReason+": ")
	u := r.usage(why.Scope, in.info)
	scope := r.plan.Name
	if why.Scope == reason.ScopeAccount {
		scope = r.plan.Name + " (the account's limit, every plan together)"
	}
	period := "over all time"
	if why.Period != "" {
		p := r.plan.Limits.Period
		if why.Scope == reason.ScopeAccount && r.opts.Account != nil {
			p = r.opts.Account.Limits.Period
		}
		period = "in " + periodWords(p, why.Period)
		text = strings.Replace(text, " "+period, "", 1) // said once, first
	}
	text = strings.TrimSuffix(text, "; no new bet is created")
	open := fmt.Sprintf("%d %s still open, %s at risk", u.Open, plural(u.Open, "bet", "bets"), usd(u.OpenStake))
	return fmt.Sprintf("no new bets for %s %s: %s; %s", scope, period, text, open)
}

// betMessage is the alert of event ev of in.
func (a *alerting) betMessage(in *instance, ev string) *notify.Message {
	r := a.run
	b := r.result(in)
	m := &notify.Message{
		Event:          ev,
		Plan:           r.plan.Name,
		Bet:            b.ID,
		Instance:       in.name(),
		Label:          b.Label,
		NotificationID: b.NotificationID,
		Status:         string(b.Status),
		Time:           r.clock.Now().UTC().Format(time.RFC3339),
		Race:           raceOf(b.Race),
	}
	switch {
	case b.Stake != nil:
		m.Requested, m.RequestedField = ptr(*b.Stake), "stake"
	case b.TargetProfit != nil:
		m.Requested, m.RequestedField = ptr(*b.TargetProfit), "target_profit"
	}
	if b.AtRisk > 0 {
		m.AtRisk = ptr(b.AtRisk)
	}
	if in.notif != nil {
		m.Accepted = ptr(b.AmountAccepted)
		if o := float64(in.notif.AverageOdds); o > 0 {
			m.Odds = ptr(o)
		}
	}
	name := in.name() + " (" + raceWords(b.Race) + ")"
	switch ev {
	case plan.EventPlaced:
		m.Message = fmt.Sprintf("placed %s: $%.2f accepted", name, b.AmountAccepted)
		if m.Odds != nil {
			m.Message += fmt.Sprintf(" at %.2f", *m.Odds)
		}
		m.Message += " by " + sessionList(in.placedBy)
		if w := oddsPastCap(in); w != "" {
			m.Message += "; " + w
		}
	case plan.EventSettled:
		m.Profit = ptr(b.Profit)
		verdict := "void"
		switch {
		case b.Profit > 0:
			verdict = "won"
		case b.Profit < 0:
			verdict = "lost"
		}
		m.Message = fmt.Sprintf("%s %s: %s on $%.2f accepted", verdict, name, signedMoney(b.Profit), b.AmountAccepted)
	case plan.EventNotPlaced:
		m.Message = "not placed " + name + ": " + in.reason
		m.ReasonCode = string(in.why.Code)
	case plan.EventMissed:
		m.Message = "not created " + name + ": " + in.reason
		m.ReasonCode = string(in.why.Code)
	case plan.EventLimit:
		m.Message = a.limitWords(in)
	case plan.EventInDoubt:
		m.Message = "in doubt " + name + ": " + in.reason
		m.ReasonCode = string(in.why.Code)
	}
	return m
}

func ptr(v float64) *float64 { return &v }

func signedMoney(v float64) string {
	if v < 0 {
		return fmt.Sprintf("-$%.2f", -v)
	}
	return fmt.Sprintf("+$%.2f", v)
}

func raceOf(ri RaceInfo) *notify.Race {
	r := &notify.Race{Venue: ri.Venue, Code: ri.Code, EventNumber: ri.EventNumber}
	if ri.Event != nil {
		r = &notify.Race{Event: ri.Event.Name}
	}
	if !ri.Start.IsZero() {
		r.Start = ri.Start.UTC().Format(time.RFC3339)
	}
	if *r == (notify.Race{}) {
		return nil
	}
	return r
}

func raceWords(ri RaceInfo) string {
	if ri.Event != nil {
		return ri.Event.Name
	}
	if ri.Venue == "" {
		return "race not resolved"
	}
	return fmt.Sprintf("%s R%d", ri.Venue, ri.EventNumber)
}

// alertDigest is an alert's id: the same for the same event of the same
// plan's journal, whichever run sends it.
func alertDigest(lineage, key string) string {
	return lineage + "-" + raceHash("alert", lineage, key, RaceInfo{})
}

// end raises the last events of the run (bets in doubt, its summary, its
// failure, the plan's stop mark once the run saw it), waits a bounded time
// for the sender, and lists in res what was not delivered.
func (a *alerting) end(res *Result, runErr error, stopped *state.StopMark) {
	if a == nil {
		return
	}
	r := a.run
	a.tick()
	if stopped != nil {
		// Once per stop: every cron run of a stopped plan finds the same
		// mark, and a new stop after a resume is told again.
		key := "stopped|" + stopped.At.UTC().Format(time.RFC3339Nano)
		open := r.usage(reason.ScopePlan, RaceInfo{}).OpenStake // every period's
		a.raise(key, "", plan.EventStopped, func() *notify.Message {
			return stoppedMessage(r.plan.Name, r.opts.PlanFile, *stopped, res, open, r.clock.Now())
		})
	}
	why, failed := runFailure(res, runErr)
	// A cron run (--no-wait) or a run of a stopped plan that did nothing
	// new sends no summary: every few minutes, it would bury the alerts
	// that matter. A summary is one per state of the plan's bets (its
	// key says what it sums): a cron run over a completed plan finds the
	// summary of that state journalled, and sends nothing new.
	quiet := res.EndReason == EndNoWait || res.EndReason == EndStopped
	// A served run let go (a reload, a take-over, SIGTERM) ends nothing
	// the user waits to hear of: its summary comes when its bets are done.
	letGo := r.opts.Serve != nil && res.EndReason == EndInterrupted
	state := resultDigest(res)
	if !letGo && (failed || a.raised > 0 || !quiet || a.createdThisRun()) {
		summary := runSummary(r.plan.Name, res, r.clock.Now())
		a.raise("summary|"+state, "", plan.EventSummary, func() *notify.Message { return summary })
	}
	if failed {
		// One problem, one alert: the same failure met again by the next
		// run is not told again.
		a.raise("run_failed|"+state+"|"+digest(why), "", plan.EventRunFailed, func() *notify.Message { return failureMessage(r.plan.Name, why, r.clock.Now()) })
	}
	within := r.opts.NotifyWithin
	if within <= 0 {
		within = defaultNotifyWithin
	}
	left := a.sender.Close(within)
	a.logAlerts()
	res.Alerts = append(res.Alerts, a.earlier...)
	for _, u := range left {
		out := u.Outcome.String()
		if u.GaveUp {
			out = "given up"
		} else if u.Outcome == notify.NotDelivered {
			out += ": the next run tries again"
		}
		res.Alerts = append(res.Alerts, AlertResult{Event: u.Delivery.Message.Event, Bet: u.Delivery.Message.Instance, Target: u.Delivery.Target.Where(), Outcome: out, Error: u.Err, Attempts: u.Attempts})
	}
	// One line per target: the report lists each alert.
	var where []string
	byTarget := map[string][]AlertResult{}
	for _, a := range res.Alerts {
		if byTarget[a.Target] == nil {
			where = append(where, a.Target)
		}
		byTarget[a.Target] = append(byTarget[a.Target], a)
	}
	for _, w := range where {
		as := byTarget[w]
		last := as[len(as)-1]
		// The outcome says "not delivered" already: say it once.
		next := strings.TrimPrefix(strings.TrimPrefix(last.Outcome, notify.NotDelivered.String()), ": ")
		if next != "" {
			next = "; " + next
		}
		r.logWallf("%d %s to %s not delivered (%s)%s; the report lists them", len(as), plural(len(as), "alert", "alerts"), w, last.Error, next)
	}
}

// createdThisRun reports whether the run announced a create. A cron run
// (--no-wait) that created nothing, and whose bets did nothing new, sends
// no summary: every few minutes, it would bury the alerts that matter.
func (a *alerting) createdThisRun() bool {
	return a.run.journal.announcedSince(a.startSerial)
}

// sendUnjournalledFailure sends a run's failure when the run never held
// its journal: nothing else happened to tell.
func sendUnjournalledFailure(opts Options, planName string, simulated bool, now time.Time, res *Result, runErr error) {
	why, ok := runFailure(res, runErr)
	if !ok {
		return
	}
	m := failureMessage(planName, why, now)
	m.Simulated = simulated
	s := &notify.Sender{Client: opts.NotifyClient, Backoff: opts.NotifyBackoff}
	for _, t := range opts.Notify {
		if t.Wants(plan.EventRunFailed) {
			s.Start(&notify.Delivery{Key: "run|" + plan.EventRunFailed, Target: t, Message: m})
		}
	}
	within := opts.NotifyWithin
	if within <= 0 {
		within = defaultNotifyWithin
	}
	for _, u := range s.Close(within) {
		res.Alerts = append(res.Alerts, AlertResult{Event: plan.EventRunFailed, Target: u.Delivery.Target.Where(), Outcome: u.Outcome.String(), Error: u.Err, Attempts: u.Attempts})
	}
}

// runFailure says whether a run ends with exit 1 or 3 and why, in one
// line: an error or refusal that ended it, or a bet that failed.
// Interrupted runs exit otherwise.
func runFailure(res *Result, runErr error) (string, bool) {
	if errors.Is(runErr, context.Canceled) || res.EndReason == EndInterrupted {
		return "", false
	}
	// A limit that refused the run is doing its job: its own alert says
	// so, once; only the bets that failed besides it are a failure.
	limit := res.EndReason == EndRefused && res.Refusal == reason.Limit
	if res.Error != "" && !limit {
		return res.Error, true
	}
	if runErr != nil && !limit {
		return runErr.Error(), true
	}
	if !res.BetsFailed() {
		return "", false
	}
	var parts []string
	for _, s := range []Status{StatusInDoubt, StatusFailed, StatusNotTaken, StatusUnresolved} {
		if n := res.Totals.ByStatus[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.Words()))
		}
	}
	if len(parts) == 0 {
		return "something failed; see the report", true
	}
	return "finished with " + strings.Join(parts, ", "), true
}

func failureMessage(planName, why string, now time.Time) *notify.Message {
	return &notify.Message{Event: plan.EventRunFailed, Plan: planName, Status: "failed", Time: now.UTC().Format(time.RFC3339), Message: "run failed: " + why}
}

// runSummary is a run's summary alert: its totals, as the report shows
// them.
func runSummary(planName string, res *Result, now time.Time) *notify.Message {
	t := res.Totals
	by := map[string]int{}
	var words []string
	for _, s := range Statuses() {
		if n := t.ByStatus[s]; n > 0 {
			by[string(s)] = n
			words = append(words, fmt.Sprintf("%d %s", n, s.Words()))
		}
	}
	won, lost := 0, 0
	for _, b := range res.Bets {
		if b.Status == StatusSettled {
			switch {
			case b.Profit > 0:
				won++
			case b.Profit < 0:
				lost++
			}
		}
	}
	line := fmt.Sprintf("run %s: %d %s", res.EndReason, t.Bets, plural(t.Bets, "bet", "bets"))
	if len(words) > 0 {
		line += " (" + strings.Join(words, ", ") + ")"
	}
	line += fmt.Sprintf("; %d won, %d lost; $%.2f accepted, profit %s", won, lost, t.AmountAccepted, signedMoney(t.Profit))
	return &notify.Message{
		Event:   plan.EventSummary,
		Plan:    planName,
		Status:  string(res.EndReason),
		Time:    now.UTC().Format(time.RFC3339),
		Totals:  &notify.Totals{Bets: t.Bets, ByStatus: by, Staked: t.StakeRequested, AtRisk: t.AtRisk, Accepted: t.AmountAccepted, Profit: t.Profit, EndedBy: string(res.EndReason)},
		Message: line,
	}
}

// stoppedMessage is the alert that a plan is stopped: nothing more is
// created, and what its open bets have at risk (open) stays on.
func stoppedMessage(planName, planFile string, mark state.StopMark, res *Result, open float64, now time.Time) *notify.Message {
	m := runSummary(planName, res, now)
	m.Event = plan.EventStopped
	m.Message = fmt.Sprintf("plan %s is %s: no bet is created until `%s`; $%.2f stays at risk on bets not resulted yet", planName, mark, ResumeCommand(planFile), open)
	return m
}

// resultDigest names the state of a result's bets: how it ended and where
// each bet stands, with its money. Two runs that leave the plan the same
// give the same digest.
func resultDigest(res *Result) string {
	var b strings.Builder
	b.WriteString(string(res.EndReason))
	for i := range res.Bets {
		x := &res.Bets[i]
		fmt.Fprintf(&b, "\x00%s\x00%s\x00%s\x00%s\x00%.2f\x00%.2f", x.Label, x.InstanceID, x.Status, x.Why.Code, x.AmountAccepted, x.Profit)
	}
	return digest(b.String())
}

// digest is a short hash of s, for alert keys.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// ResumeCommand is the command that lets a stopped plan's runs create
// again.
func ResumeCommand(planFile string) string {
	if planFile == "" {
		return "betplan stop --resume PLAN"
	}
	return "betplan stop --resume " + planFile
}
