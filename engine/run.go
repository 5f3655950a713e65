package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// Run is `betplan run`: it takes the plan's lock, creates every ready bet
// exactly once and follows outcomes until every bet is final (or, with
// NoWait, until what is ready now was created). The result is complete
// whatever happened; the error says why the run ended early.
func Run(ctx context.Context, p *plan.Plan, opts Options) (*Result, error) {
	r := newRun(p, opts)
	res := r.newResult(KindRun, r.clock.Now())
	err := r.runLocked(ctx, func() error {
		if err := r.start(ctx); err != nil {
			return err
		}
		return r.loop(ctx)
	})
	r.finish(res, err)
	return res, err
}

// runLocked holds the plan's lock and journal around fn.
func (r *run) runLocked(ctx context.Context, fn func() error) error {
	host, _ := os.Hostname()
	owner := LockOwner{PID: os.Getpid(), Host: host, PlanFile: r.opts.PlanFile, Command: "betplan run", Since: time.Now().UTC()}
	lock, err := AcquireLock(ctx, LockPath(r.opts.LockDir, r.plan.Name, r.opts.BaseURL), owner, r.opts.LockTimeout)
	if err != nil {
		return err
	}
	defer lock.Release()
	j, err := OpenJournal(JournalPath(r.opts.StateDir, r.plan.Name))
	if err != nil {
		return err
	}
	defer j.Close()
	r.journal = j
	return fn()
}

// start resolves races and sessions, builds the instances and, when the
// journal is new, recovers what earlier runs created from the service.
func (r *run) start(ctx context.Context) error {
	if err := r.refresh(ctx); err != nil {
		return err
	}
	if r.journal.Fresh() {
		if err := r.recover(ctx); err != nil {
			return err
		}
	}
	if err := r.expand(); err != nil {
		return err
	}
	r.followJournal()
	return nil
}

// recover scans the service's recent notifications for the plan's label
// prefix and adopts them into a new journal: a lost state dir must never
// lead to a second create, nor to limits that forget earlier bets.
func (r *run) recover(ctx context.Context) error {
	found, err := r.scanPrefix(ctx)
	if err != nil {
		return fmt.Errorf("recover earlier bets of the plan: %w", err)
	}
	for _, n := range found {
		betID := betIDFromLabel(r.plan.Name, n.Label)
		amount := float64(n.Stake)
		if strings.EqualFold(n.Type, "Fixed Profit") {
			amount = float64(n.TargetProfit)
		}
		info := RaceInfo{Venue: n.Tip.Competition.Name.First(), Code: n.Tip.Competition.Code,
			EventNumber: int(n.Tip.Competition.EventNumber), Start: n.Tip.Competition.StartTime.Time}
		if err := r.journal.Record(journalEntry{Op: opAdopted, Label: n.Label, BetID: betID, NotificationID: int64(n.ID), Amount: amount, Race: &info}); err != nil {
			return err
		}
		r.logf("recovered %s: notification %d (label %s) from the service", betID, n.ID, n.Label)
	}
	return nil
}

// scanPrefix lists the service's notifications carrying the plan's label
// prefix (bounded pages, newest first), oldest id kept per label.
func (r *run) scanPrefix(ctx context.Context) ([]apiclient.Notification, error) {
	prefix := LabelPrefix(r.plan.Name)
	byLabel := map[string]apiclient.Notification{}
	var order []string
	firstIDs := map[int64]bool{}
	for page := 1; page <= maxScanPages; page++ {
		p, err := r.svc.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: page, PageSize: 100})
		if err != nil {
			return nil, err
		}
		if len(p.Results) == 0 || firstIDs[int64(p.Results[0].ID)] {
			break
		}
		firstIDs[int64(p.Results[0].ID)] = true
		for _, n := range p.Results {
			if !strings.HasPrefix(n.Label, prefix) || betIDFromLabel(r.plan.Name, n.Label) == "" {
				continue
			}
			old, ok := byLabel[n.Label]
			if !ok {
				order = append(order, n.Label)
			}
			if !ok || n.ID < old.ID {
				byLabel[n.Label] = n
			}
		}
		if p.Next == nil {
			break
		}
	}
	out := make([]apiclient.Notification, 0, len(order))
	for _, l := range order {
		out = append(out, byLabel[l])
	}
	return out, nil
}

// betIDFromLabel finds which bet of the plan a label belongs to.
func betIDFromLabel(planName, label string) string {
	rest, ok := strings.CutPrefix(label, LabelPrefix(planName))
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 0 {
		return ""
	}
	return rest[:i]
}

// loop is the tick loop of a run.
func (r *run) loop(ctx context.Context) error {
	timeout := r.plan.Poll.Timeout
	interval := r.plan.Poll.Interval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	began := r.clock.Now()
	for {
		now := r.clock.Now()
		if r.waiting() > 0 && now.Sub(r.lastRefresh) >= r.opts.RefreshEvery {
			if err := r.refresh(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r.logf("refresh: %v", err)
			} else if err := r.expand(); err != nil {
				return err
			}
		}
		for _, in := range r.snapshot() {
			if err := r.decide(ctx, in, r.clock.Now()); err != nil {
				return err
			}
		}
		if err := r.poll(ctx); err != nil {
			return err
		}
		r.progress(now, interval)
		if r.opts.NoWait || r.done() {
			if r.stopCreating != "" {
				return &RefusedError{Reason: r.stopCreating}
			}
			return nil
		}
		if timeout > 0 && r.clock.Now().Sub(began) >= timeout {
			return errTimeout
		}
		if err := r.clock.Sleep(ctx, interval); err != nil {
			return err
		}
	}
}

var errTimeout = errors.New("poll timeout reached before every bet was final")

func (r *run) snapshot() []*instance { return append([]*instance(nil), r.insts...) }

func (r *run) waiting() int {
	n := 0
	for _, in := range r.insts {
		if in.status == StatusWaiting {
			n++
		}
	}
	return n
}

// done reports whether every instance is final.
func (r *run) done() bool {
	for _, in := range r.insts {
		if in.open() || (in.notifID != 0 && !in.final) {
			return false
		}
	}
	return true
}

func (r *run) progress(now time.Time, interval time.Duration) {
	if r.opts.Live == nil {
		return
	}
	p := Progress{Now: now, ByStatus: map[Status]int{}, NextPoll: now.Add(interval)}
	for _, in := range r.insts {
		p.ByStatus[in.status]++
		if in.open() && !in.info.Start.IsZero() && in.info.Start.After(now) && (p.NextRace.IsZero() || in.info.Start.Before(p.NextRace)) {
			p.NextRace = in.info.Start
		}
	}
	r.opts.Live(p)
}

// finish writes what the run learnt into res, whatever ended it.
func (r *run) finish(res *Result, err error) {
	if len(r.insts) == 0 {
		r.unstarted(err)
	}
	r.fill(res)
	switch {
	case err == nil && r.refused != "":
		res.EndReason = "refused"
		res.Error = r.refused
	case err == nil && r.opts.NoWait && !r.done():
		res.EndReason = "no-wait"
	case err == nil:
		res.EndReason = "completed"
	case errors.Is(err, errTimeout):
		res.EndReason = "timeout"
		res.Error = err.Error()
	case errors.Is(err, context.Canceled):
		res.EndReason = "interrupted"
		res.Error = "interrupted before every bet was final"
	case IsRefused(err):
		res.EndReason = "refused"
		res.Error = err.Error()
	default:
		res.EndReason = "error"
		res.Error = err.Error()
	}
	// A safety refusal earlier in the run decides how it ended, whatever
	// stopped it afterwards.
	if r.refused != "" && res.EndReason != "refused" {
		res.Error = fmt.Sprintf("%s (then: %s)", r.refused, res.Error)
		res.EndReason = "refused"
	}
}

// unstarted lists the plan's bets as written when the command ended before
// it could resolve them (a refusal, the lock, the service unreachable), so
// the report still says what was planned and why nothing happened.
func (r *run) unstarted(err error) {
	why := "not started"
	if err != nil {
		why = "not started: " + err.Error()
	}
	// What earlier runs created stays in the report: the journal says so
	// even when another run holds it open.
	if r.journal == nil {
		if j, jerr := ReadJournal(JournalPath(r.opts.StateDir, r.plan.Name)); jerr == nil {
			r.journal = j
		}
	}
	r.followJournal()
	seen := map[string]bool{}
	for _, in := range r.insts {
		seen[in.bet.ID] = true
		if in.notifID != 0 {
			in.reason = "created by an earlier run; " + why
		}
	}
	for _, b := range r.plan.Bets {
		if seen[b.ID] {
			continue
		}
		in := &instance{bet: b, status: StatusWaiting, reason: why, amount: staticAmount(b)}
		if b.Race != nil {
			in.info = RaceInfo{Venue: b.Race.Venue, Code: b.Race.Code, EventNumber: b.Race.EventNumber}
		}
		r.insts = append(r.insts, in)
	}
}

// Refused is the result of a run refused before it began (for example no
// confirmation): every bet as planned, nothing created, no request made.
func Refused(p *plan.Plan, opts Options, reason string) *Result {
	r := newRun(p, opts)
	res := r.newResult(KindRun, r.clock.Now())
	r.finish(res, &RefusedError{Reason: reason})
	return res
}
