package engine

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/betplan/betplan/plan"
)

// Instance ids name one race's bet of a for_each_race bet, so a row of a
// report can be cancelled on its own: "<bet>@<venue slug>-r<race number>",
// e.g. box1@the-meadows-r5. A bet without for_each_race is named by its
// bet id alone.
//
// When one bet has instances on the same venue and race number of two
// meetings, the earliest meeting keeps the short id and each later one
// gets "-<YYYYMMDD>" of its meeting date: an id once shown stays that
// instance's, as the journal keeps the earlier meeting's bet. The dated
// form is accepted for every instance (MatchesInstance), so it always
// names one instance whatever else the run knows.

// instancePart is what follows the '@' of an instance id.
var instancePart = regexp.MustCompile(`^[\p{L}\p{N}]+(-[\p{L}\p{N}]+)*-r[0-9]+(-[0-9]{8})?$`)

// InstanceIDForm says how an instance id is written, for messages.
const InstanceIDForm = "<bet>@<venue>-r<race number>, e.g. box1@the-meadows-r5 (-<YYYYMMDD> after it for a later meeting)"

// WellFormedInstanceID reports whether id ("<bet>@…") is written as
// instance ids are.
func WellFormedInstanceID(id string) bool {
	_, part, ok := strings.Cut(id, "@")
	return ok && instancePart.MatchString(part)
}

// instanceBase is the short instance id of bet betID on race.
func instanceBase(betID string, race RaceInfo) string {
	return betID + "@" + venueSlug(race.Venue) + "-r" + strconv.Itoa(race.EventNumber)
}

// datedInstanceID is the instance id with its meeting date appended.
func datedInstanceID(betID string, race RaceInfo) string {
	return instanceBase(betID, race) + "-" + strings.ReplaceAll(meetingDate(race.Start), "-", "")
}

// venueSlug is a venue in lower case with every run of other characters
// than letters and digits folded to one '-': "The Meadows" → the-meadows.
func venueSlug(venue string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(venue) {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(c)
	}
	return b.String()
}

// instanceRef is what an instance id is made from.
type instanceRef struct {
	bet  *plan.Bet
	race RaceInfo
}

// instanceIDs names each of refs, in order (see the comment at the top).
func instanceIDs(refs []instanceRef) []string {
	ids := make([]string, len(refs))
	same := map[string][]int{} // short id → the refs that have it
	for i, ref := range refs {
		if ref.bet.ForEachRace == nil {
			ids[i] = ref.bet.ID
			continue
		}
		ids[i] = instanceBase(ref.bet.ID, ref.race)
		same[ids[i]] = append(same[ids[i]], i)
	}
	for _, group := range same {
		if len(group) < 2 {
			continue
		}
		sort.SliceStable(group, func(a, b int) bool {
			return meetingDate(refs[group[a]].race.Start) < meetingDate(refs[group[b]].race.Start)
		})
		for _, i := range group[1:] {
			ids[i] = datedInstanceID(refs[i].bet.ID, refs[i].race)
		}
	}
	return ids
}

// matches reports whether id names in: its bet id (every instance of the
// bet), its instance id, or for a for_each_race bet its dated id.
func (in *instance) matches(id string) bool {
	return id == in.bet.ID || id == in.id ||
		(in.bet.ForEachRace != nil && id == datedInstanceID(in.bet.ID, in.info))
}

// matchesAny reports whether any of ids names in.
func (in *instance) matchesAny(ids map[string]bool) bool {
	for id := range ids {
		if in.matches(id) {
			return true
		}
	}
	return false
}

// name is the instance's id, or its bet's before it was named.
func (in *instance) name() string {
	if in.id != "" {
		return in.id
	}
	return in.bet.ID
}

// FindInstance looks instance id ("<bet>@…") up in the journal alone,
// without a request: whether an instance the journal knows (created, or
// whose create may have landed) has that id, in its short or dated form,
// and the ids of the bet's instances it knows, as a report would show
// them from the journal.
func (j *Journal) FindInstance(p *plan.Plan, id string) (found bool, known []string) {
	betID, _, _ := strings.Cut(id, "@")
	var refs []instanceRef
	for _, s := range j.states() {
		if s.BetID != betID || (!s.created() && !s.Pending) {
			continue
		}
		for _, b := range p.Bets {
			if b.ID == betID && b.ForEachRace != nil {
				refs = append(refs, instanceRef{b, s.Race})
				break
			}
		}
	}
	for i, k := range instanceIDs(refs) {
		known = append(known, k)
		if id == k || id == datedInstanceID(betID, refs[i].race) {
			found = true
		}
	}
	sort.Strings(known)
	return found, known
}

// resolved reports whether the instance is on a race or event the
// service lists now (not known only from the journal).
func (in *instance) resolved() bool { return in.race != nil || in.event != nil }

// start is when the race or event starts.
func (in *instance) start() time.Time {
	if in.race != nil {
		return in.race.StartTime.Time
	}
	return in.info.Start
}

// what names what the bet is on, for messages.
func (in *instance) what() string {
	if in.info.Event != nil {
		return "event"
	}
	return "race"
}
