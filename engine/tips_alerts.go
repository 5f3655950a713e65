package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// prealerts sends each due pre-alert: a race's is due once its first tip
// would be ready within the plan's prealert.before (the tip's when looked
// at ahead, minute by minute), and at the latest just before that tip
// goes out.
func (r *tipRun) prealerts(ctx context.Context, now time.Time, due []*tipInstance) error {
	pa := r.plan.Prealert
	if pa == nil {
		return nil
	}
	byRace := map[string][]*tipInstance{}
	var keys []string
	for _, in := range r.insts {
		if in.race == nil {
			continue
		}
		if in.alertKey == "" {
			in.alertKey = prealertKey(r.plan.Name, in.info)
		}
		k := in.alertKey
		if _, ok := byRace[k]; !ok {
			keys = append(keys, k)
		}
		byRace[k] = append(byRace[k], in)
	}
	for _, k := range keys {
		tips := byRace[k]
		a := r.alert(k, tips[0].info)
		if a.status != AlertWaiting {
			continue
		}
		pending := false
		late := false
		for _, in := range tips {
			if in.status == TipWaiting && !in.final {
				pending = true
				late = late || slices.Contains(due, in)
			}
		}
		if !pending || !now.Before(tips[0].race.StartTime.Time) {
			continue
		}
		if !late && !r.readyWithin(tips, now, pa.Before) {
			continue
		}
		if err := r.sendPrealert(ctx, a, late); err != nil {
			return err
		}
	}
	return nil
}

// alert is the pre-alert instance of a race, with the journal's state.
func (r *tipRun) alert(key string, info RaceInfo) *alertInstance {
	if a, ok := r.alerts[key]; ok {
		return a
	}
	a := &alertInstance{key: key, info: info, status: AlertWaiting}
	if r.hold.journal != nil {
		if s := r.hold.journal.Pub(key); s != nil {
			switch {
			case s.Published:
				a.status, a.sentAt, a.path = AlertSent, s.At, s.Path
				if r.path == "" {
					r.path = s.Path
				}
			case s.Pending:
				a.status, a.reason = AlertUnknown, "a pre-alert was sent and its outcome is unknown: not sent again"
			}
		}
	}
	r.alerts[key] = a
	r.alertKeys = append(r.alertKeys, key)
	return a
}

// alertNeeded reports whether a tip of the pre-alert's race may still be
// published.
func (r *tipRun) alertNeeded(a *alertInstance) bool {
	for _, in := range r.insts {
		if in.status == TipWaiting && !in.final && in.race != nil && prealertKey(r.plan.Name, in.info) == a.key {
			return true
		}
	}
	return false
}

// readyWithin reports whether a waiting tip of the race would be ready at
// some minute from now to now+before.
func (r *tipRun) readyWithin(tips []*tipInstance, now time.Time, before time.Duration) bool {
	for _, in := range tips {
		if in.status != TipWaiting || in.final {
			continue
		}
		// One environment, moved along the minutes: only the time changes.
		env := r.races.env(in.race, now)
		start := in.race.StartTime.Time
		for d := time.Duration(0); ; d += time.Minute {
			if d > before {
				d = before
			}
			env.Now = now.Add(d)
			env.Race.MinutesToStart = start.Sub(env.Now).Minutes()
			if ok, err := in.tip.Ready(env); err == nil && ok {
				return true
			}
			if d == before {
				break
			}
		}
	}
	return false
}

func (r *tipRun) sendPrealert(ctx context.Context, a *alertInstance, late bool) error {
	if r.opts.TipsterAPIKey == "" {
		a.status, a.reason = AlertFailed, "no tip package API key: set BETPLAN_TIPSTER_APIKEY"
		return nil
	}
	tb, err := r.tipster()
	if err != nil {
		return err
	}
	if err := r.halt.checkStop(); err != nil {
		return err
	}
	info := a.info
	entry := []journalTip{{Key: a.key, Race: &info}}
	record := func(op, why string) error {
		return r.hold.journal.Record(journalEntry{Op: op, Tips: entry, Error: why})
	}
	r.host.checkpoint("announce-prealert")
	if err := record(opPrealerting, ""); err != nil {
		return err
	}
	if r.halt.lockLost() {
		a.status, a.reason = AlertUnknown, "announced as the plan's lock was lost"
		return r.hold.lease.Err()
	}
	if err := r.hold.journal.noteInFlight(journalEntry{Op: opPrealerting, Tips: entry}); err != nil {
		a.status, a.reason = AlertUnknown, "announced, and it could not be noted in this host's intent file"
		return err
	}
	ans, err := tb.SendPrealert(ctx, r.opts.TipsterAPIKey)
	r.host.checkpoint("posted-prealert")
	race := fmt.Sprintf("%s %s R%d", a.info.Venue, a.info.Code, a.info.EventNumber)
	switch {
	case err == nil:
		a.status, a.sentAt, a.path = AlertSent, r.clock.Now(), ans.Path
		r.path = ans.Path
		if late {
			a.reason = "sent just before the race's first tip: it was ready before the pre-alert was due"
		}
		r.host.logf("pre-alert for %s sent (%s)", race, ans.Path)
		entry[0].Path = ans.Path
		return record(opPrealerted, "")
	case ctx.Err() != nil:
		a.status, a.reason = AlertUnknown, "interrupted while the service was answering"
		return ctx.Err()
	case apiclient.IsAmbiguous(err), apiclient.IsServerError(err):
		a.status, a.reason = AlertUnknown, "it may have gone out ("+err.Error()+"): not sent again"
		r.host.logf("pre-alert for %s: %v; not sent again", race, err)
		return record(opPrealertUnknown, err.Error())
	case isNotSent(err), apiclient.IsRateLimited(err):
		a.reason = "the last pre-alert did not reach the service (" + err.Error() + "); trying again"
		return record(opPrealertAbsent, err.Error())
	}
	a.status, a.reason = AlertFailed, "the service refused the pre-alert: "+err.Error()
	r.host.logf("pre-alert for %s refused: %v", race, err)
	return record(opPrealertFailed, err.Error())
}
