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
	logs                   []int  // indexes into Service.botLogs
	json                   []byte // encoded, nil when stale: see touch
}

// touch drops the notification's cached JSON; every change of what
// notificationJSON shows must call it.
func (n *notification) touch() { n.json = nil }

type betRecord struct {
	ID           int
	n            *notification
	s            *session
	Amount, Odds float64
	CreatedAt    time.Time
	SubmitResult string
	SubmitError  string
	Profit       float64
	Status       string
	TxResult     string
	TxID         string
	SettledAt    time.Time
	json         []byte // encoded, nil when stale
}

type botLog struct {
	ID             int
	NotificationID int
	UserID         int
	BotID          string
	Log            string
	At             time.Time
}

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

// fire broadcasts a notification to the bots: they act TakeUpDelay later.
func (s *Service) fire(n *notification, now time.Time) {
	n.TriggeredAt = now.Add(7 * time.Millisecond)
	n.takeUpAt = now.Add(s.opts.TakeUpDelay)
	n.pendingTakeUp = true
	n.touch()
	s.schedule(event{at: n.takeUpAt, n: n})
}

func (s *Service) log(n *notification, botID, msg string, at time.Time) {
	n.logs = append(n.logs, len(s.botLogs))
	s.botLogs = append(s.botLogs, botLog{ID: len(s.botLogs) + 1, NotificationID: n.ID, UserID: n.UserID, BotID: botID, Log: msg, At: at})
}

func (n *notification) targets(ss *session) bool {
	if n.TargetSession != "" {
		found := false
		for _, id := range strings.Split(n.TargetSession, ",") {
			if strings.TrimSpace(id) == strconv.Itoa(ss.ID) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return n.TargetBot == "" || n.TargetBot == ss.BotID
}

// takeUp is the bots acting on a notification: one record per running,
// targeted session, if the race is known and has not started.
func (s *Service) takeUp(n *notification, at time.Time) {
	n.pendingTakeUp = false
	n.touch()
	if n.IsCanceled || n.settled {
		return
	}
	if n.race == nil || !at.Before(n.race.Start) {
		return
	}
	var acting []*session
	for _, ss := range s.sessions {
		if ss.UserID == n.UserID && ss.BotRunning && n.targets(ss) {
			acting = append(acting, ss)
		}
	}
	var bots []string
	for i, ss := range acting {
		if !slices.Contains(bots, ss.BotID) {
			bots = append(bots, ss.BotID)
		}
		submitted := at.Add(time.Duration(i) * 850 * time.Millisecond)
		rec := &betRecord{ID: s.newID(), n: n, s: ss, CreatedAt: submitted, Status: "PENDING"}
		odds, errMsg := s.price(n)
		rec.Odds = odds
		amount := 0.0
		switch n.Type {
		case "Fixed Profit":
			if odds > 1 {
				amount = cents(n.TargetProfit / (odds - 1))
			}
		default:
			amount = n.Stake
			if n.EnsureTotalWager {
				amount = cents(n.Stake / float64(len(acting)))
			}
		}
		switch {
		case errMsg != "":
		case n.CheckOdds && n.Odds > 0 && odds < n.Odds:
			errMsg = fmt.Sprintf("Odds %.2f are below the minimum of %.2f.", odds, n.Odds)
		case n.CheckMaxOdds && n.MaxOdds > 0 && odds > n.MaxOdds:
			errMsg = fmt.Sprintf("Odds %.2f are above the maximum of %.2f.", odds, n.MaxOdds)
		case amount < 1 || mix(uint64(s.opts.Seed), uint64(n.ID), uint64(ss.ID))%100 < 3:
			errMsg = "The minimum stake is $1."
		case amount > ss.Balance:
			errMsg = "Insufficient funds in your account."
		}
		ss.BetsToday++
		ss.UpdateTime = submitted
		if errMsg != "" {
			rec.SubmitResult, rec.SubmitError, rec.Status = "Error", errMsg, "FAILED"
			ss.FailedToday++
			s.log(n, ss.BotID, ss.DisplayName+": bet failed: "+errMsg, submitted)
		} else {
			rec.Amount = amount
			rec.SubmitResult, rec.SubmitError = "Success", "Bet has been placed."
			rec.TxID = strconv.FormatUint(mix(uint64(s.opts.Seed), uint64(rec.ID))%1e10, 10)
			ss.Balance = cents(ss.Balance - amount)
			ss.OKToday++
			ss.StakeToday += amount
			s.log(n, ss.BotID, fmt.Sprintf("%s: placed $%.2f at %.2f", ss.DisplayName, amount, odds), submitted)
		}
		s.addRecord(n, rec)
	}
	if len(acting) == 0 {
		s.log(n, "", "No running session matched the notification.", at)
	}
	n.ReceivedBots = strings.Join(bots, ",")
}

// price gives the odds a bookmaker offers for the notification's market and
// selection, or the error a bot would meet placing it.
func (s *Service) price(n *notification) (float64, string) {
	legs, err := parseSelection(n)
	if err != "" {
		return 0, err
	}
	odds := 1.0
	for _, l := range legs {
		rn, ok := n.race.runner(l.runner)
		if !ok {
			return 0, fmt.Sprintf("Runner %d is not in this race.", l.runner)
		}
		o := rn.Odds
		switch {
		case n.Market == "Same Race Multi":
			o = 1 + (rn.Odds-1)/float64(l.top)
		case strings.Contains(n.Market, "Place"):
			o = 1 + (rn.Odds-1)/4
		}
		odds *= o
	}
	return niceOdds(odds), ""
}

type leg struct{ runner, top int }

func parseSelection(n *notification) ([]leg, string) {
	sel := strings.TrimSpace(n.Selection)
	if n.Market != "Same Race Multi" {
		r, err := strconv.Atoi(sel)
		if err != nil {
			return nil, fmt.Sprintf("Selection %q not found.", sel)
		}
		top := 1
		if strings.Contains(n.Market, "Place") {
			top = 3
		}
		return []leg{{r, top}}, ""
	}
	var legs []leg
	for _, part := range strings.Split(sel, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(part), ":")
		r, err1 := strconv.Atoi(a)
		p, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || p < 1 {
			return nil, fmt.Sprintf("Same Race Multi selection %q is not valid.", sel)
		}
		legs = append(legs, leg{r, p})
	}
	return legs, ""
}

// settle results a notification when its race is resulted.
func (s *Service) settle(n *notification, at time.Time) {
	n.settled, n.settledAt = true, at
	n.touch()
	legs, _ := parseSelection(n)
	won := len(legs) > 0
	for _, l := range legs {
		if p := n.race.position(l.runner); p == 0 || p > l.top {
			won = false
		}
	}
	lay := strings.HasPrefix(n.Market, "Lay")
	for _, r := range n.records {
		if r.SubmitResult != "Success" {
			continue
		}
		switch {
		case lay && !won: // the runner lost: the layer keeps the backer's stake
			r.Profit, r.TxResult = r.Amount, "WIN"
			r.s.Balance = cents(r.s.Balance + 2*r.Amount)
		case lay:
			r.Profit, r.TxResult = -cents(r.Amount*(r.Odds-1)), "LOSS"
			r.s.Balance = cents(r.s.Balance + r.Amount + r.Profit)
		case won:
			r.Profit, r.TxResult = cents(r.Amount*(r.Odds-1)), "WIN"
			r.s.Balance = cents(r.s.Balance + r.Amount + r.Profit)
		default:
			r.Profit, r.TxResult = -r.Amount, "LOSS"
		}
		r.Status, r.SettledAt = "SETTLED", at
		r.json = nil
		r.s.ProfitToday += r.Profit
	}
}

// notificationView is the wire shape of a notification. Its fields are in
// the order the service has always sent them (the keys sorted), and the
// values keep their types: a null stays a null.
type notificationView struct {
	AlarmSent           bool    `json:"alarm_sent"`
	AllowDoubleBets     bool    `json:"allow_double_bets"`
	AutoTrigger         bool    `json:"auto_trigger"`
	AverageOdds         float64 `json:"average_odds"`
	BonusBack           bool    `json:"bonus_back_if_available"`
	BookiesOverride     string  `json:"bookies_override"`
	Boost               bool    `json:"boost_if_available"`
	CheckMaxOdds        bool    `json:"check_max_odds"`
	CheckOdds           bool    `json:"check_odds"`
	ChooseBestOdds      int     `json:"choose_best_odds"`
	ChooseRandom        int     `json:"choose_random_accounts"`
	CreatedAt           any     `json:"created_at"`
	Delay               bool    `json:"delay"`
	EnableGroupBot      bool    `json:"enable_group_bot"`
	EnableGroupBotDelay int     `json:"enable_group_bot_delay"`
	EnableGroupPrealert bool    `json:"enable_group_prealert"`
	EnsureTotalWager    bool    `json:"ensure_total_wager"`
	ID                  int     `json:"id"`
	IsCanceled          bool    `json:"is_canceled"`
	IsDeleted           bool    `json:"is_deleted"`
	IsDraft             bool    `json:"is_draft"`
	IsMarketOpen        bool    `json:"is_market_open"`
	IsScheduled         bool    `json:"is_scheduled"`
	Label               string  `json:"label"`
	MaxOdds             float64 `json:"max_odds"`
	Note                string  `json:"note"`
	OriginInfo          string  `json:"origin_info"`
	Profit              float64 `json:"profit"`
	ReceivedBots        string  `json:"received_bots"`
	ScheduledAt         int     `json:"scheduled_at"`
	SPG                 bool    `json:"spg_if_available"`
	Sports              string  `json:"sports"`
	Stake               float64 `json:"stake"`
	TargetBetType       string  `json:"target_bet_type"`
	TargetBot           string  `json:"target_bot"`
	TargetMarket        string  `json:"target_market"`
	TargetProfit        float64 `json:"target_profit"`
	TargetSession       string  `json:"target_session"`
	Tip                 tipView `json:"tip"`
	TotalAccepted       float64 `json:"total_accepted"`
	TotalWager          float64 `json:"total_wager"`
	TriggeredAt         any     `json:"triggered_at"`
	Type                string  `json:"type"`
	User                int     `json:"user"`
}

type tipView struct {
	AmountUnits int             `json:"amount_units"`
	Competition competitionView `json:"competition"`
	Creator     creatorView     `json:"creator"`
	ID          int             `json:"id"`
	Market      string          `json:"market"`
	Odds        float64         `json:"odds"`
	Profit      float64         `json:"profit"`
	ResultTime  any             `json:"result_time"`
	Selection   string          `json:"selection"`
}

type competitionView struct {
	Code        string `json:"code"`
	EventNumber int    `json:"event_number"`
	Name        string `json:"name"`
	Result      string `json:"result"`
	RunnerNames string `json:"runner_names"`
	Runners     string `json:"runners"`
	StartTime   any    `json:"startTime"`
}

type creatorView struct {
	Avatar   string `json:"avatar"`
	ID       int    `json:"id"`
	Nickname string `json:"nickname"`
}

const defaultAvatar = "https://betmatic-bucket.s3.ap-southeast-2.amazonaws.com/avatar/default.png"

// notificationJSON is the encoded notification, cached until its state
// changes (touch). The bytes are shared: never modify them.
func (s *Service) notificationJSON(n *notification) []byte {
	if n.json == nil {
		n.json = encode(s.notificationView(n))
	}
	return n.json
}

func (s *Service) notificationView(n *notification) *notificationView {
	accepted, avg, profit := n.totals()
	comp := competitionView{Name: n.Competition, Code: n.Code, EventNumber: n.EventNumber}
	var resultTime any
	tipProfit := 0.0
	if r := n.race; r != nil {
		comp.Name = strings.ToUpper(r.Venue.Names[0])
		comp.Code = r.Venue.Code
		comp.StartTime = r.local(r.Start).Format(layoutSecond)
		comp.Runners = r.runnersCSV()
		comp.RunnerNames = r.runnerNames("#&#")
		if n.settled {
			comp.Result = r.resultString()
			resultTime = r.local(n.settledAt).Format(layoutMicro)
			if accepted > 0 {
				tipProfit = math.Round(profit/accepted*10000) / 10000
			}
		}
	}
	return &notificationView{
		ID: n.ID,
		Tip: tipView{
			ID:          n.TipID,
			Creator:     creatorView{Nickname: s.nickname(n.UserID), Avatar: defaultAvatar, ID: n.UserID},
			Competition: comp,
			Market:      n.Market,
			Selection:   n.Selection,
			Odds:        n.Odds,
			Profit:      tipProfit,
			AmountUnits: 1,
			ResultTime:  resultTime,
		},
		Type:                n.Type,
		Stake:               n.Stake,
		TargetProfit:        n.TargetProfit,
		TotalWager:          n.TotalWager,
		CheckOdds:           n.CheckOdds,
		CheckMaxOdds:        n.CheckMaxOdds,
		MaxOdds:             n.MaxOdds,
		Boost:               n.Boost,
		SPG:                 n.SPG,
		BonusBack:           n.BonusBack,
		EnsureTotalWager:    n.EnsureTotalWager,
		AllowDoubleBets:     n.AllowDouble,
		ChooseBestOdds:      n.ChooseBestOdds,
		ChooseRandom:        n.ChooseRandom,
		CreatedAt:           stamp(n.CreatedAt),
		TargetMarket:        n.TargetMarket,
		TargetBetType:       n.TargetBetType,
		TotalAccepted:       accepted,
		AverageOdds:         avg,
		Profit:              profit,
		Delay:               n.Delay,
		IsScheduled:         n.IsScheduled,
		IsMarketOpen:        n.IsMarketOpen,
		IsCanceled:          n.IsCanceled,
		AutoTrigger:         n.AutoTrigger,
		ScheduledAt:         n.ScheduledAt,
		TriggeredAt:         stamp(n.TriggeredAt),
		BookiesOverride:     n.BookiesOverride,
		TargetSession:       n.TargetSession,
		TargetBot:           n.TargetBot,
		ReceivedBots:        n.ReceivedBots,
		EnableGroupBot:      n.EnableGroupBot,
		EnableGroupBotDelay: n.EnableGroupBotDelay,
		OriginInfo:          n.OriginInfo,
		Note:                n.Note,
		Sports:              n.Sports,
		Label:               n.Label,
		User:                n.UserID,
	}
}

func (s *Service) nickname(userID int) string {
	for _, u := range s.users {
		if u.ID == userID {
			return u.Nickname
		}
	}
	return ""
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
	return n.race != nil && !now.Before(n.race.Start)
}

// POST /notification/{id}/trigger/: fires a scheduled notification.
func (s *Service) triggerNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	switch {
	case n.IsCanceled:
		writeError(c.w, http.StatusBadRequest, "Notification is cancelled.")
	case !n.IsScheduled || !n.TriggeredAt.IsZero():
		writeError(c.w, http.StatusBadRequest, "Notification has already been triggered.")
	case n.started(c.now) || n.settled:
		writeError(c.w, http.StatusBadRequest, "The race has already started.")
	default:
		s.fire(n, c.now)
		writeJSON(c.w, http.StatusOK, map[string]string{"status": "success", "message": "Notification triggered."})
	}
}

// POST /notification/{id}/cancel/: bets already placed stay placed.
func (s *Service) cancelNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	switch {
	case n.IsCanceled:
		writeError(c.w, http.StatusBadRequest, "Notification is already cancelled.")
	case n.settled:
		writeError(c.w, http.StatusBadRequest, "Notification has already been resulted.")
	case n.started(c.now):
		writeError(c.w, http.StatusBadRequest, "The race has already started.")
	default:
		n.IsCanceled = true
		n.touch()
		msg := "Notification cancelled."
		if len(n.records) > 0 {
			msg = "Notification cancelled; bets already placed at bookmakers stay placed."
		}
		writeJSON(c.w, http.StatusOK, map[string]string{"status": "success", "message": msg})
	}
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
	case !c.now.Before(r.Start):
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

// GET /competition/namecodes/: a bare array of the races not yet started.
func (s *Service) namecodes(c *call) {
	out := []any{}
	for _, r := range s.world.races {
		if !r.Start.After(c.now) {
			continue
		}
		out = append(out, map[string]any{
			"code":         r.Venue.Code,
			"name":         r.Venue.Names,
			"event_number": r.EventNumber,
			"starttime":    r.local(r.Start).Format(layoutSecond),
			"runners":      r.runnersCSV(),
			"runner_names": r.runnerNames(","),
			"country":      "AUS",
			"scrape_date":  r.local(r.ScrapeDate).Format(layoutMicro),
		})
	}
	writeJSON(c.w, http.StatusOK, out)
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
