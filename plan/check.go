package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/limit"
)

func (p *parser) check() {
	doc := &p.doc
	pl := p.plan
	top := *doc
	top.Defaults = nil // checked below, whose market and selection may serve event bets
	p.validateStruct(&top, "", "the plan")

	switch {
	case p.d.pos["version"] == nil:
		p.d.errorf(p.rootNode(), "the plan is missing version: add version: 1 at the top")
	case doc.Version != 1:
		p.d.errorf(p.at("version"), "version %d is not supported: this betplan reads version 1", doc.Version)
	}
	if len(doc.Bets) == 0 {
		if n := p.d.pos["bets"]; n != nil && n.Kind == yaml.SequenceNode {
			p.d.errorf(n, "the plan has no bets")
		} else if n == nil && p.d.pos["tips"] == nil {
			p.d.errorf(p.rootNode(), "the plan is missing bets (or tips)")
		}
	}
	if n := p.d.pos["tips"]; n != nil && n.Kind == yaml.SequenceNode && len(doc.Tips) == 0 {
		p.d.errorf(n, "the plan has no tips")
	}
	pl.Version, pl.Name, pl.Description, pl.Vars = doc.Version, doc.Name, doc.Description, doc.Vars
	if pl.Vars == nil {
		pl.Vars = map[string]any{}
	}
	p.checkLimits()
	p.checkPoll()
	p.checkRaces()
	p.checkPrealert()
	p.checkTips()
	p.checkNotify()

	var defaults resolvedBet
	if doc.Defaults != nil {
		p.validateStruct(ruleDoc(doc.Defaults, true), "defaults", "defaults") // market and selection: see raceDefaults
		if doc.Defaults.ID != "" {
			p.d.errorf(p.keyAt("defaults.id"), "defaults cannot set id: every bet has its own")
		}
		defaults = p.resolveBet(doc.Defaults, "defaults")
		pl.Defaults = defaults.display()
	}
	seen := map[string]*yaml.Node{}
	for i := range doc.Bets {
		path := "bets[" + strconv.Itoa(i) + "]"
		b := p.checkBet(&doc.Bets[i], path, defaults)
		// Every problem at once: a duplicate id is reported even when the
		// bet has other errors.
		if id := doc.Bets[i].ID; id != "" {
			if first, dup := seen[id]; dup {
				p.d.errorf(p.at(path+".id"), "duplicate bet id %q (first at line %d): ids must be unique, they make each bet's label", id, first.Line)
			} else {
				seen[id] = p.at(path + ".id")
			}
		}
		if b == nil {
			continue
		}
		pl.Bets = append(pl.Bets, b)
	}
	ids := make(map[string]bool, len(seen))
	for id := range seen {
		ids[id] = true
	}
	p.checkBetReads(ids)
	p.checkStaticLimits()
}

// checkLimits reads limits. A limit that is not a positive amount, or a
// period betplan does not know, is an error with a hint; limits that
// leave a static bet no room are errors too (checkStaticLimits).
func (p *parser) checkLimits() {
	doc := p.doc.Limits
	if doc == nil && len(p.doc.Bets) == 0 && p.d.pos["tips"] != nil {
		return // tips stake nothing of the tipster's
	}
	if doc == nil {
		p.d.warnf(p.at("name"), "the plan has no limits: add limits (max_stake_per_bet, max_total_stake, max_bets) so a mistake cannot spend more than you mean")
		return
	}
	// An invalid limit is left out; the others still hold the bets, so
	// the plan's other problems are all reported at once.
	l, _ := p.readLimits(doc)
	p.plan.Limits = l
	// Spending is bounded by a money limit (max_total_stake,
	// max_open_stake, max_loss): max_bets or max_stake_per_bet missing
	// beside one leaves nothing unbounded. The run refuses a plan with
	// none (unless the account file sets one). One written with an error
	// was reported already.
	if !l.BoundsMoney() && !p.limitWritten(func(k *limit.Kind) bool { return k.Bounds }) {
		p.d.warnf(p.keyAt("limits"), "limits has no %s: nothing bounds what the plan may spend (unless the account file %s sets one)", BoundingLimits("or"), ConfigFileName)
	}
	perBet, perBetSet := l.Set.Get(limit.MaxStakePerBet)
	if total, ok := l.Set.Get(limit.MaxTotalStake); ok && perBetSet && perBet.Dollars > total.Dollars {
		p.d.warnf(p.at("limits.max_stake_per_bet"), "max_stake_per_bet $%s is above max_total_stake $%s", money(perBet.Dollars), money(total.Dollars))
	}
}

// limitWritten reports whether the limits section gives a kind for which
// is is true a value, valid or not.
func (p *parser) limitWritten(is func(*limit.Kind) bool) bool {
	for _, k := range limit.All() {
		if n := p.d.pos["limits."+k.Key]; n != nil && n.Tag != "!!null" && is(k) {
			return true
		}
	}
	return false
}

// readLimits checks a limits section, a plan's or the account file's, and
// returns the limits it sets that are valid; false when one of them is
// invalid. An unknown period leaves out the limits that count within
// it, and keeps those that hold each bet and each race.
func (p *parser) readLimits(doc *limitsDoc) (Limits, bool) {
	before := p.d.errors
	var valid []*limit.Kind
	for _, k := range limit.All() {
		if v, ok := doc.Values[k]; ok && p.checkLimitValue(k, v) {
			valid = append(valid, k)
		}
	}
	period, periodOK := PeriodPlan, true
	if doc.Period != nil {
		period = Period(*doc.Period)
		if !slices.Contains(Periods(), period) {
			names := make([]string, 0, 3)
			for _, x := range Periods() {
				names = append(names, string(x))
			}
			p.d.errorf(p.at("limits.period"), "unknown limits.period %q%s (periods: %s): the total limits count within the race's meeting day, its week, or the whole plan",
				*doc.Period, didYouMean(*doc.Period, names), strings.Join(names, ", "))
			period, periodOK = PeriodPlan, false
		}
	}
	var set limit.Set
	for _, k := range valid {
		if !periodOK && k.Span == limit.PerPeriod {
			continue
		}
		if set == nil {
			set = limit.Set{}
		}
		set[k] = doc.Values[k]
	}
	return Limits{Period: period, Set: set}, p.d.errors == before
}

// checkStaticLimits holds the bets' amounts known offline to the limits,
// counting what each puts at risk on one session at least (the run counts
// every session that can place it): a Fixed Profit bet by the stake its
// target profit takes at its odds floor (RiskOf). A bet certain to be
// created (a named race, no when, an amount known offline) that the
// limits leave no room for is an error: run would refuse the plan before
// creating anything. Under period day or week their races may fall on
// different days, so their sum over a total limit is a warning naming
// that condition; the run's up-front check, which knows the days, decides.
// Bets with a when may never all be created, so their sum over a limit is
// a warning.
//
// Every bet counts, one with an error too, by the parts of it that were
// read (betTally): fixing a bet's typo should not be what reveals that
// the plan's amounts break its limits.
func (p *parser) checkStaticLimits() {
	l := p.plan.Limits
	maxOpen, openSet := l.Set.Get(limit.MaxOpenStake)
	raceStake, perRaceSet := l.Set.Get(limit.MaxStakePerRace)
	maxTotal, totalSet := l.Set.Get(limit.MaxTotalStake)
	maxBets, betsSet := l.Set.Get(limit.MaxBets)
	betsPerRace, betsPerRaceSet := l.Set.Get(limit.MaxBetsPerRace)
	s := &p.sums
	largest, largestBet, staticTotal, all, namedCount := s.largest, s.largestBet, s.staticTotal, &s.all, s.named
	const refuse = "run would refuse the plan before creating any bet"
	// With period day or week the certain bets may fall on different days
	// (offline, their races' days are not known): a sum over a total limit
	// is a warning naming the condition, and the run's up-front check,
	// which knows the days, decides. Per-race limits hold whatever the day.
	total, why := p.d.errorf, refuse
	if c := onePeriod(l.Period); c != "" {
		total, why = p.d.warnf, c+", run refuses the plan before creating any bet"
	}
	if openSet && largest > maxOpen.Dollars+1e-9 {
		p.d.errorf(p.at("limits.max_open_stake"), "max_open_stake $%s is below bet %s's amount at risk $%s: that bet could never be created; raise the limit to at least $%s",
			money(maxOpen.Dollars), largestBet, money(largest), money(largest))
	}
	if perRaceSet && largest > raceStake.Dollars+1e-9 {
		p.d.errorf(p.at("limits.max_stake_per_race"), "max_stake_per_race $%s is below bet %s's amount at risk $%s: that bet could never be created; raise the limit to at least $%s",
			money(raceStake.Dollars), largestBet, money(largest), money(largest))
	}
	switch {
	case totalSet && all.total() > maxTotal.Dollars+1e-9:
		total(p.at("limits.max_total_stake"), "%s %s, above max_total_stake $%s: %s; raise the limit or remove a bet",
			all.words(), all.riskWords(), money(maxTotal.Dollars), why)
	case totalSet && staticTotal > maxTotal.Dollars+1e-9:
		p.d.warnf(p.at("limits.max_total_stake"), "the fixed amounts of the bets add up to $%s at risk, above max_total_stake $%s: the bets past the limit will be refused", money(staticTotal), money(maxTotal.Dollars))
	}
	if openSet && all.total() > maxOpen.Dollars+1e-9 && largest <= maxOpen.Dollars+1e-9 {
		total(p.at("limits.max_open_stake"), "%s are open together and %s, above max_open_stake $%s: %s; raise the limit or remove a bet",
			all.words(), all.riskWords(), money(maxOpen.Dollars), why)
	}
	switch {
	case betsSet && len(all.ids) > maxBets.Count:
		total(p.at("limits.max_bets"), "%s are %d, above max_bets %d: %s; raise the limit or remove a bet",
			all.words(), len(all.ids), maxBets.Count, why)
	case betsSet && namedCount > maxBets.Count:
		p.d.warnf(p.at("limits.max_bets"), "the plan has %d bets on named races, above max_bets %d: the bets past the limit will be refused", namedCount, maxBets.Count)
	}
	for _, key := range s.raceOrder {
		u := s.perRace[key]
		if len(u.ids) < 2 {
			continue
		}
		if perRaceSet && u.total() > raceStake.Dollars+1e-9 && largest <= raceStake.Dollars+1e-9 {
			p.d.errorf(p.at("limits.max_stake_per_race"), "%s are on one race and %s, above max_stake_per_race $%s: %s; raise the limit or remove a bet",
				u.words(), u.riskWords(), money(raceStake.Dollars), refuse)
		}
		if betsPerRaceSet && len(u.ids) > betsPerRace.Count {
			p.d.errorf(p.at("limits.max_bets_per_race"), "%s are %d on one race, above max_bets_per_race %d: %s; raise the limit or remove a bet",
				u.words(), len(u.ids), betsPerRace.Count, refuse)
		}
	}
}

// staticSums are what the bets add up to for the plan-wide limits,
// counted bet by bet as each is checked (staticSums.add).
type staticSums struct {
	largest     float64 // the largest bounded amount at risk, of bet largestBet
	largestBet  string
	staticTotal float64 // the bounded amounts at risk of the bets on named races
	named       int     // the bets on named races (and events)
	all         certainSum
	perRace     map[string]*certainSum // the certain bets by race, in raceOrder
	raceOrder   []string
}

func (s *staticSums) add(b betTally) {
	r, known := b.risk, b.known
	// A lay without an odds cap counts its stake: the least it can lose,
	// and what the run counts until it is placed.
	known = known && (r.Bounded || r.Lay)
	if known && r.PerSession > s.largest {
		s.largest, s.largestBet = r.PerSession, b.id
	}
	if !b.named {
		return
	}
	s.named++
	if known {
		s.staticTotal += r.PerSession
	}
	if b.race == nil {
		return
	}
	s.all.add(b.id, r)
	key := FoldVenue(b.race.Venue) + "|" + strings.ToLower(b.race.Code) + "|" + strconv.Itoa(b.race.EventNumber)
	u := s.perRace[key]
	if u == nil {
		if s.perRace == nil {
			s.perRace = map[string]*certainSum{}
		}
		u = &certainSum{}
		s.perRace[key] = u
		s.raceOrder = append(s.raceOrder, key)
	}
	u.add(b.id, r)
}

// betTally is what one bet adds to the plan-wide limits as far as it is
// known offline; a bet with an error counts by the parts that were read.
type betTally struct {
	id string
	// named is a bet on a named race or an event (not for_each_race):
	// created once at most, so the count of max_bets holds it.
	named bool
	// risk is what the bet puts at risk on one session, when known is set.
	risk  Risk
	known bool
	// race is the bet's race when the bet is certain to be created (a
	// named race, no when, an amount known offline: Bet.Certain).
	race *RaceRef
}

// onePeriod is the condition under which bets certain to be created share
// one period of total limits counted by period: "if these races fall on
// one day"; "" for period plan, where they always do.
func onePeriod(period Period) string {
	switch period {
	case PeriodDay:
		return "if these races fall on one day"
	case PeriodWeek:
		return "if these races fall in one week"
	}
	return ""
}

// certainSum adds up what bets certain to be created put at risk on one
// session: known, and for a Fixed Profit bet with no odds floor, the
// target profit the run counts until the sessions place it (unbounded
// names those).
type certainSum struct {
	ids       []string
	known     float64
	estimate  float64
	unbounded []string
}

func (c *certainSum) add(id string, r Risk) {
	c.ids = append(c.ids, id)
	if r.Bounded || r.Lay { // a lay without a cap: its stake, the least it can lose
		c.known += r.PerSession
		return
	}
	c.estimate += r.PerSession
	c.unbounded = append(c.unbounded, id)
}

func (c *certainSum) total() float64 { return c.known + c.estimate }

func (c *certainSum) words() string {
	return "the bets certain to be created (a named race, no when, a static amount: " + CutList(c.ids, idsShown) + ")"
}

// riskWords says what the bets put at risk: "put $25 at risk at least"
// when every amount is known (each on one session), else what is known
// and what only the run can know.
func (c *certainSum) riskWords() string {
	if len(c.unbounded) == 0 {
		return "put $" + money(c.known) + " at risk at least"
	}
	if c.known == 0 {
		return CutList(c.unbounded, idsShown) + " (Fixed Profit without check_odds) stake an amount known only when the sessions place it, which the run counts as the target profit ($" +
			money(c.estimate) + ") until then"
	}
	verb := "has"
	if len(c.unbounded) > 1 {
		verb = "have"
	}
	return "put $" + money(c.known) + " at risk at least, and " + CutList(c.unbounded, idsShown) + " (Fixed Profit without check_odds) " + verb +
		" a stake known only when the sessions place it, which the run counts as the target profit ($" + money(c.estimate) + ") until then: $" +
		money(c.total()) + " as the run counts it"
}

func (p *parser) checkPoll() {
	p.plan.Poll = Poll{Interval: DefaultPollInterval, Timeout: DefaultPollTimeout}
	doc := p.doc.Poll
	if doc == nil {
		return
	}
	if doc.Interval != nil && doc.Interval.node != nil && doc.Interval.Value != 0 {
		p.plan.Poll.Interval = doc.Interval.Value
		if doc.Interval.Value < 1e9 {
			p.d.errorf(doc.Interval.node, "interval must be at least 1s, got %s: the service would be polled too often", doc.Interval.Value)
		}
	} else if doc.Interval != nil && doc.Interval.node != nil && doc.Interval.node.Tag != "!!int" && doc.Interval.Value == 0 && validDuration(doc.Interval.node.Value) {
		p.d.errorf(doc.Interval.node, "interval must be at least 1s, got 0s")
	}
	if doc.Timeout != nil && doc.Timeout.node != nil && doc.Timeout.Value != 0 {
		p.plan.Poll.Timeout = doc.Timeout.Value
		if doc.Timeout.Value < 0 {
			p.d.errorf(doc.Timeout.node, "timeout must be positive, got %s", doc.Timeout.Value)
		} else if doc.Timeout.Value < p.plan.Poll.Interval {
			p.d.errorf(doc.Timeout.node, "timeout %s is shorter than the poll interval %s", doc.Timeout.Value, p.plan.Poll.Interval)
		}
	}
}

func validDuration(s string) bool {
	_, err := time.ParseDuration(s)
	return err == nil
}

func (p *parser) checkRaces() {
	p.plan.Races = make(map[string]RaceRef, len(p.doc.Races))
	for _, key := range sortedKeys(p.doc.Races) {
		r := p.doc.Races[key]
		path := "races[" + key + "]"
		before := p.d.errors
		p.validateStruct(&r, path, "race "+key)
		if p.d.errors > before || p.d.failed[path+".event_number"] {
			if p.badRaces == nil {
				p.badRaces = map[string]bool{}
			}
			p.badRaces[key] = true
		}
		p.warnVenue(r.Venue, path+".venue")
		p.plan.Races[key] = RaceRef(r)
	}
}

func (p *parser) warnVenue(venue, path string) {
	if venue != "" && !knownVenue(venue) {
		p.d.warnf(p.at(path), "venue %q is not a venue betplan knows%s", venue, didYouMean(venue, venues))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
