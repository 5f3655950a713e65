package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
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

// Journal operations of publications (tips and pre-alerts). One entry
// carries every tip of one call.
const (
	opPublishing      = "publishing"      // a publish call is about to be sent
	opPublished       = "published"       // it answered 2xx
	opPublishUnknown  = "publish_unknown" // its outcome is unknown: it may have gone out
	opPublishAbsent   = "publish_absent"  // it certainly did not reach the service (or was not processed)
	opPublishFailed   = "publish_failed"  // the service refused it
	opPrealerting     = "prealerting"
	opPrealerted      = "prealerted"
	opPrealertUnknown = "prealert_unknown"
	opPrealertAbsent  = "prealert_absent"
	opPrealertFailed  = "prealert_failed"
)

// journalTip is one tip (or a pre-alert's race) in a publication entry.
type journalTip struct {
	Key   string    `json:"key"`
	TipID string    `json:"tip,omitempty"`
	Race  *RaceInfo `json:"race,omitempty"`
	Odds  float64   `json:"odds,omitempty"`
	Units float64   `json:"units,omitempty"`
	Path  string    `json:"path,omitempty"` // the path that answered a pre-alert
}

// pubState is what the journal knows of one tip or pre-alert.
type pubState struct {
	TipID string
	Race  RaceInfo
	Odds  float64
	Units float64
	// Pending: announced, and no answer recorded that settles it. It may
	// have gone out; nothing sends it again by itself.
	Pending   bool
	Published bool
	At        time.Time // when the service said yes
	Attempts  int
	Unknown   string // why the outcome is unknown, when it is known to be
	Failed    string // the service refused it: not published
	Path      string // the path that answered a pre-alert
}

func (j *Journal) applyPub(e journalEntry) {
	if j.pubs == nil {
		j.pubs = map[string]*pubState{}
	}
	for _, t := range e.Tips {
		s := j.pubs[t.Key]
		if s == nil {
			s = &pubState{}
			j.pubs[t.Key] = s
			j.pubKeys = append(j.pubKeys, t.Key)
		}
		if t.TipID != "" {
			s.TipID = t.TipID
		}
		if t.Race != nil {
			s.Race = *t.Race
		}
		if t.Odds != 0 {
			s.Odds, s.Units = t.Odds, t.Units
		}
		if t.Path != "" {
			s.Path = t.Path
		}
		switch e.Op {
		case opPublishing, opPrealerting:
			s.Pending, s.Unknown, s.Failed = true, "", ""
			s.Attempts++
		case opPublished, opPrealerted:
			s.Pending, s.Published, s.At, s.Unknown = false, true, e.Time, ""
		case opPublishUnknown, opPrealertUnknown:
			s.Unknown = e.Error
		case opPublishAbsent, opPrealertAbsent:
			s.Pending = false
		case opPublishFailed, opPrealertFailed:
			s.Pending, s.Failed = false, e.Error
		}
	}
}

// Pub returns what the journal knows of a tip or pre-alert, or nil.
func (j *Journal) Pub(key string) *pubState {
	j.mu.Lock()
	defer j.mu.Unlock()
	if s, ok := j.pubs[key]; ok {
		c := *s
		return &c
	}
	return nil
}

// PubKeys returns the keys of the tips and pre-alerts the journal knows,
// in first-seen order.
func (j *Journal) PubKeys() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.pubKeys)
}

// TipKey is the journal's name for one tip of a plan on one race: the same
// on every machine and every run, different for every (plan, tip, race).
// It is never sent: the service has no label on tips.
func TipKey(planName, tipID string, race RaceInfo) string {
	return "tip:" + planName + ":" + tipID + ":" + raceHash("tip", planName, tipID, race)
}

// prealertKey names the pre-alert of one race of a plan.
func prealertKey(planName string, race RaceInfo) string {
	return "prealert:" + planName + ":" + raceHash("prealert", planName, "", race)
}

func raceHash(kind, planName, id string, race RaceInfo) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%d\x00%s", kind, planName, id,
		plan.FoldVenue(race.Venue), strings.ToLower(race.Code), race.EventNumber, meetingDate(race.Start))
	return hex.EncodeToString(h.Sum(nil))[:12]
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

// expandTips builds the plan's tip instances against the current races,
// as expand does for bets.
func (r *tracker) expandTips() error {
	if !r.hasTips() {
		return nil
	}
	t := &r.tips
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
			for i := range r.races {
				rc := &r.races[i]
				if r.afterRun(rc, now) {
					continue
				}
				ok, err := tip.Matches(r.env(rc, now))
				if err != nil {
					return fmt.Errorf("tip %s: for_each_race on %s R%d: %w", tip.ID, rc.Venue(), rc.EventNumber, err)
				}
				if ok {
					r.addTip(tip, rc)
				}
			}
			continue
		}
		if !first && r.hasTipRace(tip) {
			r.refreshTipRaces(tip)
			continue
		}
		rc, why := findRace(r.races, *tip.Race)
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

func (r *tracker) hasTipRace(tip *plan.Tip) bool {
	for _, in := range r.tips.insts {
		if in.tip == tip && in.race != nil {
			return true
		}
	}
	return false
}

// refreshTipRaces points tip's waiting instances at the latest entries of
// their races (a start time can move).
func (r *tracker) refreshTipRaces(tip *plan.Tip) {
	for _, in := range r.tips.insts {
		if in.tip != tip || in.race == nil || in.status != TipWaiting {
			continue
		}
		for i := range r.races {
			if sameRace(in.race, &r.races[i]) {
				in.race, in.info = &r.races[i], raceInfo(&r.races[i])
				break
			}
		}
	}
}

// journalHasTip reports whether the journal knows a publication of the tip,
// on a meeting of that date when date is set.
func (r *tracker) journalHasTip(id, date string) bool {
	if r.journal == nil {
		return false
	}
	for _, k := range r.journal.PubKeys() {
		if s := r.journal.Pub(k); s != nil && s.TipID == id && (date == "" || meetingDate(s.Race.Start) == date) {
			return true
		}
	}
	return false
}

func (r *tracker) addTip(tip *plan.Tip, rc *apiclient.Race) {
	info := raceInfo(rc)
	key := TipKey(r.plan.Name, tip.ID, info)
	if in, ok := r.tips.byKey[key]; ok {
		if in.status == TipWaiting {
			in.race, in.info = rc, info
		}
		return
	}
	in := &tipInstance{tip: tip, race: rc, info: info, key: key, status: TipWaiting}
	r.applyPubState(in)
	r.tips.byKey[key] = in
	r.tips.insts = append(r.tips.insts, in)
}

// applyPubState brings what the journal knows of a tip into in.
func (r *tracker) applyPubState(in *tipInstance) {
	if r.journal == nil {
		return
	}
	s := r.journal.Pub(in.key)
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

func unknownReason(why string) string {
	if why == "" {
		why = "the run ended before the service's answer was recorded"
	}
	return "a publish was sent and may have reached subscribers (" + why + "): it is never sent again by itself; `betplan run --republish TIP-ID` sends it again"
}

// followTipJournal adds the tips the journal knows whose race left the
// list (it ran), so the report still shows them.
func (r *tracker) followTipJournal() {
	if r.journal == nil || !r.hasTips() {
		return
	}
	t := &r.tips
	if t.byKey == nil {
		t.byKey, t.alerts = map[string]*tipInstance{}, map[string]*alertInstance{}
	}
	tips := map[string]*plan.Tip{}
	for _, tip := range r.plan.Tips {
		tips[tip.ID] = tip
	}
	for _, k := range r.journal.PubKeys() {
		if _, ok := t.byKey[k]; ok || !strings.HasPrefix(k, "tip:") {
			continue
		}
		s := r.journal.Pub(k)
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

// tipsByStart is the tip instances with the soonest race first.
func (r *tracker) tipsByStart() []*tipInstance {
	out := slices.Clone(r.tips.insts)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].info.Start, out[j].info.Start
		if a.IsZero() || b.IsZero() {
			return !a.IsZero() && b.IsZero()
		}
		return a.Before(b)
	})
	return out
}

// stopPublishing publishes nothing more this run: every tip still
// waiting is final with why, so the run need not wait for its race.
func (r *tracker) stopPublishing(why string) {
	if r.tips.stop == "" {
		r.tips.stop = why
		r.logf("publishing nothing more: %s", why)
	}
	for _, in := range r.tips.insts {
		if in.status == TipWaiting && !in.final {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+why
		}
	}
}

// tipsTick is one tick of the tips: due pre-alerts, then every tip ready
// now in one publish call, then the results of published tips.
func (r *tracker) tipsTick(ctx context.Context, now time.Time) error {
	if !r.hasTips() {
		return nil
	}
	if r.opts.OnlyLabels != nil {
		if !r.tips.warned {
			r.tips.warned = true
			r.logf("a saved plan applies its creates only: no tip is published")
		}
		for _, in := range r.tips.insts {
			if in.status == TipWaiting {
				in.status, in.final, in.reason = TipSkipped, true, "not published: a saved plan applies its creates only"
			}
		}
		return r.followResults(ctx, now)
	}
	if r.stopCreating != "" || r.lockLost() {
		r.stopPublishing(r.stopCreating)
	}
	r.noteRepublish()
	var due []*tipInstance
	for _, in := range r.tipsByStart() {
		if in.race == nil && in.republish {
			in.republish = false
			in.reason = "--republish: its race is no longer upcoming, so it is not sent again; " + in.reason
		}
		if in.race == nil || in.final || (in.status != TipWaiting && !(in.status == TipUnknown && in.republish)) {
			continue
		}
		if !now.Before(in.race.StartTime.Time) {
			in.status, in.final = TipSkipped, true
			if in.republish {
				in.status, in.reason = TipUnknown, "--republish: the race started before it could be sent again; "+in.reason
			} else if in.tip.When != nil {
				in.reason = fmt.Sprintf("the race started before %q was true (%s)", in.tip.When.String(), in.tip.When.Explain(r.env(in.race, now)))
			} else {
				in.reason = "the race started before the tip could be published"
			}
			continue
		}
		if in.republish {
			due = append(due, in)
			continue
		}
		env := r.env(in.race, now)
		ready, err := in.tip.Ready(env)
		if err != nil {
			in.status, in.final = TipFailed, true
			in.reason = fmt.Sprintf("evaluating when %q: %v", in.tip.When.String(), err)
			continue
		}
		if !ready {
			in.reason = fmt.Sprintf("waiting for %q (%s)", in.tip.When.String(), in.tip.When.Explain(env))
			continue
		}
		// The bets' runner check, on the tip's selection.
		if reason := checkRunners(&instance{bet: &plan.Bet{Selection: in.tip.Selection}, race: in.race, info: in.info}); reason != "" {
			in.status, in.final = TipFailed, true
			in.reason = strings.Replace(reason, "not created", "not published", 1)
			continue
		}
		due = append(due, in)
	}
	if r.tips.stop != "" {
		for _, in := range due {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+r.tips.stop
		}
		return r.followResults(ctx, now)
	}
	if err := r.prealerts(ctx, now, due); err != nil {
		return err
	}
	if len(due) > 0 {
		if err := r.publish(ctx, due); err != nil {
			return err
		}
	}
	return r.followResults(ctx, now)
}

// noteRepublish says, once, which tips --republish names that have no
// publish of unknown outcome to send again.
func (r *tracker) noteRepublish() {
	if r.tips.noted {
		return
	}
	r.tips.noted = true
	for _, id := range r.opts.Republish {
		found := false
		for _, in := range r.tips.insts {
			found = found || (in.tip.ID == id && in.republish)
		}
		if !found {
			r.logf("--republish %s: no publish of it has an unknown outcome; nothing is sent again", id)
		}
	}
}

// confirmTips asks, once per run, before the first publication of a real
// run (a published tip cannot be taken back), as a create does.
func (r *tracker) confirmTips() error {
	if r.confirmed || r.opts.Confirm == nil {
		r.confirmed = true
		return nil
	}
	summary := fmt.Sprintf("Plan %q against %s:%s", r.plan.Name, r.opts.BaseURL, r.tipsSummary())
	if n := r.waiting(); n > 0 {
		summary += fmt.Sprintf(" Up to %d %s may be created.", n, plural(n, "bet", "bets"))
	}
	ok, err := r.opts.Confirm(summary)
	if err != nil {
		return err
	}
	if !ok {
		r.refused = "not confirmed"
		return ErrNotConfirmed
	}
	r.confirmed = true
	return nil
}

// tipsSummary is what the confirmation says of the tips: " Up to N tips
// will be published to the package's subscribers." ("" without tips).
func (r *tracker) tipsSummary() string {
	n := 0
	for _, in := range r.tips.insts {
		if (in.status == TipWaiting && !in.final) || in.republish {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" Up to %d %s will be published to the tip package's subscribers.", n, plural(n, "tip", "tips"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *tracker) tipster() (TipsterBackend, error) {
	tb, ok := r.svc.(TipsterBackend)
	if !ok {
		return nil, errors.New("the service client cannot publish tips")
	}
	return tb, nil
}

// publishRequest is the wire form of a tip on its race.
func publishRequest(in *tipInstance) apiclient.PublishTip {
	t := in.tip
	return apiclient.PublishTip{
		Competition: in.race.Venue(), Code: in.race.Code, EventNumber: int(in.race.EventNumber),
		Market: t.Market, Selection: t.Selection, AmountUnits: t.AmountUnits,
		Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
		Confidence: t.Confidence, Analysis: t.Analysis,
	}
}

// maxPublishAttempts bounds the calls that certainly did not reach the
// service, per tip and run, before it is given up.
const maxPublishAttempts = 3

// publish sends the tips in one call, announced in the journal first. A
// batch the service refused as a whole for its data (400, 404, 406) is
// sent again one tip at a time, so one bad tip does not hold the others
// back: a refused call published nothing.
func (r *tracker) publish(ctx context.Context, batch []*tipInstance) error {
	if r.opts.TipsterAPIKey == "" {
		r.stopPublishing("no tip package API key: set BETPLAN_TIPSTER_APIKEY")
		for _, in := range batch {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+r.tips.stop
		}
		return nil
	}
	tb, err := r.tipster()
	if err != nil {
		return err
	}
	if err := r.confirmTips(); err != nil {
		return err
	}
	refused, err := r.publishOnce(ctx, tb, batch)
	if err != nil || !refused || len(batch) == 1 {
		return err
	}
	r.logf("the service refused the publish of %d tips as a whole; sending each on its own", len(batch))
	for _, in := range batch {
		if _, err := r.publishOnce(ctx, tb, []*tipInstance{in}); err != nil {
			return err
		}
	}
	return nil
}

// publishOnce is one publish call. refused reports a call the service
// refused for its data (nothing published, each tip may be tried alone).
func (r *tracker) publishOnce(ctx context.Context, tb TipsterBackend, batch []*tipInstance) (refused bool, err error) {
	if err := r.checkStop(); err != nil {
		for _, in := range batch {
			in.reason = "not published: " + r.stopCreating
		}
		return false, err
	}
	entry := make([]journalTip, len(batch))
	req := make([]apiclient.PublishTip, len(batch))
	ids := make([]string, len(batch))
	for i, in := range batch {
		info := in.info
		entry[i] = journalTip{Key: in.key, TipID: in.tip.ID, Race: &info, Odds: in.tip.Odds, Units: in.tip.AmountUnits}
		req[i] = publishRequest(in)
		ids[i] = in.tip.ID
	}
	record := func(op, why string) error {
		return r.journal.Record(journalEntry{Op: op, Tips: entry, Error: why})
	}
	r.checkpoint("announce-publish")
	if err := record(opPublishing, ""); err != nil {
		return false, err
	}
	for _, in := range batch {
		in.attempts++
		in.republish = false
	}
	r.checkpoint("publishing")
	if r.lockLost() {
		// Announced, never sent: reported unknown, as it cannot be told
		// from a call that was.
		for _, in := range batch {
			in.status, in.final, in.reason = TipUnknown, true, unknownReason("the plan's lock was lost as it was announced")
		}
		return false, r.lease.Err()
	}
	ans, err := tb.PublishTips(ctx, r.opts.TipsterAPIKey, req)
	r.checkpoint("posted-publish")
	now := r.clock.Now()
	switch {
	case err == nil && ans.Refused():
		why := fmt.Sprintf("the service answered %s with status %q", "2xx", ans.Status)
		if ans.Message != "" {
			why += ": " + ans.Message
		}
		r.logf("publish of %s: %s; reported unknown", strings.Join(ids, ", "), why)
		for _, in := range batch {
			in.status, in.final, in.reason, in.answer = TipUnknown, true, unknownReason(why), ans.Status
		}
		return false, record(opPublishUnknown, why)
	case err == nil:
		jerr := record(opPublished, "")
		r.checkpoint("published")
		for _, in := range batch {
			in.status, in.publishedAt, in.reason, in.err = TipPublished, now, "", ""
			in.answer = strings.TrimSpace(ans.Status + " " + ans.Message)
		}
		r.logf("published %s (%d %s in one call)", strings.Join(ids, ", "), len(batch), plural(len(batch), "tip", "tips"))
		return false, jerr
	case ctx.Err() != nil:
		// Interrupted mid-publish: the journal's announcement stands, so
		// the next run reports it unknown.
		for _, in := range batch {
			in.status, in.reason = TipUnknown, unknownReason("interrupted while the service was answering")
		}
		return false, ctx.Err()
	case apiclient.IsAmbiguous(err), apiclient.IsServerError(err):
		why := err.Error()
		r.logf("publish of %s: %v; it may have gone out: reported unknown, never sent again by itself", strings.Join(ids, ", "), err)
		for _, in := range batch {
			in.status, in.final, in.reason, in.err = TipUnknown, true, unknownReason(why), why
		}
		return false, record(opPublishUnknown, why)
	case isNotSent(err), apiclient.IsRateLimited(err):
		// Nothing reached the service, or it refused before processing.
		r.logf("publish of %s: %v; trying again on the next tick", strings.Join(ids, ", "), err)
		for _, in := range batch {
			in.err = err.Error()
			in.status, in.reason = TipWaiting, "the last publish did not reach the service; trying again"
			if in.attempts >= maxPublishAttempts {
				in.status, in.final = TipFailed, true
				in.reason = fmt.Sprintf("gave up after %d publish calls that did not reach the service", in.attempts)
			}
		}
		return false, record(opPublishAbsent, err.Error())
	}
	why := err.Error()
	var apiErr *apiclient.Error
	status := 0
	if errors.As(err, &apiErr) {
		status = apiErr.StatusCode
	}
	r.logf("publish of %s refused: %v", strings.Join(ids, ", "), err)
	if jerr := record(opPublishFailed, why); jerr != nil {
		return false, jerr
	}
	for _, in := range batch {
		in.status, in.final, in.err = TipFailed, true, why
		in.reason = "the service refused the publish"
	}
	switch {
	case status == 403:
		r.stopPublishing("the service refused the tip package API key (403): check BETPLAN_TIPSTER_APIKEY")
		for _, in := range batch {
			in.reason = "not published: " + r.tips.stop
		}
	case status == 401:
		r.stopPublishing("the service refused the credentials (401)")
	case status == 400 || status == 404 || status == 406:
		return true, nil
	}
	return false, nil
}

// prealerts sends each due pre-alert: a race's is due once its first tip
// would be ready within the plan's prealert.before (the tip's when looked
// at ahead, minute by minute), and at the latest just before that tip
// goes out.
func (r *tracker) prealerts(ctx context.Context, now time.Time, due []*tipInstance) error {
	pa := r.plan.Prealert
	if pa == nil {
		return nil
	}
	byRace := map[string][]*tipInstance{}
	var keys []string
	for _, in := range r.tips.insts {
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
func (r *tracker) alert(key string, info RaceInfo) *alertInstance {
	if a, ok := r.tips.alerts[key]; ok {
		return a
	}
	a := &alertInstance{key: key, info: info, status: AlertWaiting}
	if r.journal != nil {
		if s := r.journal.Pub(key); s != nil {
			switch {
			case s.Published:
				a.status, a.sentAt, a.path = AlertSent, s.At, s.Path
				if r.tips.path == "" {
					r.tips.path = s.Path
				}
			case s.Pending:
				a.status, a.reason = AlertUnknown, "a pre-alert was sent and its outcome is unknown: not sent again"
			}
		}
	}
	r.tips.alerts[key] = a
	r.tips.alertKeys = append(r.tips.alertKeys, key)
	return a
}

// alertNeeded reports whether a tip of the pre-alert's race may still be
// published.
func (r *tracker) alertNeeded(a *alertInstance) bool {
	for _, in := range r.tips.insts {
		if in.status == TipWaiting && !in.final && in.race != nil && prealertKey(r.plan.Name, in.info) == a.key {
			return true
		}
	}
	return false
}

// readyWithin reports whether a waiting tip of the race would be ready at
// some minute from now to now+before.
func (r *tracker) readyWithin(tips []*tipInstance, now time.Time, before time.Duration) bool {
	for _, in := range tips {
		if in.status != TipWaiting || in.final {
			continue
		}
		// One environment, moved along the minutes: only the time changes.
		env := r.env(in.race, now)
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

func (r *tracker) sendPrealert(ctx context.Context, a *alertInstance, late bool) error {
	if r.opts.TipsterAPIKey == "" {
		a.status, a.reason = AlertFailed, "no tip package API key: set BETPLAN_TIPSTER_APIKEY"
		return nil
	}
	tb, err := r.tipster()
	if err != nil {
		return err
	}
	if err := r.confirmTips(); err != nil {
		return err
	}
	if err := r.checkStop(); err != nil {
		return err
	}
	info := a.info
	entry := []journalTip{{Key: a.key, Race: &info}}
	record := func(op, why string) error { return r.journal.Record(journalEntry{Op: op, Tips: entry, Error: why}) }
	if err := record(opPrealerting, ""); err != nil {
		return err
	}
	if r.lockLost() {
		a.status, a.reason = AlertUnknown, "announced as the plan's lock was lost"
		return r.lease.Err()
	}
	ans, err := tb.SendPrealert(ctx, r.opts.TipsterAPIKey)
	race := fmt.Sprintf("%s %s R%d", a.info.Venue, a.info.Code, a.info.EventNumber)
	switch {
	case err == nil:
		a.status, a.sentAt, a.path = AlertSent, r.clock.Now(), ans.Path
		r.tips.path = ans.Path
		if late {
			a.reason = "sent just before the race's first tip: it was ready before the pre-alert was due"
		}
		r.logf("pre-alert for %s sent (%s)", race, ans.Path)
		entry[0].Path = ans.Path
		return record(opPrealerted, "")
	case ctx.Err() != nil:
		a.status, a.reason = AlertUnknown, "interrupted while the service was answering"
		return ctx.Err()
	case apiclient.IsAmbiguous(err), apiclient.IsServerError(err):
		a.status, a.reason = AlertUnknown, "it may have gone out ("+err.Error()+"): not sent again"
		r.logf("pre-alert for %s: %v; not sent again", race, err)
		return record(opPrealertUnknown, err.Error())
	case isNotSent(err), apiclient.IsRateLimited(err):
		a.reason = "the last pre-alert did not reach the service (" + err.Error() + "); trying again"
		return record(opPrealertAbsent, err.Error())
	}
	a.status, a.reason = AlertFailed, "the service refused the pre-alert: "+err.Error()
	r.logf("pre-alert for %s refused: %v", race, err)
	return record(opPrealertFailed, err.Error())
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
			// The verb says which way: "lost 1.00 units", not "lost -1.00".
			in.reason = fmt.Sprintf("%s %.2f units at %.2f (result %s)", in.outcome, math.Abs(*in.units), in.tip.Odds, res)
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

// unstartedTips lists the plan's tips as written when the command ended
// before it could resolve them.
func (r *tracker) unstartedTips(err error) {
	if !r.hasTips() {
		return
	}
	why := "not started"
	if err != nil {
		why = "not started: " + err.Error()
	}
	r.followTipJournal()
	seen := map[string]bool{}
	for _, in := range r.tips.insts {
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
		r.tips.insts = append(r.tips.insts, in)
	}
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
