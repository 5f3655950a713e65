package sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

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

// userRecords lists the user's records, oldest first.
func (s *Service) userRecords(c *call) []*betRecord { return s.recsByUser[c.user.ID] }

// GET /bet/?page=&page_size=&label=: every record, newest first.
func (s *Service) listBets(c *call) {
	q := c.r.URL.Query()
	list := s.userRecords(c)
	if q.Has("label") {
		label := q.Get("label")
		var keep []*betRecord
		for _, r := range list {
			if r.n.Label == label {
				keep = append(keep, r)
			}
		}
		list = keep
	}
	writePage(c.w, paginate(c, len(list)), func(i int) []byte {
		return s.recordJSON(newestFirst(list, i))
	})
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

type betsOfNotificationView struct {
	AverageDeductionPercentage string            `json:"average_deduction_percentage"`
	Bets                       []json.RawMessage `json:"bets"`
	BotLogs                    []logView         `json:"bot_logs"`
	IsBetGroup                 int               `json:"is_bet_group"`
	Logs                       []any             `json:"logs"`
	SessionInfo                []sessionInfoView `json:"session_info"`
}

// GET /bet/notification/{id}/: the new doc's object, or the old doc's bare
// array with Options.BareBetArrays.
func (s *Service) betsOfNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	bets := make([]json.RawMessage, 0, len(n.records))
	for _, r := range n.records {
		bets = append(bets, s.recordJSON(r))
	}
	if s.opts.BareBetArrays {
		writeJSON(c.w, http.StatusOK, bets)
		return
	}
	info := make([]sessionInfoView, 0, len(n.records))
	for _, r := range n.records {
		info = append(info, sessionInfoView{
			Bookie: r.s.Bookie, DisplayName: r.s.DisplayName, Odds: r.Odds, Market: n.Market,
			Runner: n.Selection, Amount: r.Amount, Bonus: "Cash", BotID: r.s.BotID,
		})
	}
	logs := make([]logView, 0, len(n.logs))
	for _, i := range n.logs {
		l := s.botLogs[i]
		logs = append(logs, logView{ID: l.ID, Log: l.Log})
	}
	writeJSON(c.w, http.StatusOK, &betsOfNotificationView{
		IsBetGroup:                 0,
		BotLogs:                    logs,
		Logs:                       []any{},
		SessionInfo:                info,
		Bets:                       bets,
		AverageDeductionPercentage: "0.00",
	})
}

// POST /bet/search/ {"ids": [...]}: a bare array of the records found.
func (s *Service) searchBets(c *call) {
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	var ids []json.Number
	if raw, has := m["ids"]; has {
		if err := json.Unmarshal(raw, &ids); err != nil {
			fe := fieldErrors{}
			fe.add("ids", "Expected a list of integers.")
			writeJSON(c.w, http.StatusBadRequest, fe)
			return
		}
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id.String()] = true
	}
	out := []json.RawMessage{}
	recs := s.userRecords(c)
	for i := range recs {
		if r := newestFirst(recs, i); ids == nil || want[strconv.Itoa(r.ID)] {
			out = append(out, s.recordJSON(r))
		}
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bet/summary/: our shape (the spec shows none): counts of records
// by outcome and the money totals.
func (s *Service) betSummary(c *call) {
	var won, lost, pending, failed, total int
	var staked, profit float64
	for _, r := range s.userRecords(c) {
		total++
		switch {
		case r.SubmitResult != "Success":
			failed++
		case r.Status != "SETTLED":
			pending++
			staked += r.Amount
		case r.Profit > 0:
			won++
			staked += r.Amount
		default:
			lost++
			staked += r.Amount
		}
		profit += r.Profit
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"total_bets": total, "won": won, "lost": lost, "pending": pending, "failed": failed,
		"total_stake": cents(staked), "total_profit": cents(profit),
	})
}

// GET /bot/logs/: a bare array, newest first.
func (s *Service) botLogList(c *call) {
	s.writeLogs(c, len(s.botLogs), func(i int) botLog { return s.botLogs[i] })
}

// GET /bot/logs/{notification_id}/
func (s *Service) botLogsOfNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	s.writeLogs(c, len(n.logs), func(i int) botLog { return s.botLogs[n.logs[i]] })
}

type botLogView struct {
	BotID        string `json:"bot_id"`
	CreatedAt    any    `json:"created_at"`
	ID           int    `json:"id"`
	Log          string `json:"log"`
	Notification int    `json:"notification"`
}

// writeLogs writes the user's bot logs among at(0) … at(count-1) (oldest
// first), newest first.
func (s *Service) writeLogs(c *call, count int, at func(i int) botLog) {
	out := []botLogView{}
	for i := count - 1; i >= 0; i-- {
		if l := at(i); l.UserID == c.user.ID {
			out = append(out, botLogView{ID: l.ID, Notification: l.NotificationID, BotID: l.BotID, Log: l.Log, CreatedAt: stamp(l.At)})
		}
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bet/codes/: a bare array of racing codes.
func (s *Service) betCodes(c *call) { writeJSON(c.w, http.StatusOK, codes) }

// GET /bet/markets/: a bare array of market names.
func (s *Service) betMarkets(c *call) { writeJSON(c.w, http.StatusOK, Markets) }
