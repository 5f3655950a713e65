package sim

import (
	"sync"
	"sync/atomic"
	"time"
)

// CreateResponseShape chooses the body of POST /notification/create/.
type CreateResponseShape int

const (
	// CreateNotificationObject answers with the created notification, `id` a
	// number (the spec's shape).
	CreateNotificationObject CreateResponseShape = iota
	// CreateIDMessage answers {"id": "<id as a string>", "message": "Notification created"}.
	CreateIDMessage
)

// Options configure a simulated service. The zero value is a usable world.
type Options struct {
	Seed  int64 // world seed (races, runners, odds, results, refusals)
	Clock Clock // default RealClock()

	// Credentials accepted by /account/login/; defaults DefaultEmail /
	// DefaultPassword. A second user,
	// "lapsed@example.com" with the same password, has an inactive
	// subscription.
	Email, Password string

	Venues []Venue // default DefaultVenues

	CreateResponse CreateResponseShape
	// BareBetArrays makes GET /bet/notification/{id}/ answer the old doc's
	// bare array of records instead of the new doc's object.
	BareBetArrays bool
	// TipsterAPIKey is the package key /pick/tipster/* accept; default
	// DefaultTipsterAPIKey.
	TipsterAPIKey string
	// PrealertDocsOnly serves the pre-alert at the docs' path only: the
	// spec's /pick/tipster/message/ answers 404.
	PrealertDocsOnly bool
	// TakeUpDelay is how long after creation (or trigger) the bots act;
	// default 3s of sim time.
	TakeUpDelay time.Duration
	// SlowBots is the share (0 to 1) of notifications whose bots answer
	// after about 90 s instead of TakeUpDelay; which ones, the seed
	// decides.
	SlowBots float64
	// ResultDelay is how long after a race's off it is resulted; default
	// 2m of sim time.
	ResultDelay time.Duration
	// MaxOddsIgnored makes the bots take a price above max_odds with
	// check_max_odds on, as a bookmaker that does not hold to the switch
	// would: the service facts show the switch in a client, not that every
	// bookmaker honours it. Off, the bots refuse such a price ("Odds … are
	// above the maximum of …"), as they are asked to.
	MaxOddsIgnored bool
}

// Service is the simulated service; it implements http.Handler.
type Service struct {
	opts  Options
	clock Clock

	mu            sync.Mutex
	world         *world
	users         []*user
	tokens        map[string]*token
	sessions      []*session
	notifications []*notification
	botLogs       []botLog
	faults        []*activeFault
	requests      []*Request
	loginTimes    []time.Time
	limited       map[string][]time.Time // signup, password reset
	nextID        int

	// Indexes over notifications, and the bet records by user, so a
	// request costs the same however many are stored (see index.go).
	byID       map[int]*notification
	byUser     map[int][]*notification      // creation order
	byLabel    map[labelKey][]*notification // creation order
	labelCount map[string]int
	recsByUser map[int][]*betRecord // every record, creation order
	due        eventQueue           // pending take-ups and resultings

	dateSkew atomic.Int64 // added to the Date header: a service clock that is off

	tipster tipsterState // the tip package (tipster.go)
}

type user struct {
	ID       int
	Email    string
	Password string
	Nickname string
	Active   bool
}

// The credentials a service accepts when Options names none.
const (
	DefaultEmail    = "punter@example.com"
	DefaultPassword = "sim-password"
)

// Credentials are the e-mail and password /account/login/ accepts for
// the default user.
func (s *Service) Credentials() (email, password string) {
	return s.opts.Email, s.opts.Password
}

// New builds a service from opts.
func New(opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = RealClock()
	}
	if opts.Email == "" {
		opts.Email = DefaultEmail
	}
	if opts.Password == "" {
		opts.Password = DefaultPassword
	}
	var venues []Venue
	for _, v := range opts.Venues {
		if len(v.Names) == 0 {
			continue // a venue needs a name to be found by
		}
		if v.Code == "" {
			v.Code = "Galloping"
		}
		venues = append(venues, v)
	}
	if len(venues) == 0 {
		venues = append(venues, DefaultVenues...)
	}
	opts.Venues = venues
	if opts.TipsterAPIKey == "" {
		opts.TipsterAPIKey = DefaultTipsterAPIKey
	}
	if opts.ResultDelay <= 0 {
		opts.ResultDelay = defaultResultDelay
	}
	if opts.TakeUpDelay <= 0 {
		opts.TakeUpDelay = 3 * time.Second
	}
	now := opts.Clock.Now()
	s := &Service{
		opts:    opts,
		clock:   opts.Clock,
		tokens:  map[string]*token{},
		limited: map[string][]time.Time{},
		nextID:  1000,

		byID:       map[int]*notification{},
		byUser:     map[int][]*notification{},
		byLabel:    map[labelKey][]*notification{},
		labelCount: map[string]int{},
		recsByUser: map[int][]*betRecord{},
	}
	s.world = newWorld(opts.Seed, now, opts.Venues, opts.ResultDelay)
	s.users = []*user{
		{ID: 612, Email: opts.Email, Password: opts.Password, Nickname: "punter", Active: true},
		{ID: 613, Email: "lapsed@example.com", Password: opts.Password, Nickname: "lapsed", Active: false},
		{ID: subscriberUserID, Email: "subscriber@example.com", Password: opts.Password, Nickname: "subscriber", Active: true},
	}
	s.sessions = defaultSessions(612, now)
	return s
}

// Clock returns the service's clock.
func (s *Service) Clock() Clock { return s.clock }

func (s *Service) newID() int {
	s.nextID++
	return s.nextID
}
