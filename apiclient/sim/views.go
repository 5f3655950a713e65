package sim

import (
	"encoding/json"
	"math"
	"strings"
	"time"
)

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
	EventID             any     `json:"event_id,omitempty"` // a sports notification's (events.go), omitted on racing ones
	Handicap            any     `json:"handicap,omitempty"`
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
	SportsMarket        any     `json:"sports_market,omitempty"`
	SportsSelection     any     `json:"sports_selection,omitempty"`
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
	AmountUnits float64         `json:"amount_units"`
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
	if b := n.sports; b != nil {
		e := b.event
		comp.Name, comp.StartTime = e.name(), e.local(e.Start).Format(layoutSecond)
		if n.settled {
			comp.Result = e.score()
			resultTime = e.local(n.settledAt).Format(layoutMicro)
			if accepted > 0 {
				tipProfit = math.Round(profit/accepted*10000) / 10000
			}
		}
	}
	if r := n.race; r != nil {
		comp.Name = strings.ToUpper(r.Venue.Names[0])
		comp.Code = r.Venue.Code
		comp.StartTime = r.local(r.Start).Format(layoutSecond)
		comp.Runners = r.runnersCSV()
		comp.RunnerNames = r.runnerNames("#&#")
		if n.settled {
			comp.Result = r.resultString()
			if n.void {
				comp.Result = "VOID"
			}
			resultTime = r.local(n.settledAt).Format(layoutMicro)
			if accepted > 0 {
				tipProfit = math.Round(profit/accepted*10000) / 10000
			}
		}
	}
	units, creator := s.tipOf(n)
	return &notificationView{
		ID: n.ID,
		Tip: tipView{
			ID:          n.TipID,
			Creator:     creatorView{Nickname: s.nickname(creator), Avatar: defaultAvatar, ID: creator},
			Competition: comp,
			Market:      n.Market,
			Selection:   n.Selection,
			Odds:        n.Odds,
			Profit:      tipProfit,
			AmountUnits: units,
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
		EventID:             n.sports.eventID(),
		Handicap:            n.sports.handicap(),
		SportsMarket:        n.sports.marketID(),
		SportsSelection:     n.sports.selectionID(),
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

// recordView is the wire shape of a bet record, fields in the order the
// service has always sent them (the keys sorted).
type recordView struct {
	Amount                  float64 `json:"amount"`
	Bookie                  int     `json:"bookie"`
	BotID                   string  `json:"bot_id"`
	CreatedAt               any     `json:"created_at"`
	CurrentOdds             float64 `json:"current_odds"`
	DisplayName             string  `json:"display_name"`
	ID                      int     `json:"id"`
	IsDeleted               bool    `json:"is_deleted"`
	Label                   string  `json:"label"`
	Market                  string  `json:"market"`
	MeetingDate             string  `json:"meeting_date"`
	Notification            int     `json:"notification"`
	Notified                bool    `json:"notified"`
	Owner                   int     `json:"owner"`
	Profit                  float64 `json:"profit"`
	ProfitUpdatedAt         any     `json:"profit_updated_at"`
	ProfitUpdatedBy         string  `json:"profit_updated_by"`
	ReportingUsage          int     `json:"reporting_usage"`
	ResultTime              any     `json:"result_time"`
	Selection               string  `json:"selection"`
	SettledAt               any     `json:"settled_at"`
	Sports                  string  `json:"sports"`
	Status                  string  `json:"status"`
	SubmitError             string  `json:"submit_error"`
	SubmitResult            string  `json:"submit_result"`
	SubmitTime              any     `json:"submit_time"`
	TransactionID           string  `json:"transaction_id"`
	TransactionMinCreatedAt any     `json:"transaction_min_created_at"`
	TransactionResult       string  `json:"transaction_result"`
	UsedBonus               bool    `json:"used_bonus"`
	UsedBoost               bool    `json:"used_boost"`
	UsedSPG                 bool    `json:"used_spg"`
	UserNotes               string  `json:"user_notes"`
}

// recordJSON is the encoded record, cached until it is settled. The bytes
// are shared: never modify them.
func (s *Service) recordJSON(r *betRecord) []byte {
	if r.json == nil {
		r.json = encode(recordViewOf(r))
	}
	return r.json
}

func recordViewOf(r *betRecord) *recordView {
	n := r.n
	var submit, resultTime, settled any
	if r.SubmitResult != "" {
		submit = stamp(r.CreatedAt.Add(-400 * time.Millisecond))
		resultTime = stamp(r.CreatedAt)
	}
	if !r.SettledAt.IsZero() {
		settled = stamp(r.SettledAt)
	}
	meeting := ""
	if n.race != nil {
		meeting = n.race.local(n.race.Start).Format("2006-01-02")
	}
	if b := n.sports; b != nil {
		meeting = b.event.local(b.event.Start).Format("2006-01-02")
	}
	profitBy, profitAt := "", any(nil)
	if !r.SettledAt.IsZero() {
		profitBy, profitAt = "system", settled
	}
	return &recordView{
		ID:                      r.ID,
		DisplayName:             r.s.DisplayName,
		Amount:                  r.Amount,
		CurrentOdds:             r.Odds,
		CreatedAt:               stamp(r.CreatedAt),
		Market:                  n.Market,
		Selection:               n.Selection,
		SubmitTime:              submit,
		ResultTime:              resultTime,
		SubmitResult:            r.SubmitResult,
		SubmitError:             r.SubmitError,
		Profit:                  r.Profit,
		TransactionID:           r.TxID,
		BotID:                   r.s.BotID,
		Notified:                true,
		Sports:                  n.Sports,
		Owner:                   n.UserID,
		Bookie:                  r.s.BookieID,
		Notification:            n.ID,
		TransactionMinCreatedAt: resultTime,
		MeetingDate:             meeting,
		ProfitUpdatedBy:         profitBy,
		ProfitUpdatedAt:         profitAt,
		SettledAt:               settled,
		TransactionResult:       r.TxResult,
		Status:                  r.Status,
		Label:                   n.Label,
	}
}

type betsOfNotificationView struct {
	AverageDeductionPercentage string            `json:"average_deduction_percentage"`
	Bets                       []json.RawMessage `json:"bets"`
	BotLogs                    []logView         `json:"bot_logs"`
	IsBetGroup                 int               `json:"is_bet_group"`
	Logs                       []any             `json:"logs"`
	SessionInfo                []sessionInfoView `json:"session_info"`
}

type sessionInfoView struct {
	Amount      float64 `json:"amount"`
	Bonus       string  `json:"bonus"`
	Bookie      string  `json:"bookie"`
	BotID       string  `json:"bot_id"`
	DisplayName string  `json:"display_name"`
	Market      string  `json:"market"`
	Odds        float64 `json:"odds"`
	Runner      string  `json:"runner"`
}

type logView struct {
	ID  int    `json:"id"`
	Log string `json:"log"`
}

type botLogView struct {
	BotID        string `json:"bot_id"`
	CreatedAt    any    `json:"created_at"`
	ID           int    `json:"id"`
	Log          string `json:"log"`
	Notification int    `json:"notification"`
}
