package engine

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
)

// eventsState is what a run knows of the sports events its event bets
// name: the service's list and the detail (markets) of each event wanted.
type eventsState struct {
	list    []apiclient.Event
	details map[string]*apiclient.Event // by id; nil: the service has no such event (404)
}

func (s *eventsState) detail(id string) (*apiclient.Event, bool) {
	e, ok := s.details[id]
	return e, ok
}

func (r *resolver) hasEventBets() bool {
	for _, b := range r.plan.Bets {
		if b.Event != nil {
			return true
		}
	}
	return false
}

// refreshEvents reads the sports events when the plan has event bets: the
// list (one call) and the detail of each event a bet names or resolved
// to and has not created yet (one call each). A plan without event bets
// makes no call.
func (r *resolver) refreshEvents(ctx context.Context) error {
	if !r.hasEventBets() {
		return nil
	}
	list, err := r.svc.ListEvents(ctx)
	if err != nil {
		return fmt.Errorf("list events: %w", err)
	}
	want := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !want[id] {
			want[id] = true
			ids = append(ids, id)
		}
	}
	for _, b := range r.plan.Bets {
		if b.Event == nil {
			continue
		}
		if in := r.book.eventInstance(b); in != nil {
			if in.status == StatusWaiting && in.notifID == 0 {
				add(in.info.Event.ID)
			}
			continue
		}
		if b.Event.ID != "" {
			add(b.Event.ID)
		} else if e := findEvent(list, *b.Event); e != nil {
			add(string(e.ID))
		}
	}
	details := make(map[string]*apiclient.Event, len(ids))
	for _, id := range ids {
		e, err := r.svc.GetEvent(ctx, id)
		if apiclient.IsNotFound(err) {
			details[id] = nil
			continue
		}
		if err != nil {
			return fmt.Errorf("read event %s: %w", id, err)
		}
		details[id] = e
	}
	r.sports = eventsState{list: list, details: details}
	return nil
}

// findEvent returns the soonest listed event of the sport whose name
// matches ref's (plan.FoldEvent), or nil. An entry that names no sport
// matches by its name alone.
func findEvent(list []apiclient.Event, ref plan.EventRef) *apiclient.Event {
	var best *apiclient.Event
	for i := range list {
		e := &list[i]
		if (e.Sport != "" && !strings.EqualFold(e.Sport, ref.Sport)) || plan.FoldEvent(e.Name) != plan.FoldEvent(ref.Name) {
			continue
		}
		if best == nil || e.StartTime.Before(best.StartTime.Time) {
			best = e
		}
	}
	return best
}

// nearestEvents explains an event bet that names no listed event: events
// of the same sport spelt alike, or the sports listed.
func nearestEvents(list []apiclient.Event, ref plan.EventRef) string {
	what := fmt.Sprintf("no upcoming %s event %q is listed", ref.Sport, ref.Name)
	if ref.ID != "" {
		what = fmt.Sprintf("the service has no event %s", ref.ID)
	}
	var names, sports []string
	seenSport := map[string]bool{}
	for i := range list {
		e := &list[i]
		if !seenSport[strings.ToLower(e.Sport)] {
			seenSport[strings.ToLower(e.Sport)] = true
			sports = append(sports, e.Sport)
		}
		if ref.Sport == "" || strings.EqualFold(e.Sport, ref.Sport) {
			names = append(names, e.Name)
		}
	}
	sort.Strings(sports)
	if ref.Sport != "" && len(names) == 0 {
		if s := plan.Suggest(ref.Sport, sports); s != "" {
			return fmt.Sprintf("%s: no %s events are listed; did you mean %s?", what, ref.Sport, s)
		}
		return fmt.Sprintf("%s: no %s events are listed (sports listed: %s)", what, ref.Sport, listOrNone(sports))
	}
	names = uniq(sortedCopy(names))
	if ref.Name != "" {
		if s := suggestEvent(ref.Name, names); s != "" {
			return fmt.Sprintf("%s; did you mean %q?", what, s)
		}
	}
	if len(names) > 8 {
		names = append(names[:8], "...")
	}
	sport := ref.Sport
	if sport == "" {
		sport = "sports"
	}
	return fmt.Sprintf("%s (upcoming %s events: %s)", what, sport, listOrNone(names))
}

// suggestEvent is the listed name nearest to name, compared folded.
func suggestEvent(name string, names []string) string {
	folded := make([]string, len(names))
	for i, n := range names {
		folded[i] = plan.FoldEvent(n)
	}
	s := plan.Suggest(plan.FoldEvent(name), folded)
	for i, f := range folded {
		if s != "" && f == s {
			return names[i]
		}
	}
	return ""
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// pickSelection finds the bet's market and selection in the event's
// detail, by name (case and spacing ignored); where a market lists a name
// more than once (alternate lines), the plan's handicap picks the line.
// It returns why not when they are not there, with the nearest names.
func pickSelection(e *apiclient.Event, b *plan.Bet) (*apiclient.EventMarket, *apiclient.EventSelection, string) {
	var market *apiclient.EventMarket
	var names []string
	for i := range e.Markets {
		m := &e.Markets[i]
		names = append(names, m.Name)
		if market == nil && plan.FoldVenue(m.Name) == plan.FoldVenue(b.Market) {
			market = m
		}
	}
	if market == nil {
		what := fmt.Sprintf("%s has no market %q", e.Name, b.Market)
		if len(names) == 0 {
			return nil, nil, what + ": the service lists no markets for it yet"
		}
		if s := plan.Suggest(b.Market, names); s != "" {
			return nil, nil, fmt.Sprintf("%s; did you mean %q?", what, s)
		}
		return nil, nil, fmt.Sprintf("%s (markets: %s)", what, strings.Join(names, ", "))
	}
	var same []*apiclient.EventSelection
	names = names[:0]
	for i := range market.Selections {
		s := &market.Selections[i]
		names = append(names, s.Name)
		if plan.FoldVenue(s.Name) == plan.FoldVenue(b.Selection) {
			same = append(same, s)
		}
	}
	if len(same) == 0 {
		what := fmt.Sprintf("%s %s has no selection %q", e.Name, market.Name, b.Selection)
		if s := plan.Suggest(b.Selection, names); s != "" {
			return nil, nil, fmt.Sprintf("%s; did you mean %q?", what, s)
		}
		return nil, nil, fmt.Sprintf("%s (selections: %s)", what, listOrNone(names))
	}
	if len(same) == 1 || b.Handicap == nil {
		return market, same[0], ""
	}
	var lines []string
	for _, s := range same {
		if s.HasHandicap && float64(s.Handicap) == float64(*b.Handicap) {
			return market, s, ""
		}
		lines = append(lines, strconv.FormatFloat(float64(s.Handicap), 'f', -1, 64))
	}
	return nil, nil, fmt.Sprintf("%s %s lists %s at lines %s, not %s", e.Name, market.Name, same[0].Name, strings.Join(lines, ", "), b.Handicap)
}

// eventInfo describes the bet's pick of the event: the line sent is the
// plan's, else the selection's listed line.
func eventInfo(e *apiclient.Event, m *apiclient.EventMarket, s *apiclient.EventSelection, b *plan.Bet) RaceInfo {
	info := &EventInfo{ID: string(e.ID), Sport: e.Sport, Name: e.Name, Competition: e.Competition,
		Market: m.Name, MarketID: string(m.ID), Selection: s.Name, SelectionID: string(s.ID)}
	switch {
	case b.Handicap != nil:
		h := float64(*b.Handicap)
		info.Handicap = &h
	case s.HasHandicap:
		h := float64(s.Handicap)
		info.Handicap = &h
	}
	return RaceInfo{Start: e.StartTime.Time, Event: info}
}

// plannedEvent is an event bet's event as the plan names it, before (or
// without) resolving it.
func plannedEvent(b *plan.Bet) RaceInfo {
	return RaceInfo{Event: &EventInfo{ID: b.Event.ID, Sport: b.Event.Sport, Name: b.Event.Name, Market: b.Market, Selection: b.Selection}}
}

// resolveEvent finds the event, market and selection of an event bet, or
// says why not.
func (r *resolver) resolveEvent(b *plan.Bet) (*apiclient.Event, RaceInfo, string) {
	ref := *b.Event
	id := ref.ID
	if id == "" {
		e := findEvent(r.sports.list, ref)
		if e == nil {
			return nil, RaceInfo{}, nearestEvents(r.sports.list, ref)
		}
		id = string(e.ID)
	}
	e, ok := r.sports.detail(id)
	switch {
	case !ok:
		return nil, RaceInfo{}, fmt.Sprintf("event %s was not read", id) // the next refresh reads it
	case e == nil:
		return nil, RaceInfo{}, nearestEvents(r.sports.list, ref)
	case ref.ID != "" && ((ref.Sport != "" && !strings.EqualFold(ref.Sport, e.Sport)) || (ref.Name != "" && plan.FoldEvent(ref.Name) != plan.FoldEvent(e.Name))):
		wrote := plan.EventRef{Sport: ref.Sport, Name: ref.Name}
		return nil, RaceInfo{}, fmt.Sprintf("event %s is %s (%s), not %s: check the id", id, e.Name, e.Sport, wrote)
	}
	// A detail that leaves out what the list said is completed from it.
	if e.ID == "" {
		e.ID = apiclient.String(id)
	}
	for i := range r.sports.list {
		if l := &r.sports.list[i]; string(l.ID) == id {
			if e.StartTime.IsZero() {
				e.StartTime = l.StartTime
			}
			if e.Sport == "" {
				e.Sport = l.Sport
			}
			if e.Name == "" {
				e.Name = l.Name
			}
		}
	}
	if e.Sport == "" {
		e.Sport = ref.Sport
	}
	switch {
	case e.StartTime.IsZero():
		return nil, RaceInfo{}, fmt.Sprintf("the service lists no start time for event %s: betplan cannot tell when it starts", id)
	case e.Sport == "":
		return nil, RaceInfo{}, fmt.Sprintf("the service lists no sport for event %s: name it in the plan, event: {id: %s, sport: ...}", id, id)
	}
	m, s, why := pickSelection(e, b)
	switch {
	case why != "":
		return nil, RaceInfo{}, why
	case m.ID == "" || s.ID == "":
		return nil, RaceInfo{}, fmt.Sprintf("%s %s lists no id for %s: the create could not name it", e.Name, m.Name, s.Name)
	}
	return e, eventInfo(e, m, s, b), ""
}

// expandEvent builds an event bet's instance. Like a bet on a named race,
// it is made on the event it resolved to when the run first found it; an
// event bet not resolved yet is unresolved, with the nearest names, until
// a refresh finds it.
func (r *resolver) expandEvent(b *plan.Bet) {
	if in := r.book.eventInstance(b); in != nil {
		if in.status == StatusWaiting && in.notifID == 0 {
			// A start that moved, new prices: the latest detail.
			if e, ok := r.sports.detail(in.info.Event.ID); ok && e != nil {
				if m, s, why := pickSelection(e, b); why == "" {
					in.event, in.info = e, eventInfo(e, m, s, b)
					r.book.outdated() // its start may have moved
				}
			}
		}
		return
	}
	key := "unresolved:" + b.ID
	e, info, why := r.resolveEvent(b)
	if e == nil {
		if r.journalHasBet(b.ID) {
			return // its event ran already; the journal's instance follows it
		}
		if old, ok := r.book.byLabel[key]; ok {
			r.book.wait(old, why)
			return
		}
		r.book.add(key, newUnresolved(b, plannedEvent(b), why))
		return
	}
	if r.madeToday(b, info.Start, r.clock.Now()) {
		return // today's game has it; the same fixture tomorrow is tomorrow's run
	}
	if old, ok := r.book.byLabel[key]; ok {
		r.book.remove(old, key)
	}
	r.track(b, info, r.eventLabel(b, info), func(in *instance) { in.event = e })
}

// eventLabel is the label of b on info's event: the one the journal
// already holds for this bet and event, if any (so an event whose date
// the service moved is still the bet made), else Label.
func (r *resolver) eventLabel(b *plan.Bet, info RaceInfo) string {
	if r.hold.journal != nil {
		for _, l := range r.hold.journal.Labels() {
			if s := r.hold.journal.State(l); s != nil && s.BetID == b.ID && s.Race.Event != nil && s.Race.Event.ID == info.Event.ID {
				return l
			}
		}
	}
	return Label(r.plan.Name, b.ID, info)
}

// eventEnv is the environment of an event bet at now.
func (r *resolver) eventEnv(in *instance, now time.Time) *plan.Env {
	env := r.env(nil, now)
	r.outcomeEnv(env, in.info, now)
	e, info := in.event, in.info.Event
	env.Event = plan.EventEnv{
		ID: info.ID, Name: info.Name, Sport: info.Sport, Competition: info.Competition,
		Start: in.info.Start, MinutesToStart: in.info.Start.Sub(now).Minutes(),
		Selection: plan.SelectionEnv{Name: info.Selection, Market: info.Market},
	}
	if info.Handicap != nil {
		env.Event.Selection.Handicap = *info.Handicap
	}
	if e == nil {
		return env
	}
	for _, m := range e.Markets {
		me := plan.MarketEnv{Name: m.Name}
		for _, s := range m.Selections {
			se := plan.SelectionEnv{Name: s.Name, Market: m.Name, Odds: float64(s.Odds), Handicap: float64(s.Handicap)}
			me.Selections = append(me.Selections, se)
			if string(m.ID) == info.MarketID && string(s.ID) == info.SelectionID {
				env.Event.Selection.Odds = se.Odds
			}
		}
		env.Event.Markets = append(env.Event.Markets, me)
	}
	return env
}

// instanceEnv is the environment of an instance at now: its race's, or
// its event's.
func (r *resolver) instanceEnv(in *instance, now time.Time) *plan.Env {
	if in.info.Event != nil {
		return r.eventEnv(in, now)
	}
	return r.env(in.race, now)
}

// eventRequest fills the create body's sports fields: the sport, the ids
// and the line.
func eventRequest(req *apiclient.CreateNotificationRequest, e *EventInfo) {
	req.Sports = e.Sport
	req.EventID = apiclient.SportsID(e.ID)
	req.SportsMarket = apiclient.SportsID(e.MarketID)
	req.SportsSelection = apiclient.SportsID(e.SelectionID)
	if e.Handicap != nil {
		h := *e.Handicap
		req.Handicap = &h
	}
}
