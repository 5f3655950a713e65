package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Venue is a race meeting of the simulated world.
type Venue struct {
	// Names are the spellings the service lists in namecodes' `name`; the
	// first is the one to send back as `competition`.
	Names []string
	Code  string // Galloping, Harness or Greyhounds
	// State decides the UTC offset of its times: QLD keeps +10:00 all year,
	// the southern states move to +11:00 in summer.
	State string
	Races int // races per meeting; default 8
}

// DefaultVenues is the world used when Options.Venues is empty.
var DefaultVenues = []Venue{
	{Names: []string{"Flemington", "FLEMINGTON"}, Code: "Galloping", State: "VIC"},
	{Names: []string{"Randwick", "RANDWICK", "Royal Randwick"}, Code: "Galloping", State: "NSW"},
	{Names: []string{"Menangle", "MENANGLE"}, Code: "Harness", State: "NSW"},
	{Names: []string{"The Meadows", "THE MEADOWS", "Meadows"}, Code: "Greyhounds", State: "VIC"},
	{Names: []string{"Eagle Farm", "EAGLE FARM"}, Code: "Galloping", State: "QLD"},
	{Names: []string{"Albion Park", "ALBION PARK"}, Code: "Harness", State: "QLD"},
	{Names: []string{"Wentworth Park", "WENTWORTH PARK"}, Code: "Greyhounds", State: "NSW"},
	// Meetings that race on some days only in the real calendar race every
	// day here, so a plan naming them rehearses whatever day it is.
	{Names: []string{"Moonee Valley", "MOONEE VALLEY"}, Code: "Galloping", State: "VIC"},
	{Names: []string{"Caulfield", "CAULFIELD"}, Code: "Galloping", State: "VIC"},
	{Names: []string{"Gloucester Park", "GLOUCESTER PARK"}, Code: "Harness", State: "WA"},
	{Names: []string{"Sandown Park", "SANDOWN PARK"}, Code: "Greyhounds", State: "VIC"},
}

// A meeting round is one meeting day: each venue races once a day, as in
// the real calendar, so a race (venue, code, number) has one entry per
// meeting date. The first card starts a few minutes after the simulator,
// so a rehearsal plays a card whatever the time of day; the world adds the
// next day's meeting as time moves on, so a long rehearsal never runs dry.
const (
	roundLength    = 24 * time.Hour
	raceGap        = 30 * time.Minute
	firstRaceAfter = 5 * time.Minute
	venueStagger   = 4 * time.Minute
	// defaultResultDelay is how long after the off a race is resulted.
	defaultResultDelay = 2 * time.Minute
)

type runner struct {
	Number int
	Name   string
	Odds   float64
}

type race struct {
	ID          int
	Round       int
	Venue       *Venue
	EventNumber int
	Start       time.Time
	Runners     []runner
	Order       []int // finishing order (runner numbers), drawn when the race is made, shown once resulted
	ScrapeDate  time.Time
	// ranAt, when set, is when the race really runs while the service
	// still lists Start (race data in the wrong time zone).
	ranAt     time.Time
	scratched []int         // runner numbers withdrawn: bets on them are void
	resultIn  time.Duration // after the off, when it is resulted
	wire      []byte        // the namecodes entry as encoded, nil once the race changed
}

// off is when the race really starts: bots stop taking bets on it then,
// and it is resulted resultIn later.
func (r *race) off() time.Time {
	if !r.ranAt.IsZero() {
		return r.ranAt
	}
	return r.Start
}

func (r *race) resultAt() time.Time { return r.off().Add(r.resultIn) }

func (r *race) runner(num int) (runner, bool) {
	for _, rn := range r.Runners {
		if rn.Number == num {
			return rn, true
		}
	}
	return runner{}, false
}

// position is the 1-based finishing position of a runner, 0 if unplaced.
func (r *race) position(num int) int {
	for i, n := range r.Order {
		if n == num {
			return i + 1
		}
	}
	return 0
}

// runnersCSV is the field as the service lists it: a scratched runner
// leaves the list, as a vacant box never was in it.
func (r *race) runnersCSV() string {
	parts := make([]string, 0, len(r.Runners))
	for _, rn := range r.Runners {
		if !slices.Contains(r.scratched, rn.Number) {
			parts = append(parts, strconv.Itoa(rn.Number))
		}
	}
	return strings.Join(parts, ",")
}

// runnerNames are the names of the listed field, in runnersCSV's order.
func (r *race) runnerNames(sep string) string {
	parts := make([]string, 0, len(r.Runners))
	for _, rn := range r.Runners {
		if !slices.Contains(r.scratched, rn.Number) {
			parts = append(parts, rn.Name)
		}
	}
	return strings.Join(parts, sep)
}

func (r *race) resultString() string {
	parts := make([]string, len(r.Order))
	for i, n := range r.Order {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, "/")
}

func (r *race) local(t time.Time) time.Time { return localTime(t, r.Venue.State) }

// world holds the races, generated round by round from the seed.
type world struct {
	seed        int64
	resultDelay time.Duration
	start       time.Time
	venues      []Venue
	races       []*race
	events      []*sportEvent // events.go
	rounds      int
}

func newWorld(seed int64, start time.Time, venues []Venue, resultDelay time.Duration) *world {
	w := &world{seed: seed, start: start, venues: venues, resultDelay: resultDelay}
	w.ensure(start)
	return w
}

// ensure makes every round up to the one after now.
func (w *world) ensure(now time.Time) {
	want := 2
	if now.After(w.start) {
		want = int(now.Sub(w.start)/roundLength) + 2
	}
	for w.rounds < want {
		w.makeRound(w.rounds)
		w.makeEvents(w.rounds, w.start.Add(time.Duration(w.rounds)*roundLength))
		w.rounds++
	}
}

func (w *world) makeRound(round int) {
	base := w.start.Add(time.Duration(round) * roundLength)
	for vi := range w.venues {
		v := &w.venues[vi]
		n := v.Races
		if n <= 0 {
			n = 8
		}
		for i := 0; i < n; i++ {
			rng := rand.New(rand.NewPCG(uint64(w.seed), mix(uint64(round), uint64(vi), uint64(i))))
			start := base.Add(firstRaceAfter + time.Duration(vi)*venueStagger + time.Duration(i)*raceGap)
			// a little jitter, whole minutes, keeps the card from looking machine-made
			start = start.Add(time.Duration(rng.IntN(3)) * time.Minute)
			rc := &race{
				ID:          len(w.races) + 1,
				Round:       round,
				Venue:       v,
				EventNumber: i + 1,
				Start:       start,
				ScrapeDate:  base,
				resultIn:    w.resultDelay,
			}
			rc.Runners = makeRunners(rng, v.Code)
			rc.Order = drawOrder(rng, rc.Runners)
			w.races = append(w.races, rc)
		}
	}
}

func mix(xs ...uint64) uint64 {
	h := fnv.New64a()
	for _, x := range xs {
		fmt.Fprintf(h, "%d/", x)
	}
	return h.Sum64()
}

var (
	nameFirst = []string{"SILENT", "GOLDEN", "RAPID", "LUCKY", "MIDNIGHT", "ROYAL", "SOUTHERN", "WILD", "BOLD", "COSMIC",
		"RED", "SILVER", "HIDDEN", "NOBLE", "SWIFT", "DANCING", "IRON", "QUIET", "FLYING", "MISTY", "ELECTRIC", "SUNNY"}
	nameSecond = []string{"STORM", "ARROW", "LEGEND", "ECHO", "PRINCE", "VALLEY", "RIVER", "EMPIRE", "SPIRIT", "DREAM",
		"CROWN", "COMET", "HARBOUR", "BANDIT", "MAGIC", "RHYTHM", "TIDE", "FLAME", "RANGER", "WHISPER", "JET", "BREEZE"}
)

func makeRunners(rng *rand.Rand, code string) []runner {
	n := 6 + rng.IntN(5)
	if code == "Greyhounds" {
		n = 6 + rng.IntN(3) // boxes 1-8
	}
	strengths := make([]float64, n)
	sum := 0.0
	for i := range strengths {
		strengths[i] = math.Exp(rng.NormFloat64() * 0.8)
		sum += strengths[i]
	}
	used := map[string]bool{}
	rs := make([]runner, n)
	for i := range rs {
		var name string
		for {
			name = nameFirst[rng.IntN(len(nameFirst))] + " " + nameSecond[rng.IntN(len(nameSecond))]
			if !used[name] {
				break
			}
		}
		used[name] = true
		p := strengths[i] / sum
		rs[i] = runner{Number: i + 1, Name: name, Odds: niceOdds(1 / (p * 1.15))}
	}
	return rs
}

// niceOdds rounds to the increments bookmakers quote in.
func niceOdds(o float64) float64 {
	switch {
	case o < 1.1:
		return 1.1
	case o < 10:
		return math.Round(o*10) / 10
	case o < 30:
		return math.Round(o*2) / 2
	case o < 101:
		return math.Round(o)
	default:
		return 101
	}
}

// drawOrder draws the finishing order, each next place taken with
// probability proportional to 1/odds among the runners left.
func drawOrder(rng *rand.Rand, rs []runner) []int {
	left := append([]runner(nil), rs...)
	order := make([]int, 0, len(rs))
	for len(left) > 0 {
		total := 0.0
		for _, r := range left {
			total += 1 / r.Odds
		}
		x := rng.Float64() * total
		k := len(left) - 1
		for i, r := range left {
			x -= 1 / r.Odds
			if x < 0 {
				k = i
				break
			}
		}
		order = append(order, left[k].Number)
		left = append(left[:k], left[k+1:]...)
	}
	return order
}

// findRace resolves a create call's race: venue by any spelling (case
// blind), code when given, event number, and start_time when given.
// Without start_time it is the race of the current meeting (round), even
// if it has started, else of the next meeting. nil when the world has no
// such race.
func (w *world) findRace(now time.Time, competition, code string, eventNumber int, startTime string) *race {
	var want time.Time
	if startTime != "" {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
			if t, err := time.Parse(layout, startTime); err == nil {
				want = t
				break
			}
		}
		if want.IsZero() {
			return nil
		}
	}
	current := 0
	if now.After(w.start) {
		current = int(now.Sub(w.start) / roundLength)
	}
	var best *race
	for _, r := range w.races {
		if r.EventNumber != eventNumber || !venueMatches(r.Venue, competition) {
			continue
		}
		if code != "" && !strings.EqualFold(code, r.Venue.Code) {
			continue
		}
		if !want.IsZero() {
			if r.Start.Truncate(time.Minute).Equal(want.Truncate(time.Minute)) {
				return r
			}
			continue
		}
		if r.Round < current {
			continue
		}
		if best == nil || r.Round < best.Round {
			best = r
		}
	}
	return best
}

func venueMatches(v *Venue, name string) bool {
	name = strings.TrimSpace(name)
	for _, n := range v.Names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// localTime shows t as an Australian clock at a venue in state: +08:00 in
// Western Australia, +10:00, or +11:00 during daylight time (first Sunday of
// October 2am to first Sunday of April 3am) outside Queensland and the
// Northern Territory.
func localTime(t time.Time, state string) time.Time {
	switch strings.ToUpper(state) {
	case "WA":
		return t.In(awst)
	case "QLD", "NT":
		return t.In(aest)
	}
	std := t.In(aest)
	y := std.Year()
	dstStart := firstSunday(y, time.October).Add(2 * time.Hour)
	dstEnd := firstSunday(y, time.April).Add(2 * time.Hour) // 3am daylight = 2am standard
	wall := time.Date(std.Year(), std.Month(), std.Day(), std.Hour(), std.Minute(), std.Second(), std.Nanosecond(), time.UTC)
	if !wall.Before(dstStart) || wall.Before(dstEnd) {
		return t.In(aedt)
	}
	return std
}

var (
	aest = time.FixedZone("AEST", 10*3600)
	aedt = time.FixedZone("AEDT", 11*3600)
	awst = time.FixedZone("AWST", 8*3600)
)

func firstSunday(year int, m time.Month) time.Time {
	d := time.Date(year, m, 1, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

const (
	layoutMicro  = "2006-01-02T15:04:05.000000-07:00"
	layoutSecond = "2006-01-02T15:04:05-07:00"
)

// stamp formats a service timestamp (Sydney clock, microseconds); zero → null.
func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return localTime(t, "NSW").Format(layoutMicro)
}
