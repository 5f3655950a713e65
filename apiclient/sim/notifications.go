package sim

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Markets are the bet markets the service lists (GET /bet/markets/).
var Markets = []string{"Fixed Win", "Fixed Place", "Top Fluc", "Tote Win", "Tote Place", "Best Tote Win", "Best Tote Place",
	"Mid Tote Win", "Mid Tote Place", "Best of Best", "Same Race Multi", "Betfair SP", "Lay Win", "Lay Place"}

// NotificationTypes are the types GET /notification/types/ lists. Serial is
// made by tip packages; a create call with it is refused.
var NotificationTypes = []string{"Fixed Wager", "Fixed Profit", "High Odds First", "Serial"}

var codes = []string{"Galloping", "Harness", "Greyhounds"}

type notification struct {
	ID, TipID, UserID int
	Type, Sports      string
	Competition, Code string
	EventNumber       int
	StartTimeReq      string
	Market, Selection string

	Stake, TargetProfit, TotalWager  float64
	Odds, MaxOdds                    float64
	CheckOdds, CheckMaxOdds          bool
	Boost, SPG, BonusBack            bool
	EnsureTotalWager, AllowDouble    bool
	ChooseBestOdds, ChooseRandom     int
	Delay, IsScheduled, IsMarketOpen bool
	AutoTrigger, IsCanceled          bool
	ScheduledAt                      int
	EnableGroupBot                   bool
	EnableGroupBotDelay              int
	Label, TargetSession, TargetBot  string
	BookiesOverride, Note            string
	OriginInfo, TargetMarket         string
	TargetBetType                    string

	CreatedAt, TriggeredAt time.Time
	takeUpAt               time.Time
	pendingTakeUp          bool
	race                   *race
	records                []*betRecord
	ReceivedBots           string
	settled                bool
	settledAt              time.Time
	void                   bool       // resulted void: its selection was scratched (or a sports bet pushed)
	sports                 *sportsBet // a sports notification's event and selection (events.go)
	logs                   []int      // indexes into Service.botLogs
	json                   []byte     // encoded, nil when stale: see touch
}

// touch drops the notification's cached JSON; every change of what
// notificationJSON shows must call it.
func (n *notification) touch() { n.json = nil }

func cents(x float64) float64 { return math.Round(x*100) / 100 }

func (n *notification) totals() (accepted, avgOdds, profit float64) {
	weighted := 0.0
	for _, r := range n.records {
		if r.SubmitResult != "Success" {
			continue
		}
		accepted += r.Amount
		weighted += r.Amount * r.Odds
		profit += r.Profit
	}
	if accepted > 0 {
		avgOdds = math.Round(weighted/accepted*10000) / 10000
	}
	return cents(accepted), avgOdds, cents(profit)
}

// POST /notification/create/. No duplicate detection, by design of the
// real service.
func (s *Service) createNotification(c *call) {
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	n := &notification{UserID: c.user.ID, CreatedAt: c.now, Market: "Fixed Win", Sports: "RACING"}
	fe := fieldErrors{}
	n.Type, _ = str(m, "type")
	switch {
	case n.Type == "":
		fe.add("type", "This field is required.")
	case !slices.Contains(NotificationTypes[:3], n.Type):
		fe.add("type", fmt.Sprintf("%q is not a valid choice.", n.Type))
	}
	if v, ok := str(m, "sports"); ok && v != "" {
		n.Sports = strings.ToUpper(v)
	}
	n.Competition, _ = str(m, "competition")
	if v, ok := str(m, "code"); ok {
		n.Code = v
		if n.Sports == "RACING" && !slices.Contains(codes, v) {
			fe.add("code", fmt.Sprintf("%q is not a valid choice.", v))
		}
	}
	if v, present, ok := num(m, "event_number"); present {
		if !ok || v != math.Trunc(v) || v < 1 {
			fe.add("event_number", "A valid integer is required.")
		}
		n.EventNumber = int(v)
	}
	if v, ok := str(m, "market"); ok {
		n.Market = v
		if n.Sports == "RACING" && !slices.Contains(Markets, v) {
			fe.add("market", fmt.Sprintf("%q is not a valid choice.", v))
		}
	}
	n.Selection, _ = str(m, "selection")
	n.StartTimeReq, _ = str(m, "start_time")
	amount := func(key string, dst *float64, required bool) {
		v, present, ok := num(m, key)
		switch {
		case present && !ok:
			fe.add(key, "A valid number is required.")
		case present && v <= 0:
			fe.add(key, "Ensure this value is greater than 0.")
		case !present && required:
			fe.add(key, "This field is required for "+n.Type+".")
		}
		*dst = v
	}
	amount("stake", &n.Stake, n.Type == "Fixed Wager" || n.Type == "High Odds First")
	amount("target_profit", &n.TargetProfit, n.Type == "Fixed Profit")
	if _, present, _ := num(m, "total_wager"); present {
		amount("total_wager", &n.TotalWager, false)
	}
	n.Odds, _, _ = num(m, "odds")
	n.MaxOdds, _, _ = num(m, "max_odds")
	n.CheckOdds = boolean(m, "check_odds")
	n.CheckMaxOdds = boolean(m, "check_max_odds")
	n.Boost = boolean(m, "boost_if_available")
	n.SPG = boolean(m, "spg_if_available")
	n.BonusBack = boolean(m, "bonus_back_if_available")
	n.EnsureTotalWager = boolean(m, "ensure_total_wager")
	n.AllowDouble = boolean(m, "allow_double_bets")
	n.ChooseBestOdds = boolInt(boolean(m, "choose_best_odds"))
	n.ChooseRandom = boolInt(boolean(m, "choose_random_accounts"))
	n.Delay = boolean(m, "delay")
	n.IsScheduled = boolean(m, "is_scheduled")
	n.IsMarketOpen = boolean(m, "is_market_open")
	n.AutoTrigger = boolean(m, "auto_trigger")
	n.EnableGroupBot = boolean(m, "enable_group_bot")
	n.EnableGroupBotDelay = boolInt(boolean(m, "enable_group_bot_delay"))
	n.Label, _ = str(m, "label")
	n.TargetSession, _ = str(m, "target_session")
	n.TargetBot, _ = str(m, "target_bot")
	n.BookiesOverride, _ = str(m, "bookies_override")
	n.Note, _ = str(m, "note")
	n.OriginInfo = "API"
	n.TargetMarket, _ = str(m, "target_market")
	n.TargetBetType, _ = str(m, "target_bet_type")
	if n.Sports != "RACING" {
		s.readSports(n, m, fe)
	}
	if len(fe) > 0 {
		writeJSON(c.w, http.StatusBadRequest, fe)
		return
	}
	// Unused amounts come back as 1/0, never null (as in a real capture).
	if n.Stake == 0 {
		n.Stake = 1
	}
	n.ID = s.newID()
	n.TipID = s.newID()
	if n.Sports == "RACING" {
		n.race = s.world.findRace(c.now, n.Competition, n.Code, n.EventNumber, n.StartTimeReq)
	}
	if !n.IsScheduled {
		s.fire(n, c.now)
	}
	s.addNotification(n)
	if s.opts.CreateResponse == CreateIDMessage {
		writeJSON(c.w, http.StatusOK, map[string]string{"id": strconv.Itoa(n.ID), "message": "Notification created"})
		return
	}
	writeRaw(c.w, http.StatusOK, s.notificationJSON(n))
}

func (s *Service) notification(c *call) *notification {
	if n := s.byID[c.id]; n != nil && n.UserID == c.user.ID {
		return n
	}
	writeError(c.w, http.StatusNotFound, "Not found.")
	return nil
}

// writeNotifications writes a page of list, newest first.
func (s *Service) writeNotifications(c *call, list []*notification) {
	writePage(c.w, paginate(c, len(list)), func(i int) []byte {
		return s.notificationJSON(newestFirst(list, i))
	})
}

// GET /notification/?page=&page_size=&label=
func (s *Service) listNotifications(c *call) {
	q := c.r.URL.Query()
	list := s.byUser[c.user.ID]
	if q.Has("label") {
		list = s.byLabel[labelKey{c.user.ID, q.Get("label")}]
	}
	s.writeNotifications(c, list)
}

// GET /notification/scheduled/: scheduled notifications not yet fired.
func (s *Service) listScheduled(c *call) {
	var list []*notification
	for _, n := range s.byUser[c.user.ID] {
		if n.IsScheduled && n.TriggeredAt.IsZero() && !n.IsCanceled {
			list = append(list, n)
		}
	}
	s.writeNotifications(c, list)
}

// GET /notification/{id}/
func (s *Service) getNotification(c *call) {
	if n := s.notification(c); n != nil {
		writeRaw(c.w, http.StatusOK, s.notificationJSON(n))
	}
}

// GET /notification/types/: a bare array of type names.
func (s *Service) notificationTypes(c *call) {
	writeJSON(c.w, http.StatusOK, NotificationTypes)
}

func (n *notification) started(now time.Time) bool {
	off, ok := n.off()
	return ok && !now.Before(off)
}

// POST /notification/{id}/trigger/: fires a scheduled notification.
func (s *Service) triggerNotification(c *call) {
	s.notificationAction(c, func(n *notification) []refusal {
		return []refusal{
			{n.IsCanceled, "Notification is cancelled."},
			{!n.IsScheduled || !n.TriggeredAt.IsZero(), "Notification has already been triggered."},
			{n.started(c.now) || n.settled, "The race has already started."},
		}
	}, func(n *notification) string {
		s.fire(n, c.now)
		return "Notification triggered."
	})
}

// POST /notification/{id}/cancel/: bets already placed stay placed.
func (s *Service) cancelNotification(c *call) {
	s.notificationAction(c, func(n *notification) []refusal {
		return []refusal{
			{n.IsCanceled, "Notification is already cancelled."},
			{n.settled, "Notification has already been resulted."},
			{n.started(c.now), "The race has already started."},
		}
	}, func(n *notification) string {
		n.IsCanceled = true
		n.touch()
		if len(n.records) > 0 {
			return "Notification cancelled; bets already placed at bookmakers stay placed."
		}
		return "Notification cancelled."
	})
}

// refusal is one reason the service refuses a call on a notification:
// when it applies, the call is a 400 with its message.
type refusal struct {
	applies bool
	message string
}

// notificationAction answers a POST that acts on one of the user's
// notifications: 404 when it is not theirs, 400 with the first of
// refusals that applies, else act runs and its message is the success.
func (s *Service) notificationAction(c *call, refusals func(*notification) []refusal, act func(*notification) string) {
	n := s.notification(c)
	if n == nil {
		return
	}
	for _, r := range refusals(n) {
		if r.applies {
			writeError(c.w, http.StatusBadRequest, r.message)
			return
		}
	}
	writeJSON(c.w, http.StatusOK, map[string]string{"status": "success", "message": act(n)})
}

// GET /notification/{id}/race/detail/: our shape, the spec shows none.
func (s *Service) raceDetail(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	r := n.race
	if r == nil {
		writeError(c.w, http.StatusNotFound, "Race not found.")
		return
	}
	status := "OPEN"
	switch {
	case !c.now.Before(r.resultAt()):
		status = "RESULTED"
	case !c.now.Before(r.off()):
		status = "CLOSED"
	}
	runners := []any{}
	for _, rn := range r.Runners {
		e := map[string]any{"number": rn.Number, "name": rn.Name, "odds": rn.Odds, "position": nil}
		if status == "RESULTED" {
			e["position"] = r.position(rn.Number)
		}
		runners = append(runners, e)
	}
	result := ""
	if status == "RESULTED" {
		result = r.resultString()
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"notification": n.ID,
		"competition": map[string]any{
			"name": r.Venue.Names, "code": r.Venue.Code, "event_number": r.EventNumber,
			"starttime": r.local(r.Start).Format(layoutSecond), "country": "AUS",
			"runners": r.runnersCSV(), "runner_names": r.runnerNames(","), "result": result,
		},
		"status":  status,
		"runners": runners,
	})
}
