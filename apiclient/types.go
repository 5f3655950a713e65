package apiclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Race is an entry of the upcoming competitions list
// (GET /competition/namecodes/).
type Race struct {
	Code        string `json:"code"`
	Name        Names  `json:"name"`
	EventNumber Int    `json:"event_number"`
	StartTime   Time   `json:"starttime"`
	Runners     string `json:"runners"`
	RunnerNames string `json:"runner_names"`
	Country     string `json:"country"`
	ScrapeDate  Time   `json:"scrape_date"`
}

// Venue is the name to send back as a create call's `competition`.
func (r Race) Venue() string { return r.Name.First() }

// RunnerNumbers returns the race's runner numbers.
func (r Race) RunnerNumbers() []string { return SplitList(r.Runners) }

// RunnerNameList returns the runner names, in the order of RunnerNumbers.
func (r Race) RunnerNameList() []string { return SplitList(r.RunnerNames) }

// Session is a bookmaker account run by one of the customer's bots
// (GET /bookieaccount/).
type Session struct {
	ID               Int             `json:"id"`
	Bookie           String          `json:"bookie"`
	DisplayName      string          `json:"display_name"`
	Balance          Float           `json:"balance"`
	BonusBalance     Float           `json:"bonus_balance"`
	UpdateTime       Time            `json:"update_time"`
	BotIP            string          `json:"bot_ip"`
	BotID            String          `json:"bot_id"`
	BotRunning       Bool            `json:"bot_running"`
	RunningSessions  Int             `json:"running_sessions"`
	LoginStatus      string          `json:"login_status"` // LOGGED_IN and others, kept as sent
	LastLoginAttempt Time            `json:"last_login_attempt"`
	LoginError       *string         `json:"login_error"`
	SessionDetails   json.RawMessage `json:"session_details,omitempty"`
	AccountSettings  json.RawMessage `json:"account_settings,omitempty"`
	PerformanceStats json.RawMessage `json:"performance_stats,omitempty"`
}

// Creator is the tipster or user a tip came from.
type Creator struct {
	ID       Int    `json:"id"`
	Nickname string `json:"nickname"`
	Avatar   string `json:"avatar"`
}

// TipCompetition is the race a notification is for.
type TipCompetition struct {
	Name        Names  `json:"name"`
	Code        string `json:"code"`
	EventNumber Int    `json:"event_number"`
	StartTime   Time   `json:"startTime"`
	Runners     string `json:"runners"`
	RunnerNames string `json:"runner_names"`
	// Result is the finishing order, runner numbers joined by "/", first
	// the winner; empty before the race is resulted.
	Result string `json:"result"`
}

// Tip is the race, market and selection of a notification.
type Tip struct {
	ID          Int            `json:"id"`
	Creator     *Creator       `json:"creator,omitempty"`
	Competition TipCompetition `json:"competition"`
	Market      string         `json:"market"`
	Selection   String         `json:"selection"`
	Odds        Float          `json:"odds"`
	AmountUnits Float          `json:"amount_units"`
	// Profit is per accepted dollar: average_odds-1 on a winner, -1 on a loser.
	Profit Float `json:"profit"`
	// ResultTime is set once the race is resulted; zero before.
	ResultTime Time `json:"result_time"`
}

// Notification is one bet instruction, with the result rolled up over all
// sessions (GET /notification/).
type Notification struct {
	ID            Int    `json:"id"`
	Tip           Tip    `json:"tip"`
	Type          string `json:"type"`
	Label         string `json:"label"`
	Sports        string `json:"sports"`
	Stake         Money  `json:"stake"`
	TargetProfit  Money  `json:"target_profit"`
	TotalWager    Money  `json:"total_wager"`
	TotalAccepted Money  `json:"total_accepted"`
	AverageOdds   Float  `json:"average_odds"`
	Profit        Money  `json:"profit"` // signed, dollars, aggregate over sessions
	CheckOdds     Bool   `json:"check_odds"`
	CheckMaxOdds  Bool   `json:"check_max_odds"`
	// MaxOdds is the create's max_odds when the service echoes it (the
	// spec's list shows check_max_odds only): 0 when it does not.
	MaxOdds Float `json:"max_odds"`
	// EnsureTotalWager makes a Fixed Wager stake the total across the
	// sessions that place it (service facts §2.1).
	EnsureTotalWager Bool   `json:"ensure_total_wager"`
	IsDraft          Bool   `json:"is_draft"`
	IsScheduled      Bool   `json:"is_scheduled"`
	IsCanceled       Bool   `json:"is_canceled"`
	IsDeleted        Bool   `json:"is_deleted"`
	IsMarketOpen     Bool   `json:"is_market_open"`
	CreatedAt        Time   `json:"created_at"`
	TriggeredAt      Time   `json:"triggered_at"`
	TargetMarket     string `json:"target_market"`
	TargetBetType    string `json:"target_bet_type"`
	TargetSession    String `json:"target_session"`
	TargetBot        String `json:"target_bot"`
	ReceivedBots     string `json:"received_bots"`
	BookiesOverride  string `json:"bookies_override"`
	Note             string `json:"note"`
	OriginInfo       string `json:"origin_info"`
	User             Int    `json:"user"`
	// A sports notification's event, market and selection ids and line,
	// as the create call sent them, when the service echoes them.
	EventID         String `json:"event_id,omitempty"`
	SportsMarket    String `json:"sports_market,omitempty"`
	SportsSelection String `json:"sports_selection,omitempty"`
	Handicap        *Float `json:"handicap,omitempty"`

	// Raw is the whole object as received, so fields not modelled here stay
	// reachable.
	Raw json.RawMessage `json:"-"`

	// corrupt names the amounts that were not money (CorruptAmounts).
	corrupt string
}

// UnmarshalJSON keeps the raw object beside the decoded fields, and reads
// an amount that is not money as 0, named by CorruptAmounts.
func (n *Notification) UnmarshalJSON(b []byte) error {
	type plain Notification // without this method, so no recursion
	if err := decodeKeepingRaw(b, (*plain)(n), &n.Raw); err != nil {
		return err
	}
	n.corrupt = checkMoney(moneyField{"stake", &n.Stake}, moneyField{"target_profit", &n.TargetProfit},
		moneyField{"total_wager", &n.TotalWager}, moneyField{"total_accepted", &n.TotalAccepted}, moneyField{"profit", &n.Profit})
	return nil
}

// CorruptAmounts says which amounts of the notification the service sent
// that are not money (not finite, or beyond bet.MaxDollars), and what they
// were; "" when every amount is money. Those read as 0: a corrupt record,
// whose amounts no sum may take.
func (n *Notification) CorruptAmounts() string { return n.corrupt }

// Resulted reports whether the race was resulted: only then is Profit final.
func (n *Notification) Resulted() bool { return !n.Tip.ResultTime.IsZero() }

// BetRecord is one bookmaker session's attempt at a notification
// (GET /bet/notification/{id}/, GET /bet/).
type BetRecord struct {
	ID                Int    `json:"id"`
	DisplayName       string `json:"display_name"`
	Bookie            String `json:"bookie"`
	Amount            Money  `json:"amount"`       // dollars actually placed; 0 when refused
	CurrentOdds       Float  `json:"current_odds"` // odds obtained
	Market            string `json:"market"`
	SubmitResult      string `json:"submit_result"` // Success, Error, In Review, or a new value kept as sent
	SubmitError       string `json:"submit_error"`
	Profit            Money  `json:"profit"`
	Status            string `json:"status"` // SETTLED and others, kept as sent
	TransactionResult string `json:"transaction_result"`
	TransactionID     String `json:"transaction_id"`
	BotID             String `json:"bot_id"`
	Owner             String `json:"owner"`
	Notification      String `json:"notification"`
	Label             string `json:"label"`
	MeetingDate       string `json:"meeting_date"`
	UsedBoost         Bool   `json:"used_boost"`
	UsedSPG           Bool   `json:"used_spg"`
	UsedBonus         Bool   `json:"used_bonus"`
	CreatedAt         Time   `json:"created_at"`
	SubmitTime        Time   `json:"submit_time"`
	ResultTime        Time   `json:"result_time"`
	SettledAt         Time   `json:"settled_at"`

	Raw json.RawMessage `json:"-"`

	// corrupt names the amounts that were not money (CorruptAmounts).
	corrupt string
}

// UnmarshalJSON keeps the raw object beside the decoded fields, and reads
// an amount that is not money as 0, named by CorruptAmounts.
func (r *BetRecord) UnmarshalJSON(b []byte) error {
	type plain BetRecord // without this method, so no recursion
	if err := decodeKeepingRaw(b, (*plain)(r), &r.Raw); err != nil {
		return err
	}
	r.corrupt = checkMoney(moneyField{"amount", &r.Amount}, moneyField{"profit", &r.Profit})
	return nil
}

// CorruptAmounts says which amounts of the record are not money, as
// Notification.CorruptAmounts does; "" when every amount is.
func (r *BetRecord) CorruptAmounts() string { return r.corrupt }

// decodeKeepingRaw decodes b into v and keeps a copy of b in raw, so
// fields the types do not model stay reachable.
func decodeKeepingRaw[T any](b []byte, v *T, raw *json.RawMessage) error {
	var decoded T
	if err := json.Unmarshal(b, &decoded); err != nil {
		return err
	}
	*v = decoded
	*raw = append(json.RawMessage(nil), b...)
	return nil
}

// Submit results as documented; others are kept as their string.
const (
	SubmitSuccess  = "Success"
	SubmitError    = "Error"
	SubmitInReview = "In Review"
)

// Accepted reports whether the bookmaker took the bet.
func (r *BetRecord) Accepted() bool {
	return strings.EqualFold(r.SubmitResult, SubmitSuccess) && r.Amount > 0
}

// Failed reports whether the session's attempt ended in an error.
func (r *BetRecord) Failed() bool { return strings.EqualFold(r.SubmitResult, SubmitError) }

// Page is the pagination envelope of list endpoints. Count is never below
// 1, even with no results: rely on len(Results).
type Page[T any] struct {
	Count      Int     `json:"count"`
	Next       *string `json:"next"`
	Previous   *string `json:"previous"`
	TotalPages Int     `json:"total_pages"`
	Results    []T     `json:"results"`
}

// CreateNotificationRequest is the body of POST /notification/create/.
// Options carries the plan's notification options (check_odds, odds,
// max_odds, ...) and is merged into the top-level object; it cannot
// override the named fields.
type CreateNotificationRequest struct {
	Type          string  `json:"type"`
	Sports        string  `json:"sports"`
	Competition   string  `json:"competition,omitempty"`
	Code          string  `json:"code,omitempty"`
	EventNumber   int     `json:"event_number,omitempty"`
	StartTime     string  `json:"start_time,omitempty"`
	Market        string  `json:"market,omitempty"`
	Selection     string  `json:"selection,omitempty"`
	Stake         float64 `json:"stake,omitempty"`
	TargetProfit  float64 `json:"target_profit,omitempty"`
	Label         string  `json:"label,omitempty"`
	TargetSession string  `json:"target_session,omitempty"`

	// A sports bet names the event, market and selection by the ids the
	// event endpoints list (events.go), and the line on line markets (0
	// is a line: nil sends none).
	EventID         SportsID `json:"event_id,omitempty"`
	SportsMarket    SportsID `json:"sports_market,omitempty"`
	SportsSelection SportsID `json:"sports_selection,omitempty"`
	Handicap        *float64 `json:"handicap,omitempty"`

	Options map[string]any `json:"-"`
}

// CreateResult is what POST /notification/create/ answered. The id may
// arrive as a number, a string or inside {"id": ..., "message": ...}; ID is
// 0 when no id could be read, and the caller then finds it by label.
type CreateResult struct {
	ID           int64
	Message      string
	Notification *Notification // when the body was the created notification
	Raw          []byte
}

// ListNotificationsOptions are the query parameters of GET /notification/.
type ListNotificationsOptions struct {
	Page     int
	PageSize int // at most 100
	Label    string
}

// ListBetsOptions are the query parameters of GET /bet/.
type ListBetsOptions struct {
	Page     int
	PageSize int
}

// MarshalJSON writes the named fields and merges Options into the same
// object, keys sorted. An option may not name a field the struct already
// has (even one left empty): that is an error rather than a silent choice
// of which value the service sees.
func (r CreateNotificationRequest) MarshalJSON() ([]byte, error) {
	type plain CreateNotificationRequest
	b, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	if len(r.Options) == 0 {
		return b, nil
	}
	named := createRequestFields()
	keys := make([]string, 0, len(r.Options))
	for k := range r.Options {
		if named[k] {
			return nil, fmt.Errorf("apiclient: create option %q duplicates a named field of the request", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // drop the closing brace
	first := len(bytes.TrimSpace(b)) <= 2
	for _, k := range keys {
		v, err := json.Marshal(r.Options[k])
		if err != nil {
			return nil, fmt.Errorf("apiclient: create option %q: %w", k, err)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// createRequestFields are the JSON names of CreateNotificationRequest's
// named fields.
var createRequestFields = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[CreateNotificationRequest]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
})

// ControlResult is the answer to switching one session on or off
// (POST /bookieaccount/control/{id}/).
type ControlResult struct {
	Status         string          `json:"status"` // success, failed
	Message        string          `json:"message"`
	AccountID      String          `json:"account_id"`
	DisplayName    string          `json:"display_name"`
	BotStatus      string          `json:"bot_status"` // RUNNING, STOPPED
	PreviousStatus string          `json:"previous_status"`
	Timestamp      Time            `json:"timestamp"`
	SessionInfo    json.RawMessage `json:"session_info,omitempty"`
}

// ControlAllResult is the answer to switching all sessions on or off
// (POST /bookieaccount/control/); failures are reported per account.
type ControlAllResult struct {
	Status           string                 `json:"status"`
	Message          string                 `json:"message"`
	AffectedAccounts Int                    `json:"affected_accounts"`
	Results          []ControlAccountResult `json:"results"`
}

// ControlAccountResult is one account's outcome in a ControlAllResult.
type ControlAccountResult struct {
	AccountID   String `json:"account_id"`
	DisplayName string `json:"display_name"`
	Status      string `json:"status"`
	Message     string `json:"message"`
}

// Bookmaker is a bookmaker the service can bet at (GET /bookie/names/,
// GET /bookie/{id}/).
type Bookmaker struct {
	ID                 Int    `json:"id"`
	Title              String `json:"title"`
	MarketsUnavailable string `json:"markets_unavailable"`
	IconURI            string `json:"icon_uri"`
	Enabled            Bool   `json:"enabled"`
	BonusEnabled       Bool   `json:"bonus_enabled"`
	Sports             Bool   `json:"sports"`
	SportsBonusEnabled Bool   `json:"sports_bonus_enabled"`
	Maintain           Bool   `json:"maintain"`
	SupportManualLogin Bool   `json:"support_manual_login"`
	Note               string `json:"note"`
}
