package engine

import (
	"slices"
	"strings"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// expandTips builds the plan's tip instances against the current races,
// as expand does for bets.
func (r *tipRun) expandTips() error {
	if !r.hasTips() {
		return nil
	}
	t := r
	if t.byKey == nil {
		t.byKey, t.alerts = map[string]*tipInstance{}, map[string]*alertInstance{}
	}
	now := r.clock.Now()
	first := !t.expanded
	t.expanded = true
	for _, tip := range r.plan.Tips {
		if tip.ForEachRace != nil {
			if !first {
				r.refreshTipRaces(tip)
				continue
			}
			err := r.races.eachMatchingRace("tip "+tip.ID, tip.Matches, now, func(rc *apiclient.Race) {
				r.addTip(tip, rc)
			})
			if err != nil {
				return err
			}
			continue
		}
		if !first && r.hasTipRace(tip) {
			r.refreshTipRaces(tip)
			continue
		}
		rc, why := findRace(r.races.races, *tip.Race)
		unresolved := "unresolved:" + tip.ID
		if rc == nil {
			if r.journalHasTip(tip.ID, "") {
				continue // its race ran already; followTipJournal shows it
			}
			if _, ok := t.byKey[unresolved]; !ok {
				in := &tipInstance{tip: tip, key: unresolved, status: TipUnresolved, reason: why, final: true,
					info: RaceInfo{Venue: tip.Race.Venue, Code: tip.Race.Code, EventNumber: tip.Race.EventNumber}}
				t.byKey[unresolved] = in
				t.insts = append(t.insts, in)
			}
			continue
		}
		// Today's meeting had it: the same race tomorrow is tomorrow's run.
		today := now.In(rc.StartTime.Location()).Format("2006-01-02")
		if meetingDate(rc.StartTime.Time) != today && r.journalHasTip(tip.ID, today) {
			continue
		}
		if old, ok := t.byKey[unresolved]; ok {
			delete(t.byKey, unresolved)
			t.insts = slices.DeleteFunc(t.insts, func(x *tipInstance) bool { return x == old })
		}
		r.addTip(tip, rc)
	}
	return nil
}

func (r *tipRun) hasTipRace(tip *plan.Tip) bool {
	for _, in := range r.insts {
		if in.tip == tip && in.race != nil {
			return true
		}
	}
	return false
}

// refreshTipRaces points tip's waiting instances at the latest entries of
// their races (a start time can move).
func (r *tipRun) refreshTipRaces(tip *plan.Tip) {
	for _, in := range r.insts {
		if in.tip != tip || in.race == nil || in.status != TipWaiting {
			continue
		}
		for i := range r.races.races {
			if sameRace(in.race, &r.races.races[i]) {
				in.race, in.info = &r.races.races[i], raceInfo(&r.races.races[i])
				break
			}
		}
	}
}

// journalHasTip reports whether the journal knows a publication of the tip,
// on a meeting of that date when date is set.
func (r *tipRun) journalHasTip(id, date string) bool {
	if r.hold.journal == nil {
		return false
	}
	for _, k := range r.hold.journal.PubKeys() {
		if s := r.hold.journal.Pub(k); s != nil && s.TipID == id && (date == "" || meetingDate(s.Race.Start) == date) {
			return true
		}
	}
	return false
}

func (r *tipRun) addTip(tip *plan.Tip, rc *apiclient.Race) {
	info := raceInfo(rc)
	key := TipKey(r.plan.Name, tip.ID, info)
	if in, ok := r.byKey[key]; ok {
		if in.status == TipWaiting {
			in.race, in.info = rc, info
		}
		return
	}
	in := &tipInstance{tip: tip, race: rc, info: info, key: key, status: TipWaiting}
	r.applyPubState(in)
	r.byKey[key] = in
	r.insts = append(r.insts, in)
}

// applyPubState brings what the journal knows of a tip into in.
func (r *tipRun) applyPubState(in *tipInstance) {
	if r.hold.journal == nil {
		return
	}
	s := r.hold.journal.Pub(in.key)
	if s == nil {
		return
	}
	in.attempts = s.Attempts
	switch {
	case s.Published:
		in.status, in.publishedAt, in.reason = TipPublished, s.At, ""
	case s.Pending:
		in.status = TipUnknown
		in.reason = unknownReason(s.Unknown)
	case s.Failed != "":
		in.reason = "an earlier publish was refused (" + s.Failed + "); it is tried again"
	}
	if slices.Contains(r.opts.Republish, in.tip.ID) && in.status == TipUnknown {
		in.republish = true
	}
}

// followTipJournal adds the tips the journal knows whose race left the
// list (it ran), so the report still shows them.
func (r *tipRun) followTipJournal() {
	if r.hold.journal == nil || !r.hasTips() {
		return
	}
	t := r
	if t.byKey == nil {
		t.byKey, t.alerts = map[string]*tipInstance{}, map[string]*alertInstance{}
	}
	tips := map[string]*plan.Tip{}
	for _, tip := range r.plan.Tips {
		tips[tip.ID] = tip
	}
	for _, k := range r.hold.journal.PubKeys() {
		if _, ok := t.byKey[k]; ok || !strings.HasPrefix(k, "tip:") {
			continue
		}
		s := r.hold.journal.Pub(k)
		tip := tips[s.TipID]
		if tip == nil || (!s.Published && !s.Pending) {
			continue
		}
		in := &tipInstance{tip: tip, info: s.Race, key: k, status: TipWaiting}
		r.applyPubState(in)
		t.byKey[k] = in
		t.insts = append(t.insts, in)
	}
}

// unstartedTips lists the plan's tips as written when the command ended
// before it could resolve them.
func (r *tipRun) unstartedTips(err error) {
	if !r.hasTips() {
		return
	}
	why := "not started"
	if err != nil {
		why = "not started: " + err.Error()
	}
	r.followTipJournal()
	seen := map[string]bool{}
	for _, in := range r.insts {
		seen[in.tip.ID] = true
	}
	for _, tip := range r.plan.Tips {
		if seen[tip.ID] {
			continue
		}
		in := &tipInstance{tip: tip, status: TipWaiting, reason: why}
		if tip.Race != nil {
			in.info = RaceInfo{Venue: tip.Race.Venue, Code: tip.Race.Code, EventNumber: tip.Race.EventNumber}
		}
		r.insts = append(r.insts, in)
	}
}
