package sim

import (
	"strconv"
	"time"
)

// Request is one entry of the request log. Authorization headers and
// bodies (passwords) are never kept.
type Request struct {
	Time    time.Time // real wall time, for rate measurements
	SimTime time.Time
	Method  string
	Path    string
	Query   string // raw query
	Status  int    // 0 when the connection was dropped without a response, or still in flight
	Fault   string // the fault kind applied, if any
}

// Requests returns the request log, in order.
func (s *Service) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// ResetRequests empties the request log.
func (s *Service) ResetRequests() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

// NotificationsWithLabel counts stored notifications carrying label.
func (s *Service) NotificationsWithLabel(label string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labelCount[label]
}

// NotificationCount counts stored notifications.
func (s *Service) NotificationCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.notifications)
}

// PlacedCount counts stored notifications some session placed (an
// accepted stake), as of now.
func (s *Service) PlacedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(s.clock.Now())
	n := 0
	for _, x := range s.notifications {
		if accepted, _, _ := x.totals(); accepted > 0 {
			n++
		}
	}
	return n
}

// RaceInfo describes a race of the world, for tests to pick one.
type RaceInfo struct {
	Venue       string // the first spelling, as to send in `competition`
	Code        string
	EventNumber int
	Start       time.Time
	Runners     []string // runner numbers, as to send in `selection`
	RunnerNames []string
	Odds        []float64 // win odds, parallel to Runners
	Country     string
	Result      string // finishing order "4/1/7/2" once resulted, else ""
}

// Races returns the world's races made so far (past ones too), in order
// of creation: by round, venue, then race number.
func (s *Service) Races() []RaceInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.advance(now)
	out := make([]RaceInfo, 0, len(s.world.races))
	for _, r := range s.world.races {
		ri := RaceInfo{Venue: r.Venue.Names[0], Code: r.Venue.Code, EventNumber: r.EventNumber, Start: r.Start, Country: "AUS"}
		for _, rn := range r.Runners {
			ri.Runners = append(ri.Runners, strconv.Itoa(rn.Number))
			ri.RunnerNames = append(ri.RunnerNames, rn.Name)
			ri.Odds = append(ri.Odds, rn.Odds)
		}
		if !now.Before(r.resultAt()) {
			ri.Result = r.resultString()
		}
		out = append(out, ri)
	}
	return out
}

// SessionInfo describes a bookmaker session, for tests.
type SessionInfo struct {
	ID          int
	Bookie      string
	DisplayName string
	Balance     float64
	BotRunning  bool
}

// Sessions returns the default user's sessions.
func (s *Service) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advance(s.clock.Now())
	out := make([]SessionInfo, 0, len(s.sessions))
	for _, ss := range s.sessions {
		out = append(out, SessionInfo{ID: ss.ID, Bookie: ss.Bookie, DisplayName: ss.DisplayName, Balance: ss.Balance, BotRunning: ss.BotRunning})
	}
	return out
}

// SetBotRunning starts or stops the bot of a session.
func (s *Service) SetBotRunning(sessionID int, running bool) {
	s.changeSession(sessionID, func(ss *session, now time.Time) {
		ss.setRunning(running, now)
	})
}

// SetDateSkew makes the Date header of every response run d ahead of the
// service's clock (behind when negative), as a client with a clock that
// is off would see it.
func (s *Service) SetDateSkew(d time.Duration) { s.dateSkew.Store(int64(d)) }

// SetLoginError sets the login error a session reports (its bot failed to
// log in to the bookmaker); an empty msg clears it. The session's bot keeps
// running: the real service shows both at once.
func (s *Service) SetLoginError(sessionID int, msg string) {
	s.changeSession(sessionID, func(ss *session, now time.Time) {
		ss.LoginError, ss.LoginFailedAt = msg, now
		ss.UpdateTime = now
	})
}

// SetStakeBounds sets a session's bookmaker minimum and maximum stake
// (its account_settings' min_bet_amount and max_bet_amount; 0: none).
// Its bot refuses a slip outside them in the bookmaker's words ("The
// maximum stake is $50."): the real service does not say whether a bot
// caps an out-of-range stake or refuses the slip, and a refusal is the
// case a plan must be told of.
func (s *Service) SetStakeBounds(sessionID int, min, max float64) {
	s.changeSession(sessionID, func(ss *session, now time.Time) {
		ss.MinBet, ss.MaxBet = min, max
		ss.UpdateTime = now
	})
}

// SetRefusedMarkets sets the markets a session's bookmaker does not offer
// its account (none: every market): its bot refuses a slip on one,
// saying the market is not available.
func (s *Service) SetRefusedMarkets(sessionID int, markets ...string) {
	s.changeSession(sessionID, func(ss *session, now time.Time) {
		ss.RefusedMarkets = append([]string(nil), markets...)
	})
}

// changeSession brings the world up to now, then applies change to the
// session, if there is one with that id.
func (s *Service) changeSession(sessionID int, change func(ss *session, now time.Time)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.advance(now)
	if ss := s.session(sessionID); ss != nil {
		change(ss, now)
	}
}

// The race changes below are what the real service shows of a racing day
// that does not go to the card: each takes effect on every notification of
// the race, whoever created it, and a test calls them the way the day
// would bring them.

// MoveStart moves a race's start: the race list and notifications show
// the new time, bots stop taking bets on it then, and it is resulted
// Options.ResultDelay later. It reports whether the race was found.
func (s *Service) MoveStart(ri RaceInfo, start time.Time) bool {
	return s.changeRace(ri, func(r *race) { r.Start, r.ranAt = start, time.Time{} })
}

// RunAt makes a race run at at while the service keeps listing its old
// start, as race data in the wrong time zone does: it is resulted
// Options.ResultDelay after at, whatever the listed start says.
func (s *Service) RunAt(ri RaceInfo, at time.Time) bool {
	return s.changeRace(ri, func(r *race) { r.ranAt = at })
}

// ResultAt makes a race run and resulted at at while the service keeps
// listing its start (an abandoned race, a start in the wrong time zone):
// bots take bets on it until then. A time already past results it at
// once.
func (s *Service) ResultAt(ri RaceInfo, at time.Time) bool {
	return s.changeRace(ri, func(r *race) { r.ranAt, r.resultIn = at, 0 })
}

// Winner is the runner (its number, as `selection` takes it) that wins
// the race, drawn when the race was made: a test can bet on a loser.
func (s *Service) Winner(ri RaceInfo) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.world.races {
		if r.Venue.Names[0] == ri.Venue && r.EventNumber == ri.EventNumber && r.Start.Equal(ri.Start) && len(r.Order) > 0 {
			return strconv.Itoa(r.Order[0])
		}
	}
	return ""
}

// Scratch withdraws a runner: every notification on it is resulted void
// at once (accepted stakes returned), and bots refuse new ones.
func (s *Service) Scratch(ri RaceInfo, runner string) bool {
	num, err := strconv.Atoi(runner)
	if err != nil {
		return false
	}
	now := s.clock.Now()
	return s.changeRace(ri, func(r *race) {
		r.scratched = append(r.scratched, num)
		for _, n := range s.notifications {
			if n.race != r || n.settled {
				continue
			}
			legs, _ := parseSelection(n)
			for _, l := range legs {
				if l.runner == num {
					s.schedule(event{at: now, settle: true, void: true, n: n})
					break
				}
			}
		}
	})
}

// changeRace applies change to the race ri names and reschedules its
// resultings.
func (s *Service) changeRace(ri RaceInfo, change func(*race)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	s.advance(now)
	for _, r := range s.world.races {
		if r.Venue.Names[0] != ri.Venue || r.EventNumber != ri.EventNumber || !r.Start.Equal(ri.Start) {
			continue
		}
		change(r)
		r.wire = nil // listed anew
		for _, n := range s.notifications {
			if n.race == r && !n.settled {
				n.touch()
				s.schedule(event{at: r.resultAt(), settle: true, n: n})
			}
		}
		s.advance(now)
		return true
	}
	return false
}
